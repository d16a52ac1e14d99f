// W5: what the harness reads of cron_job_runs. The optional columns (error_kind, a count of
// attempts) are detected, so the same harness measures the code before and after they exist.
import type pg from 'pg';
import type { ContentionResult, ContentionRun } from './contention-summary.js';

export async function optionalColumns(db: pg.Client): Promise<ContentionResult['columns']> {
  const { rows } = await db.query<{ name: string }>(
    `SELECT column_name AS name FROM information_schema.columns
      WHERE table_name = 'cron_job_runs' AND table_schema = current_schema()`,
  );
  const names = new Set(rows.map((r) => r.name));
  const attempts = ['attempts', 'attempt_count', 'model_attempts'].find((n) => names.has(n));
  return { errorKind: names.has('error_kind'), attempts: attempts ?? null };
}

export async function readRuns(
  db: pg.Client,
  columns: ContentionResult['columns'],
  fromMs: number,
  toMs: number,
): Promise<ContentionRun[]> {
  const kind = columns.errorKind ? 'error_kind' : 'NULL::text';
  const attempts = columns.attempts ? `${columns.attempts}::int` : 'NULL::int';
  const { rows } = await db.query<{
    job: string;
    tenant: string;
    nominal: number;
    started: number;
    finished: number | null;
    status: string;
    error: string | null;
    pod: string;
    kind: string | null;
    attempts: number | null;
  }>(
    `SELECT cron_job_id::text AS job, tenant_id::text AS tenant,
            extract(epoch FROM scheduled_at)::float8 * 1000 AS nominal,
            extract(epoch FROM started_at)::float8 * 1000 AS started,
            extract(epoch FROM finished_at)::float8 * 1000 AS finished,
            status, error, pod_id AS pod, ${kind} AS kind, ${attempts} AS attempts
       FROM cron_job_runs
      WHERE scheduled_at >= to_timestamp($1 / 1000.0) AND scheduled_at < to_timestamp($2 / 1000.0)`,
    [fromMs, toMs],
  );
  return rows.map((r) => ({
    jobId: r.job,
    tenantId: r.tenant,
    nominalMs: Math.round(r.nominal),
    startedMs: r.started,
    finishedMs: r.finished,
    status: r.status,
    error: r.error,
    errorKind: r.kind,
    attempts: r.attempts,
    podId: r.pod,
  }));
}

export async function countFinished(db: pg.Client, fromMs: number, toMs: number) {
  const { rows } = await db.query<{ runs: number; finished: number }>(
    `SELECT count(*)::int AS runs, count(finished_at)::int AS finished FROM cron_job_runs
      WHERE scheduled_at >= to_timestamp($1 / 1000.0) AND scheduled_at < to_timestamp($2 / 1000.0)`,
    [fromMs, toMs],
  );
  return rows[0] ?? { runs: 0, finished: 0 };
}
