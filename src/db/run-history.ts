import type { ErrorKind } from '../scheduler/ports.js';
import { PAGE_KEY_FORMAT, type PagePosition } from './jobs.js';
import type { PoolClient } from './pool.js';

// Tenant-scoped reads of cron_job_runs (inside withTenant; RLS limits them to the tenant).

export interface RunRow {
  id: string;
  cron_job_id: string;
  scheduled_at: Date;
  started_at: Date;
  finished_at: Date | null;
  status: 'claimed' | 'running' | 'success' | 'failed';
  result: string | null;
  error: string | null;
  error_kind: ErrorKind | null;
  attempts: number;
  duration_ms: number | null;
  pod_id: string;
  created_at: Date;
}

/**
 * A job's runs, newest occurrence first, of one status when given; `before` is the last row of
 * the previous page.
 */
export async function listRunsOfJob(
  client: PoolClient,
  jobId: string,
  limit: number,
  before: PagePosition | null,
  status: RunRow['status'] | null = null,
): Promise<(RunRow & { page_key: string })[]> {
  const { rows } = await client.query<RunRow & { page_key: string }>(
    `SELECT id, cron_job_id, scheduled_at, started_at, finished_at, status, result, error,
            error_kind, attempts, duration_ms, pod_id, created_at,
            to_char(scheduled_at AT TIME ZONE 'UTC', ${PAGE_KEY_FORMAT}) AS page_key
       FROM cron_job_runs
      WHERE cron_job_id = $1
        AND ($2::timestamptz IS NULL OR (scheduled_at, id) < ($2::timestamptz, $3::uuid))
        AND ($5::text IS NULL OR status = $5)
      ORDER BY scheduled_at DESC, id DESC LIMIT $4`,
    [jobId, before?.at ?? null, before?.id ?? null, limit, status],
  );
  return rows;
}
