// The audit log's upkeep (migrations/functions/audit_log_maintain.sql): every hour one replica
// creates the coming months' partitions, drops the months past the longest retention and deletes
// the entries of tenants that keep them less long. The first round runs at start, so a fresh
// installation has this month's partition at once.
import type { Pool } from '../db/pool.js';
import type { Logger } from '../log.js';
import { systemClock, type Clock } from '../services/clock.js';
import { startLoop, type Loop } from '../services/loop.js';
import type { Service } from '../services/service.js';

export interface AuditUpkeepSettings {
  intervalMs: number;
  /** Monthly partitions kept ready after the current month. */
  monthsAhead: number;
  /** Entries deleted per statement; a round goes on while batches come back full. */
  deleteBatch: number;
  maxBackoffMs: number;
}

export const DEFAULT_AUDIT_UPKEEP_SETTINGS: AuditUpkeepSettings = {
  intervalMs: 60 * 60_000,
  monthsAhead: 2,
  deleteBatch: 5000,
  maxBackoffMs: 6 * 60 * 60_000,
};

export interface AuditUpkeepRound {
  created: number;
  dropped: number;
  deleted: number;
}

/** One round; `now` is for tests (NULL: the database's clock). */
export async function maintainAuditLog(
  pool: Pool,
  settings: Pick<AuditUpkeepSettings, 'monthsAhead' | 'deleteBatch'>,
  now: Date | null = null,
  goOn: () => boolean = () => true,
): Promise<AuditUpkeepRound> {
  const total = { created: 0, dropped: 0, deleted: 0 };
  for (;;) {
    const { rows } = await pool.query<AuditUpkeepRound>(
      'SELECT created, dropped, deleted FROM audit_log_maintain($1, $2, $3)',
      [settings.monthsAhead, settings.deleteBatch, now],
    );
    const round = rows[0] ?? { created: 0, dropped: 0, deleted: 0 };
    total.created += round.created;
    total.dropped += round.dropped;
    total.deleted += round.deleted;
    if (round.deleted < settings.deleteBatch || !goOn()) return total;
  }
}

export class AuditUpkeep implements Service {
  readonly name = 'audit upkeep';
  private loop: Loop | undefined;
  private readonly settings: AuditUpkeepSettings;

  constructor(
    private readonly deps: {
      pool: Pool;
      log: Logger;
      clock?: Clock;
      settings?: Partial<AuditUpkeepSettings>;
    },
  ) {
    this.settings = { ...DEFAULT_AUDIT_UPKEEP_SETTINGS, ...deps.settings };
  }

  start(): void {
    if (this.loop) return;
    const { pool, log } = this.deps;
    const { intervalMs, maxBackoffMs } = this.settings;
    this.loop = startLoop({
      name: this.name,
      intervalMs,
      immediate: true,
      clock: this.deps.clock ?? systemClock,
      log,
      round: async (signal) => {
        const done = await maintainAuditLog(pool, this.settings, null, () => !signal.aborted);
        if (done.created + done.dropped + done.deleted > 0) log.info(done, 'audit log maintained');
      },
      backoff: { firstMs: 60_000, maxMs: maxBackoffMs },
      onFailure: (err, failures) =>
        log.warn({ error: String(err), failures }, 'audit log upkeep failed, retrying later'),
    });
  }

  async stop(): Promise<void> {
    await this.loop?.stop();
  }
}
