// What one delivery attempt's answer leads to (pure), and the webhook settings.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { judgeAttempt, parseRetryAfterMs } from '../../src/webhooks/retry-policy.js';

const SCHEDULE = [5000, 300_000];
const NOW = Date.parse('2026-03-02T08:00:00Z');
const answered = (statusCode: number, retryAfter?: string) =>
  ({ kind: 'answered', statusCode, retryAfter }) as const;

describe('judgeAttempt', () => {
  it('delivers on 2xx, disables on 410, fails other 4xx and 3xx at once', () => {
    expect(judgeAttempt(answered(204), 0, SCHEDULE, NOW).outcome).toBe('delivered');
    expect(judgeAttempt(answered(410), 0, SCHEDULE, NOW).outcome).toBe('gone');
    for (const code of [301, 302, 400, 401, 404, 413]) {
      expect(judgeAttempt(answered(code), 0, SCHEDULE, NOW)).toEqual({
        outcome: 'failed',
        nextAttemptAt: null,
      });
    }
    const refused = { kind: 'refused', error: 'loopback' } as const;
    expect(judgeAttempt(refused, 0, SCHEDULE, NOW).outcome).toBe('refused');
  });

  it('retries timeouts, connect errors, 429 and 5xx along the schedule, then gives up', () => {
    for (const result of [
      answered(500),
      answered(503),
      answered(429),
      { kind: 'timeout', error: 'slow' } as const,
      { kind: 'connect', error: 'ECONNREFUSED' } as const,
    ]) {
      expect(judgeAttempt(result, 0, SCHEDULE, NOW)).toEqual({
        outcome: 'retry',
        nextAttemptAt: new Date(NOW + 5000),
      });
      expect(judgeAttempt(result, 1, SCHEDULE, NOW).nextAttemptAt).toEqual(new Date(NOW + 300_000));
      expect(judgeAttempt(result, 2, SCHEDULE, NOW)).toEqual({
        outcome: 'failed',
        nextAttemptAt: null,
      });
    }
  });

  it('waits at least Retry-After (seconds or a date), at most a day', () => {
    expect(judgeAttempt(answered(429, '60'), 0, SCHEDULE, NOW).nextAttemptAt).toEqual(
      new Date(NOW + 60_000),
    );
    expect(judgeAttempt(answered(503, '1'), 0, SCHEDULE, NOW).nextAttemptAt).toEqual(
      new Date(NOW + 5000),
    );
    expect(judgeAttempt(answered(429, '999999'), 0, SCHEDULE, NOW).nextAttemptAt).toEqual(
      new Date(NOW + 24 * 3600_000),
    );
    expect(parseRetryAfterMs('Mon, 02 Mar 2026 08:02:00 GMT', NOW)).toBe(120_000);
    expect(parseRetryAfterMs('soon', NOW)).toBeNull();
    expect(parseRetryAfterMs(undefined, NOW)).toBeNull();
  });
});

describe('webhook settings', () => {
  it('defaults to the documented schedule and leaves private networks to the command', () => {
    const { webhooks } = loadConfig({});
    expect(webhooks.retryScheduleMs).toEqual([
      5000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
    ]);
    expect(webhooks).toMatchObject({
      allowPrivateNetworks: undefined,
      timeoutMs: 15_000,
      maxEndpoints: 10,
      maxDeliveriesPerTenant: 10,
      maxConcurrentDeliveries: 100,
      disableAfterMs: 5 * 24 * 3600_000,
    });
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '1s,2s,4s' }).webhooks.retryScheduleMs).toEqual([
      1000, 2000, 4000,
    ]);
    expect(
      loadConfig({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }).webhooks.allowPrivateNetworks,
    ).toBe(true);
  });

  it('refuses a bad value with one line naming the setting', () => {
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '5s,,soon' })).toThrow(ConfigError);
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '5s,,soon' })).toThrow(
      /^invalid setting WEBHOOK_RETRY_SCHEDULE="5s,,soon": expected up to 20 comma-separated durations/,
    );
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'yes' })).toThrow(
      /WEBHOOK_ALLOW_PRIVATE_NETWORKS="yes": expected true or false/,
    );
  });
});
