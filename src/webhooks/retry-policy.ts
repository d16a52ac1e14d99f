// What one delivery attempt's result means (pure: time is an argument).
import type { AttemptOutcome } from './delivery-store.js';

/** What came back from one attempt: an HTTP status, or why there was none. */
export type AttemptResult =
  | { kind: 'answered'; statusCode: number; retryAfter: string | undefined }
  | { kind: 'timeout' | 'connect'; error: string }
  | { kind: 'refused'; error: string };

export interface AttemptVerdict {
  outcome: AttemptOutcome;
  /** When the next attempt is due (outcome 'retry' only). */
  nextAttemptAt: Date | null;
}

/** Longest Retry-After honoured (a receiver cannot park a delivery for ever). */
export const MAX_RETRY_AFTER_MS = 24 * 3600_000;

/**
 * 2xx: delivered. 410: gone (the endpoint is disabled). Timeout, connect error, 429 and 5xx:
 * retried after the schedule's next delay (429 and 503: at least Retry-After), until the
 * schedule is used up. Anything else (other 4xx, a 3xx: redirects are not followed), and an
 * address the guard refuses: failed at once, since sending again would get the same answer.
 * `attemptsBefore` counts the attempts already recorded (0 for the first).
 */
export function judgeAttempt(
  result: AttemptResult,
  attemptsBefore: number,
  scheduleMs: readonly number[],
  nowMs: number,
): AttemptVerdict {
  if (result.kind === 'refused') return { outcome: 'refused', nextAttemptAt: null };
  if (result.kind === 'answered') {
    const code = result.statusCode;
    if (code >= 200 && code < 300) return { outcome: 'delivered', nextAttemptAt: null };
    if (code === 410) return { outcome: 'gone', nextAttemptAt: null };
    if (code !== 429 && code < 500) return { outcome: 'failed', nextAttemptAt: null };
  }
  const delayMs = scheduleMs[attemptsBefore];
  if (delayMs === undefined) return { outcome: 'failed', nextAttemptAt: null };
  const retryAfterMs =
    result.kind === 'answered' ? parseRetryAfterMs(result.retryAfter, nowMs) : null;
  const waitMs = Math.max(delayMs, Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
  return { outcome: 'retry', nextAttemptAt: new Date(nowMs + waitMs) };
}

/** Retry-After as seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfterMs(value: string | undefined, nowMs: number): number | null {
  if (value === undefined || value.trim() === '') return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const dateMs = Date.parse(text);
  if (Number.isNaN(dateMs)) return null;
  return Math.max(0, dateMs - nowMs);
}
