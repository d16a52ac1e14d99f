// The global sweep of expired Idempotency-Key answers (migrations/functions/idempotency_sweep.sql):
// every replica runs it now and then; deleting what another replica already deleted is harmless.
import type { Pool } from '../db/pool.js';
import type { Logger } from '../log.js';
import { IDEMPOTENCY_WINDOW_MS } from './idempotency.js';

const SWEEP_EVERY_MS = 10 * 60_000;
const BATCH_ROWS = 5000;
const MAX_BACKOFF_MS = 60 * 60_000;

/** Deletes expired answers of every tenant, batch after batch; returns how many went. */
export async function sweepIdempotencyKeys(pool: Pool, windowMs = IDEMPOTENCY_WINDOW_MS) {
  let total = 0;
  for (;;) {
    const { rows } = await pool.query<{ n: number }>('SELECT idempotency_sweep($1, $2) AS n', [
      windowMs,
      BATCH_ROWS,
    ]);
    const n = rows[0]?.n ?? 0;
    total += n;
    if (n < BATCH_ROWS) return total;
  }
}

/** Sweeps every 10 minutes; a failure is logged and the next try backs off (up to an hour). */
export function startIdempotencySweeper(pool: Pool, log: Logger): { stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let failures = 0;
  let stopped = false;
  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(() => void sweep(), delayMs);
    timer.unref();
  };
  const sweep = async () => {
    try {
      const deleted = await sweepIdempotencyKeys(pool);
      failures = 0;
      if (deleted > 0) log.info({ deleted }, 'idempotency: expired keys swept');
      schedule(SWEEP_EVERY_MS);
    } catch (err) {
      failures++;
      log.warn({ error: String(err), failures }, 'idempotency: sweep failed, retrying later');
      schedule(Math.min(MAX_BACKOFF_MS, SWEEP_EVERY_MS * 2 ** Math.min(failures, 3)));
    }
  };
  schedule(SWEEP_EVERY_MS);
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
