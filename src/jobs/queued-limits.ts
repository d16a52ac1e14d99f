// The bounds on what a tenant may queue (backfills, retries by hand): queued runs at once
// (MAX_QUEUED_RUNS_PER_TENANT, 429 queue_full) and occurrences backfilled per UTC day
// (BACKFILL_RUNS_PER_DAY, 429 backfill_budget). Both are counted in PostgreSQL inside the
// tenant's transaction, under one advisory lock per tenant, so every replica shares them and two
// requests cannot both pass; the day's count lives in tenant_backfill_days (migration 336), which
// nothing but the day's end gives back: deleting a job does not free it.
import type { PoolClient } from '../db/pool.js';
import { CommandError } from './commands.js';

export interface QueuedRunLimits {
  /** Queued runs a tenant may have at once, whatever queued them. */
  maxQueuedRuns: number;
  /** Occurrences a tenant may backfill per UTC day. */
  backfillRunsPerDay: number;
}

export const DEFAULT_QUEUED_RUN_LIMITS: QueuedRunLimits = {
  maxQueuedRuns: 10_000,
  backfillRunsPerDay: 1000,
};

/** How long a queue_full refusal asks to wait: queued runs leave at the pace of the runs. */
const QUEUE_FULL_RETRY_SECONDS = 60;

/** Serialises a tenant's writes of queued runs until the transaction ends. */
export async function lockTenantQueue(client: PoolClient, tenantId: string): Promise<void> {
  await client.query(
    "SELECT pg_advisory_xact_lock(hashtextextended('hermesx:queued-runs:' || $1, 0))",
    [tenantId],
  );
}

/** Room left under the tenant's bound on queued runs; refuses with 429 queue_full when none. */
export async function requireQueueRoom(client: PoolClient, maxQueuedRuns: number): Promise<number> {
  // Counts at most the bound (RLS keeps it to the tenant's rows, through the queued index).
  const { rows } = await client.query<{ count: number }>(
    `SELECT count(*)::integer AS count
       FROM (SELECT 1 FROM cron_job_runs WHERE status = 'queued' LIMIT $1) q`,
    [maxQueuedRuns],
  );
  const room = maxQueuedRuns - (rows[0]?.count ?? 0);
  if (room > 0) return room;
  throw new CommandError(
    'queue_full',
    `this tenant already has ${maxQueuedRuns} queued runs; retry once some have run`,
    429,
    QUEUE_FULL_RETRY_SECONDS,
  );
}

/** Occurrences the tenant may still backfill today (UTC, the database's clock); 429 when none. */
export async function requireBackfillBudget(
  client: PoolClient,
  tenantId: string,
  perDay: number,
): Promise<number> {
  const { rows } = await client.query<{ used: number | null; reset_seconds: number }>(
    `SELECT (SELECT occurrences FROM tenant_backfill_days
              WHERE tenant_id = $1 AND day = (now() AT TIME ZONE 'UTC')::date) AS used,
            ceil(extract(epoch FROM date_trunc('day', now() AT TIME ZONE 'UTC') + interval '1 day'
                                    - (now() AT TIME ZONE 'UTC')))::integer AS reset_seconds`,
    [tenantId],
  );
  const room = perDay - (rows[0]?.used ?? 0);
  if (room > 0) return room;
  const resetSeconds = Math.max(1, rows[0]?.reset_seconds ?? 86_400);
  throw new CommandError(
    'backfill_budget',
    `this tenant has backfilled its ${perDay} occurrences for today (UTC); retry in ${resetSeconds}s`,
    429,
    resetSeconds,
  );
}

/** Charges today's budget with the occurrences queued; earlier days' counts go. */
export async function chargeBackfill(
  client: PoolClient,
  tenantId: string,
  occurrences: number,
): Promise<void> {
  if (occurrences <= 0) return;
  await client.query(
    `WITH today AS (SELECT (now() AT TIME ZONE 'UTC')::date AS day),
          old AS (DELETE FROM tenant_backfill_days
                   WHERE tenant_id = $1 AND day < (SELECT day FROM today))
     INSERT INTO tenant_backfill_days (tenant_id, day, occurrences)
     SELECT $1, day, $2 FROM today
     ON CONFLICT (tenant_id, day)
       DO UPDATE SET occurrences = tenant_backfill_days.occurrences + EXCLUDED.occurrences`,
    [tenantId, occurrences],
  );
}
