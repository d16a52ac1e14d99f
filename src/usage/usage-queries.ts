// Reads of the usage ledger for GET /v1/usage, GET /v1/admin/usage and the budget views. The
// caller's transaction decides whose rows these are (RLS: a tenant's, or every tenant's for the
// admin).
import type { PoolClient } from 'pg';

export const USAGE_DIMENSIONS = ['day', 'job', 'model', 'origin', 'tenant'] as const;
export type UsageDimension = (typeof USAGE_DIMENSIONS)[number];

// Each dimension's SQL expression and its column in the answer.
const EXPRESSION: Record<UsageDimension, { sql: string; column: string }> = {
  day: { sql: `to_char(u.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`, column: 'day' },
  job: { sql: 'u.cron_job_id', column: 'job_id' },
  model: { sql: 'u.model', column: 'model' },
  origin: { sql: 'u.origin', column: 'origin' },
  tenant: { sql: 'u.tenant_id', column: 'tenant_id' },
};

export interface UsageRow {
  day?: string;
  job_id?: string | null;
  job_name?: string | null;
  model?: string;
  origin?: string;
  tenant_id?: string;
  calls: number;
  prompt_tokens: number;
  cached_tokens: number;
  completion_tokens: number;
  /** Micro-dollars of the priced calls. */
  cost_micros: number;
  /** Calls whose model had no price: their cost is unknown, not in cost_micros. */
  unpriced_calls: number;
}

/** Usage between from (inclusive) and to (exclusive), grouped by the dimensions given. */
export async function selectUsage(
  client: PoolClient,
  groupBy: readonly UsageDimension[],
  from: Date,
  to: Date,
  tenantId: string | null,
): Promise<UsageRow[]> {
  const keys = groupBy.map((d) => EXPRESSION[d]);
  const select = keys.map((k) => `${k.sql} AS ${k.column}`);
  const withJob = groupBy.includes('job');
  const { rows } = await client.query<Record<string, unknown>>(
    `SELECT ${[...select, ...(withJob ? ['max(j.name) AS job_name'] : [])].join(', ')}${select.length ? ',' : ''}
            count(*)::integer AS calls,
            coalesce(sum(u.prompt_tokens), 0)::bigint AS prompt_tokens,
            coalesce(sum(u.cached_tokens), 0)::bigint AS cached_tokens,
            coalesce(sum(u.completion_tokens), 0)::bigint AS completion_tokens,
            coalesce(sum(u.cost_micros), 0)::bigint AS cost_micros,
            (count(*) FILTER (WHERE u.cost_micros IS NULL))::integer AS unpriced_calls
       FROM model_usage u
       ${withJob ? 'LEFT JOIN cron_jobs j ON j.id = u.cron_job_id' : ''}
      WHERE u.created_at >= $1 AND u.created_at < $2
        AND ($3::uuid IS NULL OR u.tenant_id = $3)
      ${keys.length ? `GROUP BY ${keys.map((k) => k.sql).join(', ')}` : ''}
      ORDER BY ${keys.length ? keys.map((k) => k.sql).join(', ') : '1'}
      LIMIT 10000`,
    [from, to, tenantId],
  );
  return rows.map((row) => ({
    ...row,
    calls: Number(row.calls),
    prompt_tokens: Number(row.prompt_tokens),
    cached_tokens: Number(row.cached_tokens),
    completion_tokens: Number(row.completion_tokens),
    cost_micros: Number(row.cost_micros),
    unpriced_calls: Number(row.unpriced_calls),
  })) as UsageRow[];
}

/** Spent in a period per the ledger: micro-dollars and tokens (of one job, when given). */
export async function selectSpent(
  client: PoolClient,
  tenantId: string,
  jobId: string | null,
  from: Date,
  to: Date,
): Promise<{ micros: number; tokens: number }> {
  const { rows } = await client.query<{ micros: string; tokens: string }>(
    `SELECT coalesce(sum(cost_micros), 0)::bigint AS micros,
            coalesce(sum(prompt_tokens + completion_tokens), 0)::bigint AS tokens
       FROM model_usage
      WHERE tenant_id = $1 AND created_at >= $2 AND created_at < $3
        AND ($4::uuid IS NULL OR cron_job_id = $4)`,
    [tenantId, from, to, jobId],
  );
  return { micros: Number(rows[0]?.micros ?? 0), tokens: Number(rows[0]?.tokens ?? 0) };
}
