// The model client's retries against a real HTTP server: what is sent again (429, 503, a
// connection refused before sending) and what never is (other 5xx, a timeout after sending).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLlm, LlmError, parseRetryAfterMs, type RetryCause } from '../../src/agent/llm.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';

const THROTTLED = {
  status: 429,
  headers: { 'retry-after': '1' },
  errorMessage: 'Rate limit reached for requests',
};
const ask = { messages: [{ role: 'user' as const, content: 'hi' }] };

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm?.close();
});

function client(retries: RetryCause[], options: { requestTimeoutMs?: number } = {}) {
  return createLlm(
    { url: llm.url, apiKey: '', model: 'm' },
    { ...options, onRetry: (cause) => retries.push(cause), random: () => 0 },
  );
}

describe('model client retries', () => {
  it('sends a throttled request again after Retry-After, each time through beforeSend', async () => {
    llm.calls.length = 0;
    llm.setHandler((_, i) => (i < 2 ? THROTTLED : { content: 'done' }));
    const retries: RetryCause[] = [];
    let sends = 0;
    const answer = await client(retries).complete(ask, new AbortController().signal, {
      beforeSend: async () => void (sends += 1),
      deadlineMs: Date.now() + 10_000,
    });
    expect(answer.choices[0]?.message.content).toBe('done');
    expect(sends).toBe(3);
    expect(retries).toEqual(['throttled', 'throttled']);
    const [first, second, third] = llm.calls.map((call) => call.receivedAt);
    // Retry-After is a floor, not a hint.
    expect((second ?? 0) - (first ?? 0)).toBeGreaterThanOrEqual(990);
    expect((third ?? 0) - (second ?? 0)).toBeGreaterThanOrEqual(990);
  });

  it('holds its other calls to a throttled endpoint until Retry-After has passed', async () => {
    llm.calls.length = 0;
    llm.setHandler((_, i) => (i === 0 ? THROTTLED : { content: 'ok' }));
    let throttledAt = 0;
    let onThrottled: () => void = () => {};
    const throttled = new Promise<void>((resolve) => (onThrottled = resolve));
    const shared = createLlm(
      { url: llm.url, apiKey: '', model: 'm' },
      {
        onRetry: () => {
          throttledAt = Date.now();
          onThrottled();
        },
      },
    );
    const signal = new AbortController().signal;
    const deadlineMs = Date.now() + 10_000;
    const first = shared.complete(ask, signal, { deadlineMs });
    await throttled;
    const second = shared.complete(ask, signal, { deadlineMs });
    await Promise.all([first, second]);
    const later = llm.calls.slice(1).map((call) => call.receivedAt - throttledAt);
    expect(later).toHaveLength(2);
    // The 429 said "1 s": neither the retry nor the other call went out before.
    for (const ms of later) expect(ms).toBeGreaterThanOrEqual(950);
  });

  it('retries a 503 with backoff, never a 500', async () => {
    llm.calls.length = 0;
    llm.setHandler((_, i) => (i === 0 ? { status: 503 } : { content: 'back' }));
    const retries: RetryCause[] = [];
    const answer = await client(retries).complete(ask, new AbortController().signal);
    expect(answer.choices[0]?.message.content).toBe('back');
    expect(retries).toEqual(['overloaded']);

    llm.calls.length = 0;
    llm.setHandler(() => ({ status: 500 }));
    const failure = await client(retries)
      .complete(ask, new AbortController().signal)
      .catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(LlmError);
    expect(failure).toMatchObject({ kind: 'upstream' });
    expect(llm.calls).toHaveLength(1);
  });

  it('gives up at once when Retry-After lies beyond the deadline', async () => {
    llm.calls.length = 0;
    llm.setHandler(() => ({ ...THROTTLED, headers: { 'retry-after': '30' } }));
    const failure = await client([])
      .complete(ask, new AbortController().signal, { deadlineMs: Date.now() + 2000 })
      .catch((err: unknown) => err);
    expect(failure).toMatchObject({ kind: 'throttled' });
    expect((failure as Error).message).toContain('429: Rate limit reached for requests');
    expect(llm.calls).toHaveLength(1);
  });

  it('never sends again after a timeout: the model may have acted', async () => {
    llm.calls.length = 0;
    llm.setHandler(() => ({ hang: true }));
    const failure = await client([], { requestTimeoutMs: 200 })
      .complete(ask, new AbortController().signal, { deadlineMs: Date.now() + 5000 })
      .catch((err: unknown) => err);
    expect(failure).toMatchObject({ kind: 'timeout' });
    expect(llm.calls).toHaveLength(1);
  });

  it('retries a connection refused (nothing was sent) until the deadline', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const retries: RetryCause[] = [];
    let sends = 0;
    const refused = createLlm(
      { url: `http://127.0.0.1:${port}/v1`, apiKey: '', model: 'm' },
      { onRetry: (cause) => retries.push(cause), random: () => 0.01 },
    );
    const failure = await refused
      .complete(ask, new AbortController().signal, {
        beforeSend: async () => void (sends += 1),
        deadlineMs: Date.now() + 300,
      })
      .catch((err: unknown) => err);
    expect(failure).toMatchObject({ kind: 'unreachable', notSent: true });
    expect(sends).toBeGreaterThan(1);
    expect(retries.every((cause) => cause === 'connect')).toBe(true);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-12-01T10:00:00Z');
    expect(parseRetryAfterMs('2', now)).toBe(2000);
    expect(parseRetryAfterMs('0.5', now)).toBe(500);
    expect(parseRetryAfterMs('Tue, 01 Dec 2026 10:00:03 GMT', now)).toBe(3000);
    expect(parseRetryAfterMs('Tue, 01 Dec 2026 09:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfterMs('soon', now)).toBeUndefined();
    expect(parseRetryAfterMs(undefined, now)).toBeUndefined();
  });
});
