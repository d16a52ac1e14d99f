// The global sweep of expired Idempotency-Key answers (migrations/functions/idempotency_sweep.sql):
// every replica runs it now and then; deleting what another replica already deleted is harmless.
import type { Pool } from '../db/pool.js';
import type { Logger } from '../log.js';
import { systemClock, type Clock } from '../services/clock.js';
import { startLoop, type Loop } from '../services/loop.js';
import type { Service } from '../services/service.js';
import { IDEMPOTENCY_WINDOW_MS } from './idempotency.js';

export interface IdempotencySweepSettings {
  /** Between rounds that succeeded. */
  intervalMs: number;
  /** Rows deleted per statement; a round goes on while batches come back full. */
  batchRows: number;
  /** After failures the next round waits 2, 4 … intervals, up to this. */
  maxBackoffMs: number;
  /** Answers older than this go. */
  windowMs: number;
}

export const DEFAULT_IDEMPOTENCY_SWEEP_SETTINGS: IdempotencySweepSettings = {
  intervalMs: 10 * 60_000,
  batchRows: 5000,
  maxBackoffMs: 60 * 60_000,
  windowMs: IDEMPOTENCY_WINDOW_MS,
};

/** Deletes expired answers of every tenant, batch after batch; returns how many went. */
export async function sweepIdempotencyKeys(
  pool: Pool,
  windowMs = IDEMPOTENCY_WINDOW_MS,
  batchRows = DEFAULT_IDEMPOTENCY_SWEEP_SETTINGS.batchRows,
  goOn: () => boolean = () => true,
): Promise<number> {
  let total = 0;
  for (;;) {
    const { rows } = await pool.query<{ n: number }>('SELECT idempotency_sweep($1, $2) AS n', [
      windowMs,
      batchRows,
    ]);
    const n = rows[0]?.n ?? 0;
    total += n;
    if (n < batchRows || !goOn()) return total;
  }
}

export interface IdempotencySweeperDeps {
  pool: Pool;
  log: Logger;
  clock?: Clock;
  settings?: Partial<IdempotencySweepSettings>;
}

/** Sweeps every 10 minutes; a failure is logged and the next try backs off (up to an hour). */
export class IdempotencySweeper implements Service {
  readonly name = 'idempotency sweeper';
  private loop: Loop | undefined;
  private readonly settings: IdempotencySweepSettings;

  constructor(private readonly deps: IdempotencySweeperDeps) {
    this.settings = { ...DEFAULT_IDEMPOTENCY_SWEEP_SETTINGS, ...deps.settings };
  }

  start(): void {
    if (this.loop) return;
    const { pool, log } = this.deps;
    const { intervalMs, maxBackoffMs, windowMs, batchRows } = this.settings;
    this.loop = startLoop({
      name: this.name,
      intervalMs,
      clock: this.deps.clock ?? systemClock,
      log,
      round: async (signal) => {
        const deleted = await sweepIdempotencyKeys(
          pool,
          windowMs,
          batchRows,
          () => !signal.aborted,
        );
        if (deleted > 0) log.info({ deleted }, 'idempotency: expired keys swept');
      },
      backoff: { firstMs: 2 * intervalMs, maxMs: maxBackoffMs },
      onFailure: (err, failures) =>
        log.warn({ error: String(err), failures }, 'idempotency: sweep failed, retrying later'),
    });
  }

  /** A round under way stops after its current batch. */
  async stop(): Promise<void> {
    await this.loop?.stop();
  }
}
