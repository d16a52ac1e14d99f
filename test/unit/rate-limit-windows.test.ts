// The rate limiter's in-process counts (Redis away): a minute's and an hour's windows of the
// same key are counted apart, and each starts afresh with its next window.
import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/http/rate-limit.js';

const HOUR_MS = 3_600_000;
const start = Date.parse('2026-03-02T08:00:10.000Z');

describe('RateLimiter without Redis', () => {
  it('counts an hour window apart from the minute window of the same key', async () => {
    const limiter = new RateLimiter(undefined);
    expect((await limiter.hit('k', 2, start, HOUR_MS)).allowed).toBe(true);
    expect((await limiter.hit('k', 2, start + 1000, HOUR_MS)).allowed).toBe(true);
    const third = await limiter.hit('k', 2, start + 2000, HOUR_MS);
    expect(third).toEqual({ allowed: false, remaining: 0, retryAfterSeconds: 3588 });
    // The minute window of the same key is untouched, and its next minute does not reset the hour.
    expect((await limiter.hit('k', 1, start + 2000)).allowed).toBe(true);
    expect((await limiter.hit('k', 2, start + 65_000, HOUR_MS)).allowed).toBe(false);
    // The next hour starts afresh.
    expect((await limiter.hit('k', 2, start + HOUR_MS, HOUR_MS)).allowed).toBe(true);
  });

  it('keeps counting a minute window per key as before', async () => {
    const limiter = new RateLimiter(undefined);
    expect((await limiter.hit('a', 1, start)).allowed).toBe(true);
    expect((await limiter.hit('b', 1, start)).allowed).toBe(true);
    expect(await limiter.hit('a', 1, start + 1000)).toEqual({
      allowed: false,
      remaining: 0,
      retryAfterSeconds: 49,
    });
    expect((await limiter.hit('a', 1, start + 60_000)).allowed).toBe(true);
  });
});
