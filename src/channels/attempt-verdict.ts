// What one channel attempt's result means (pure: time is an argument). Throttling is honoured:
// Slack's and Discord's Retry-After header, Discord's and Telegram's retry_after in the body
// (the transport reads them into retryAfterMs). SMTP: a 4xx reply is temporary (retried), a 5xx
// permanent (failed).
import { MAX_RETRY_AFTER_MS } from '../webhooks/retry-policy.js';

export type ChannelAttemptResult =
  | { kind: 'answered'; statusCode: number; retryAfterMs: number | null; response: string }
  | { kind: 'smtp'; code: number | null; response: string }
  | { kind: 'timeout' | 'connect'; error: string }
  | { kind: 'refused'; error: string }
  /** The channel cannot be sent as configured (a secret missing or bound elsewhere). */
  | { kind: 'invalid'; error: string };

export type ChannelOutcome = 'delivered' | 'retry' | 'failed' | 'refused';

export interface ChannelVerdict {
  outcome: ChannelOutcome;
  nextAttemptAt: Date | null;
}

export function judgeChannelAttempt(
  result: ChannelAttemptResult,
  attemptsBefore: number,
  scheduleMs: readonly number[],
  nowMs: number,
): ChannelVerdict {
  if (result.kind === 'refused') return { outcome: 'refused', nextAttemptAt: null };
  if (result.kind === 'invalid') return { outcome: 'failed', nextAttemptAt: null };
  let retryAfterMs = 0;
  if (result.kind === 'answered') {
    const code = result.statusCode;
    if (code >= 200 && code < 300) return { outcome: 'delivered', nextAttemptAt: null };
    if (code !== 429 && code < 500) return { outcome: 'failed', nextAttemptAt: null };
    retryAfterMs = Math.min(result.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS);
  }
  if (result.kind === 'smtp') {
    const code = result.code ?? 0;
    if (code >= 200 && code < 300) return { outcome: 'delivered', nextAttemptAt: null };
    if (code >= 500) return { outcome: 'failed', nextAttemptAt: null };
  }
  const delayMs = scheduleMs[attemptsBefore];
  if (delayMs === undefined) return { outcome: 'failed', nextAttemptAt: null };
  return { outcome: 'retry', nextAttemptAt: new Date(nowMs + Math.max(delayMs, retryAfterMs)) };
}

/** The wait a throttled answer asks for: the Retry-After header or the body's retry_after. */
export function retryAfterOf(
  header: string | string[] | undefined,
  body: string,
  nowMs: number,
): number | null {
  const waits: number[] = [];
  const text = Array.isArray(header) ? header[0] : header;
  if (text !== undefined && text.trim() !== '') {
    const seconds = Number(text.trim());
    if (Number.isFinite(seconds)) waits.push(seconds * 1000);
    else if (!Number.isNaN(Date.parse(text))) waits.push(Math.max(0, Date.parse(text) - nowMs));
  }
  try {
    const parsed = JSON.parse(body) as {
      retry_after?: unknown;
      parameters?: { retry_after?: unknown };
    };
    const inBody = parsed.parameters?.retry_after ?? parsed.retry_after;
    if (typeof inBody === 'number' && Number.isFinite(inBody)) waits.push(inBody * 1000);
  } catch {
    // Not JSON: only the header counts.
  }
  return waits.length === 0 ? null : Math.ceil(Math.max(...waits));
}
