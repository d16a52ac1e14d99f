// The webhook sender's settings (main.ts fills them from WEBHOOK_* variables) and the defaults of
// those it may leave out, with the fixed numbers of its loop.

export interface SenderSettings {
  podId: string;
  retryScheduleMs: readonly number[];
  timeoutMs: number;
  maxConcurrent: number;
  maxPerTenant: number;
  disableAfterMs: number;
  /** Finished deliveries older than this are removed (now and then, in batches); unset: kept. */
  retentionMs?: number;
  allowPrivateNetworks: boolean;
  /** How often an idle sender looks for due deliveries. */
  idlePollMs?: number;
}

export const DEFAULT_IDLE_POLL_MS = 200;
/** A failed claim is retried after 2, 4, 8 … idle polls, up to this. */
export const MAX_CLAIM_BACKOFF_MS = 30_000;
/** A claim's lease outlives the attempt (the guard ends it at timeoutMs) by this, to record it. */
export const LEASE_MARGIN_MS = 5000;
/** Deliveries finishing within this of each other share one claim. */
export const FREED_SLOT_BATCH_MS = 5;
/** Retention runs off the claim path, one round at a time, this often. */
export const PRUNE_INTERVAL_MS = 10 * 60_000;
export const PRUNE_BATCH = 1000;
export const PRUNE_BATCHES_PER_ROUND = 20;
/** Response bodies are read up to this size, for the error text of a failed attempt. */
export const MAX_RESPONSE_BYTES = 4096;
