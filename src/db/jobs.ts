import type { OverlapPolicy } from '../domain/vocabulary.js';
import type { DueKey, StoredJob } from '../domain/job.js';
import type { PlanDecider } from '../scheduler/ports.js';
import { CANCELS_CHANNEL } from './listen.js';
import type { QueryResultRow } from 'pg';
import type { Pool, PoolClient } from './pool.js';

interface LoadedRow {
  id: string;
  tenant_id: string;
  schedule: string;
  timezone: string;
  due_from: Date;
  updated_at: Date;
  next_run_at: Date | null;
  ends_at: Date | null;
  jitter_ms: number | null;
  overlap: OverlapPolicy;
}

const toStoredJob = (row: LoadedRow): StoredJob => ({
  id: row.id,
  tenantId: row.tenant_id,
  schedule: row.schedule,
  timezone: row.timezone,
  dueFrom: row.due_from,
  updatedAt: row.updated_at,
  nextRunAt: row.next_run_at,
  // Absent when unset, as in every other JobStore (the fields are optional).
  ...(row.ends_at ? { endsAt: row.ends_at } : {}),
  ...(row.jitter_ms ? { jitterMs: row.jitter_ms } : {}),
  ...(row.overlap && row.overlap !== 'skip' ? { overlap: row.overlap } : {}),
});

/** The named jobs that are enabled jobs of live tenants (scheduler_load_schedules, cross-tenant). */
export async function loadSchedulableJobs(
  pool: Pool,
  ids: readonly string[],
): Promise<StoredJob[]> {
  const { rows } = await pool.query<LoadedRow>('SELECT * FROM scheduler_load_schedules($1)', [ids]);
  return rows.map(toStoredJob);
}

/** One page of the due window, through the next_run_at index (scheduler_due_jobs, cross-tenant). */
export async function loadDueJobs(
  pool: Pool,
  until: Date,
  after: DueKey | null,
  limit: number,
): Promise<StoredJob[]> {
  const { rows } = await pool.query<LoadedRow>('SELECT * FROM scheduler_due_jobs($1, $2, $3, $4)', [
    until,
    after === null ? null : new Date(after.atMs),
    after?.id ?? null,
    limit,
  ]);
  return rows.map(toStoredJob);
}

/** Where a pod's planning sweep goes on from: the key of the last job it took (null: the start). */
export interface PlanKey {
  schedule: string;
  timezone: string;
  id: string;
}
export interface PlanCursor {
  after: PlanKey | null;
}

type TakenRow = LoadedRow & { last_scheduled_at: Date | null };

/**
 * One transaction of the planning sweep: takes up to `limit` enabled jobs without next_run_at
 * (FOR UPDATE SKIP LOCKED, so pods sweep side by side), lets `decide` compute each one's next
 * occurrence with the schedule parser, and writes them (null parks a job at 'infinity' until
 * its definition changes). Returns how many it planned. Without `ids` the sweep reads on from
 * `cursor` in (schedule, timezone, id) order and wraps to the start once at the end, so each
 * batch costs its own rows and brings the jobs that share a schedule together.
 */
export async function planUnplannedJobs(
  pool: Pool,
  ids: readonly string[] | null,
  limit: number,
  since: Date,
  decide: PlanDecider,
  cursor: PlanCursor = { after: null },
): Promise<number> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query('BEGIN');
    const take = async (after: PlanKey | null, n: number) =>
      (
        await client.query<TakenRow>('SELECT * FROM scheduler_plan_take($1, $2, $3, $4, $5, $6)', [
          ids,
          n,
          since,
          after?.schedule ?? null,
          after?.timezone ?? null,
          after?.id ?? null,
        ])
      ).rows;
    const rows = await take(ids ? null : cursor.after, limit);
    if (!ids && rows.length < limit && cursor.after !== null) {
      // The end of the id order: the jobs before the cursor come next (in the same batch; rows
      // this transaction already locked would be taken again, so they are left out).
      const taken = new Set(rows.map((row) => row.id));
      for (const row of await take(null, limit - rows.length))
        if (!taken.has(row.id)) rows.push(row);
    }
    const last = rows.at(-1);
    if (!ids)
      cursor.after = last
        ? { schedule: last.schedule, timezone: last.timezone, id: last.id }
        : null;
    if (rows.length > 0) {
      const jobs = rows.map((row) => ({
        ...toStoredJob(row),
        lastScheduledAt: row.last_scheduled_at,
      }));
      const nexts = decide(jobs);
      await client.query('SELECT scheduler_plan_set($1, $2)', [
        jobs.map((job) => job.id),
        nexts.map((next) => next ?? 'infinity'),
      ]);
    }
    await client.query('COMMIT');
    return rows.length;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw err;
  } finally {
    client.release(broken);
  }
}

