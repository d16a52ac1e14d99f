import type { LabelFilter, PagePosition } from './jobs.js';
import { PAGE_KEY_FORMAT } from './jobs.js';
import type { PoolClient } from './pool.js';
import type { RunRow } from './run-history.js';

// The tenant's runs across its jobs (GET /v1/runs), inside withTenant: RLS limits both tables
// to the tenant of the transaction.

export interface RunSearch {
  status: RunRow['status'] | null;
  errorKind: string | null;
  jobId: string | null;
  labels: LabelFilter;
  /** Occurrences at or after `from` and before `to`. */
  from: Date | null;
  to: Date | null;
}

export type FoundRunRow = RunRow & {
  job_name: string;
  labels: Record<string, string>;
  page_key: string;
};

/** Newest occurrence first; `before` is the (scheduled_at, id) of the previous page's last row. */
export async function searchRuns(
  client: PoolClient,
  search: RunSearch,
  limit: number,
  before: PagePosition | null,
): Promise<FoundRunRow[]> {
  const { rows } = await client.query<FoundRunRow>(
    `SELECT r.id, r.cron_job_id, r.scheduled_at, r.started_at, r.finished_at, r.status, r.result,
            r.error, r.error_kind, r.attempts, r.duration_ms, r.pod_id, r.created_at,
            j.name AS job_name, j.labels,
            to_char(r.scheduled_at AT TIME ZONE 'UTC', ${PAGE_KEY_FORMAT}) AS page_key
       FROM cron_job_runs r JOIN cron_jobs j ON j.id = r.cron_job_id
      WHERE ($1::timestamptz IS NULL OR (r.scheduled_at, r.id) < ($1::timestamptz, $2::uuid))
        AND ($4::text IS NULL OR r.status = $4)
        AND ($5::text IS NULL OR r.error_kind = $5)
        AND ($6::uuid IS NULL OR r.cron_job_id = $6)
        AND ($7::timestamptz IS NULL OR r.scheduled_at >= $7)
        AND ($8::timestamptz IS NULL OR r.scheduled_at < $8)
        AND j.labels @> ALL ($9::jsonb[]) AND j.labels ?& $10::text[]
      ORDER BY r.scheduled_at DESC, r.id DESC LIMIT $3`,
    [
      before?.at ?? null,
      before?.id ?? null,
      limit,
      search.status,
      search.errorKind,
      search.jobId,
      search.from,
      search.to,
      search.labels.pairs.map((pair) => JSON.stringify(pair)),
      search.labels.keys,
    ],
  );
  return rows;
}
