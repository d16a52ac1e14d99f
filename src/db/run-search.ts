import type { LabelFilter, PagePosition } from './jobs.js';
import { PAGE_KEY_FORMAT } from './jobs.js';
import type { PoolClient } from './pool.js';
import { RUN_LIST_COLUMNS, type RunRow } from './run-history.js';

// The tenant's runs across its jobs (GET /v1/runs), inside withTenant: RLS limits both tables
// to the tenant of the transaction.

export interface RunSearch {
  status: RunRow['status'] | null;
  errorKind: string | null;
  origin: RunRow['origin'] | null;
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
  const labelled = search.labels.pairs.length > 0 || search.labels.keys.length > 0;
  const { rows } = await client.query<FoundRunRow>(
    `SELECT r.*, j.name AS job_name, j.labels
       FROM (SELECT ${RUN_LIST_COLUMNS},
                    to_char(scheduled_at AT TIME ZONE 'UTC', ${PAGE_KEY_FORMAT}) AS page_key
               FROM cron_job_runs
              WHERE ($1::timestamptz IS NULL OR (scheduled_at, id) < ($1::timestamptz, $2::uuid))
                AND ($4::text IS NULL OR status = $4)
                AND ($5::text IS NULL OR error_kind = $5)
                AND ($6::text IS NULL OR origin = $6)
                AND ($7::uuid IS NULL OR cron_job_id = $7)
                AND ($8::timestamptz IS NULL OR scheduled_at >= $8)
                AND ($9::timestamptz IS NULL OR scheduled_at < $9)
                AND (NOT $12::boolean OR cron_job_id IN (
                       SELECT id FROM cron_jobs
                        WHERE labels @> ALL ($10::jsonb[]) AND labels ?& $11::text[]))
              ORDER BY scheduled_at DESC, id DESC LIMIT $3) r
       JOIN cron_jobs j ON j.id = r.cron_job_id
      ORDER BY r.scheduled_at DESC, r.id DESC`,
    [
      before?.at ?? null,
      before?.id ?? null,
      limit,
      search.status,
      search.errorKind,
      search.origin,
      search.jobId,
      search.from,
      search.to,
      search.labels.pairs.map((pair) => JSON.stringify(pair)),
      search.labels.keys,
      labelled,
    ],
  );
  return rows;
}