export interface AdvanceRequest {
  jobId: string;
  pastAt: Date;
  nextRunAt: Date | null;
}

/** Moves next_run_at past skipped occurrences, for many jobs in one statement. */
export async function advanceJobs(pool: Pool, items: readonly AdvanceRequest[]): Promise<void> {
  await pool.query('SELECT scheduler_advance($1, $2, $3)', [
    items.map((i) => i.jobId),
    items.map((i) => i.pastAt),
    items.map((i) => i.nextRunAt ?? 'infinity'),
  ]);
}

// Tenant-scoped statements: each runs on a client inside withTenant, so RLS limits it to the
// tenant of the transaction.

// The job's columns come from the job field table (src/jobs/fields.ts): `values` by column name,
// `columns` the select list. Both are the table's constants, never a request's text.

const COLUMN_NAME = /^[a-z_]+$/;

function columnsOf(values: Readonly<Record<string, unknown>>): string[] {
  const names = Object.keys(values);
  const bad = names.find((name) => !COLUMN_NAME.test(name));
  if (bad !== undefined) throw new Error(`not a cron_jobs column: ${bad}`);
  return names;
}

export async function insertJob<Row>(
  client: PoolClient,
  tenantId: string,
  values: Readonly<Record<string, unknown>>,
  columns: string,
): Promise<Row> {
  const names = columnsOf(values);
  const { rows } = await client.query<Row & QueryResultRow>(
    `INSERT INTO cron_jobs (tenant_id, ${names.join(', ')})
     VALUES ($1, ${names.map((_, i) => `$${i + 2}`).join(', ')})
     RETURNING ${columns}`,
    [tenantId, ...Object.values(values)],
  );
  return rows[0] as Row;
}

export async function updateJob<Row>(
  client: PoolClient,
  id: string,
  values: Readonly<Record<string, unknown>>,
  columns: string,
): Promise<Row | undefined> {
  const names = columnsOf(values);
  const { rows } = await client.query<Row & QueryResultRow>(
    `UPDATE cron_jobs SET ${names.map((name, i) => `${name} = $${i + 2}`).join(', ')}
     WHERE id = $1 AND deleted_at IS NULL RETURNING ${columns}`,
    [id, ...Object.values(values)],
  );
  return rows[0];
}

/** The job, locked for update when `forUpdate` (so read-modify-write is safe). */
export async function selectJob<Row>(
  client: PoolClient,
  id: string,
  columns: string,
  forUpdate = false,
): Promise<Row | undefined> {
  const { rows } = await client.query<Row & QueryResultRow>(
    `SELECT ${columns} FROM cron_jobs
      WHERE id = $1 AND deleted_at IS NULL${forUpdate ? ' FOR UPDATE' : ''}`,
    [id],
  );
  return rows[0];
}

/**
 * Deletes the job softly (migration 290): it leaves every list and scheduling, its runs stay in
 * the history until retention, and the hourly upkeep purges the row once they are gone. Disabled
 * too, so a reader of enabled jobs that does not know deleted_at still skips it. Returns the runs
 * in flight to stop, or null when there is no such live job.
 */
export async function softDeleteJob(
  client: PoolClient,
  id: string,
): Promise<{ runIds: string[] } | null> {
  const { rowCount } = await client.query(
    `UPDATE cron_jobs SET deleted_at = now(), enabled = false, next_run_at = NULL
      WHERE id = $1 AND deleted_at IS NULL`,
    [id],
  );
  if ((rowCount ?? 0) === 0) return null;
  // Queued attempts (retries, backfill) of the job end here: no pod holds them.
  await client.query(
    `UPDATE cron_job_runs SET status = 'failed', error_kind = 'cancelled',
            error = 'cancelled: the job was deleted', finished_at = now(), not_before = NULL
      WHERE cron_job_id = $1 AND status = 'queued'`,
    [id],
  );
  const { rows } = await client.query<{ id: string }>(
    `SELECT id FROM cron_job_runs WHERE cron_job_id = $1 AND status IN ('claimed', 'running')`,
    [id],
  );
  return { runIds: rows.map((row) => row.id) };
}

