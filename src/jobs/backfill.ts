// POST /v1/cron-jobs/{id}/backfill: the occurrences of a past range that have no run yet become
// queued runs (origin "backfill"), which any pod takes in turn like retries (scheduler_take_queued:
// one run of a job at a time, the tenant's cap, round-robin over tenants). The unique key
// (cron_job_id, scheduled_at) decides "no run yet": an occurrence with a run of any status is
// skipped, so repeating a request adds nothing. Every occurrence queued is charged to the
// tenant's backfill budget of the day, and queued runs are bounded per tenant (queued-limits.ts).
import { withTenant, type Pool, type PoolClient } from '../db/pool.js';
import { parseSchedule } from '../schedule/schedule.js';
import { CommandError, isUuid } from './commands.js';
import {
  chargeBackfill,
  DEFAULT_QUEUED_RUN_LIMITS,
  lockTenantQueue,
  requireBackfillBudget,
  requireQueueRoom,
  type QueuedRunLimits,
} from './queued-limits.js';

export const BACKFILL_LIMITS = {
  /** Occurrences added by one request; a longer range answers where to go on. */
  perRequest: 100,
  /** Queued backfill runs a tenant may have waiting at once. */
  queuedPerTenant: 1000,
};

export interface BackfillInput {
  from: string;
  to: string;
}

export interface BackfillAnswer {
  job_id: string;
  /** Occurrences in [from, next_from or to) with no run before: now queued. */
  added: number;
  /** Occurrences in that part of the range that already had a run. */
  skipped: number;
  /** The queued occurrences' nominal times, oldest first. */
  scheduled_at: string[];
  /** Set when the range holds more than one request may add: send it as the next `from`. */
  next_from: string | null;
}

/** Occurrences in [from, to), oldest first, at most `limit`, and the one after them if any. */
export function listOccurrences(
  nextAfter: (after: Date) => Date | null,
  from: Date,
  to: Date,
  limit: number,
): { times: Date[]; following: Date | null } {
  const times: Date[] = [];
  let at = nextAfter(new Date(from.getTime() - 1));
  while (at !== null && at.getTime() < to.getTime()) {
    if (times.length === limit) return { times, following: at };
    times.push(at);
    at = nextAfter(at);
  }
  return { times, following: null };
}

export async function backfillJob(
  deps: { pool: Pool; now: () => Date; limits?: QueuedRunLimits | undefined },
  tenantId: string,
  jobId: string,
  input: BackfillInput,
): Promise<BackfillAnswer> {
  const from = new Date(input.from);
  const to = new Date(input.to);
  const now = deps.now();
  if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime())) {
    throw invalid('from and to must be RFC 3339 times such as 2026-03-01T00:00:00Z');
  }
  if (from.getTime() >= to.getTime()) throw invalid('from must be before to');
  if (to.getTime() > now.getTime()) {
    throw invalid('to must not be in the future: the schedule runs the occurrences to come');
  }
  return withTenant(deps.pool, tenantId, async (client) => {
    const job = isUuid(jobId) ? await selectBackfillJob(client, jobId) : undefined;
    if (!job) throw new CommandError('not_found', `no cron job with id ${jobId}`, 404);
    if (!job.enabled) {
      throw new CommandError('job_disabled', 'the job is paused; resume it to backfill it', 409);
    }
    const oldestMs = now.getTime() - job.run_retention_days * 86_400_000;
    if (from.getTime() < oldestMs) {
      throw invalid(
        `from must be within the tenant's run retention (${job.run_retention_days} days): no earlier than ${new Date(oldestMs).toISOString()}`,
      );
    }
    const check = parseSchedule({
      schedule: job.schedule,
      timezone: job.timezone,
      endsAt: job.ends_at,
    });
    if (!check.ok) throw new CommandError('invalid_schedule', check.message, 422);
    // Serialises a tenant's queued-run writes, so two requests cannot both pass a bound.
    await lockTenantQueue(client, tenantId);
    const room = BACKFILL_LIMITS.queuedPerTenant - (await countQueuedBackfills(client));
    if (room <= 0) {
      throw new CommandError(
        'backfill_quota',
        `this tenant already has ${BACKFILL_LIMITS.queuedPerTenant} backfilled runs waiting; retry once some have run`,
        429,
        60,
      );
    }
    const limits = deps.limits ?? DEFAULT_QUEUED_RUN_LIMITS;
    const queueRoom = await requireQueueRoom(client, limits.maxQueuedRuns);
    const budget = await requireBackfillBudget(client, tenantId, limits.backfillRunsPerDay);
    const limit = Math.min(BACKFILL_LIMITS.perRequest, room, queueRoom, budget);
    const { times, following } = listOccurrences(check.schedule.nextAfter, from, to, limit);
    const added = await insertQueued(client, tenantId, jobId, times);
    await chargeBackfill(client, tenantId, added.length);
    return {
      job_id: jobId,
      added: added.length,
      skipped: times.length - added.length,
      scheduled_at: added.map((at) => at.toISOString()),
      next_from: following === null ? null : following.toISOString(),
    };
  });
}

const invalid = (message: string) => new CommandError('validation_error', message, 400);

interface BackfillJobRow {
  schedule: string;
  timezone: string;
  enabled: boolean;
  ends_at: Date | null;
  run_retention_days: number;
}

async function selectBackfillJob(
  client: PoolClient,
  jobId: string,
): Promise<BackfillJobRow | undefined> {
  const { rows } = await client.query<BackfillJobRow>(
    `SELECT j.schedule, j.timezone, j.enabled, j.ends_at, t.run_retention_days
       FROM cron_jobs j JOIN tenants t ON t.id = j.tenant_id
      WHERE j.id = $1 AND j.deleted_at IS NULL`,
    [jobId],
  );
  return rows[0];
}

async function countQueuedBackfills(client: PoolClient): Promise<number> {
  const { rows } = await client.query<{ count: string }>(
    "SELECT count(*) FROM cron_job_runs WHERE status = 'queued' AND origin = 'backfill'",
  );
  return Number(rows[0]?.count ?? 0);
}

/** Queues the occurrences without a run, their not_before in occurrence order (oldest first). */
async function insertQueued(
  client: PoolClient,
  tenantId: string,
  jobId: string,
  times: readonly Date[],
): Promise<Date[]> {
  if (times.length === 0) return [];
  const { rows } = await client.query<{ scheduled_at: Date }>(
    `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, pod_id, origin,
                                not_before)
     SELECT $1, $2, t.at, 'queued', NULL, 'backfill', now() + (t.ord - 1) * interval '1 millisecond'
       FROM unnest($3::timestamptz[]) WITH ORDINALITY AS t (at, ord)
     ON CONFLICT ON CONSTRAINT cron_job_runs_cron_job_id_scheduled_at_key DO NOTHING
     RETURNING scheduled_at`,
    [jobId, tenantId, times],
  );
  return rows.map((row) => row.scheduled_at).sort((a, b) => a.getTime() - b.getTime());
}