/** Live jobs only: a deleted job no longer counts against max_cron_jobs. */
export async function countJobs(client: PoolClient): Promise<number> {
  const { rows } = await client.query<{ count: number }>(
    'SELECT count(*)::integer AS count FROM cron_jobs WHERE deleted_at IS NULL',
  );
  return rows[0]?.count ?? 0;
}

/**
 * Text of a timestamp with all its microseconds (UTC, ISO 8601), for page cursors: a JS Date keeps
 * only milliseconds, and a cursor rounded to them would skip rows within the same millisecond.
 */
export const PAGE_KEY_FORMAT = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;

/** A page cursor's position: the exact sort key (timestamp text, id) of the previous page's last row. */
export interface PagePosition {
  at: string;
  id: string;
}

/** Label filters: every pair present (labels @> pair) and every key present. */
export interface LabelFilter {
  pairs: Record<string, string>[];
  keys: string[];
}

/** Newest first; `before` is the (created_at, id) of the last row of the previous page. */
export async function listJobs<Row>(
  client: PoolClient,
  columns: string,
  limit: number,
  before: PagePosition | null,
  labels: LabelFilter = { pairs: [], keys: [] },
): Promise<(Row & { page_key: string })[]> {
  const { rows } = await client.query<Row & { page_key: string }>(
    `SELECT ${columns},
            to_char(created_at AT TIME ZONE 'UTC', ${PAGE_KEY_FORMAT}) AS page_key
       FROM cron_jobs
     WHERE deleted_at IS NULL
       AND ($1::timestamptz IS NULL OR (created_at, id) < ($1::timestamptz, $2::uuid))
       AND labels @> ALL ($4::jsonb[]) AND labels ?& $5::text[]
     ORDER BY created_at DESC, id DESC LIMIT $3`,
    [
      before?.at ?? null,
      before?.id ?? null,
      limit,
      labels.pairs.map((pair) => JSON.stringify(pair)),
      labels.keys,
    ],
  );
  return rows;
}

/** Asks every pod to run the job once now, as the occurrence at `scheduledAt`. */
export async function notifyTrigger(
  client: PoolClient,
  id: string,
  scheduledAt: Date,
): Promise<void> {
  await client.query("SELECT pg_notify('hermesx_cron_triggers', $1)", [
    `${id}|${scheduledAt.getTime()}`,
  ]);
}

/**
 * Asks every pod to stop the run, heard when the transaction commits (POST /v1/runs/{id}/cancel,
 * and a job's delete for its run in flight): the pod holding it records it cancelled. The request
 * is kept on the run too (cancel_requested_at), for a pod whose listener was down to find it.
 */
export async function notifyCancel(
  client: PoolClient,
  jobId: string,
  runId: string,
): Promise<void> {
  await client.query(
    `UPDATE cron_job_runs SET cancel_requested_at = now()
      WHERE id = $1 AND status IN ('claimed', 'running') AND cancel_requested_at IS NULL`,
    [runId],
  );
  await client.query('SELECT pg_notify($1, $2)', [CANCELS_CHANNEL, `${jobId}|${runId}`]);
}

/**
 * Records a manual trigger unless the previous one is less than `cooldownSeconds` old; returns
 * null when recorded, or when the next trigger is allowed. The job row must be locked.
 */
export async function recordManualTrigger(
  client: PoolClient,
  id: string,
  at: Date,
  cooldownSeconds: number,
): Promise<Date | null> {
  const { rows } = await client.query<{ recorded: boolean; allowed_at: Date | null }>(
    `WITH previous AS (SELECT last_triggered_at FROM cron_jobs WHERE id = $1),
     recorded AS (
       UPDATE cron_jobs SET last_triggered_at = $2::timestamptz
        WHERE id = $1
          AND (last_triggered_at IS NULL
               OR last_triggered_at <= $2::timestamptz - make_interval(secs => $3::double precision))
       RETURNING id)
     SELECT EXISTS (SELECT 1 FROM recorded) AS recorded,
            (SELECT last_triggered_at + make_interval(secs => $3::double precision) FROM previous)
              AS allowed_at`,
    [id, at, cooldownSeconds],
  );
  const row = rows[0];
  return row && !row.recorded ? row.allowed_at : null;
}
