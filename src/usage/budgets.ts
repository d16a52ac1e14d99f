// Which budgets a model call falls under, and their Redis lines (budget-store.ts): the tenant's
// per UTC calendar month (micro-dollars and/or tokens, set by the admin) and the job's per UTC
// day (micro-dollars, set by the tenant). The job's tokens per run are counted by the run itself
// (metered-step.ts): one run runs on one pod.
import { withTenant, type Pool } from '../db/pool.js';
import type { BudgetLine } from './budget-store.js';
import { periodOf, type Period, type PeriodKind } from './periods.js';
import type { BudgetLimits } from '../domain/run.js';

export type { BudgetLimits };

export type BudgetName =
  'tenant_monthly_micros' | 'tenant_monthly_tokens' | 'job_daily_micros' | 'job_run_tokens';

export type BudgetUnit = 'micros' | 'tokens';

export interface PeriodBudget {
  name: BudgetName;
  unit: BudgetUnit;
  period: Period;
  line: BudgetLine;
}

/** Seconds a counter outlives its period: a call settled just after midnight still finds it. */
const COUNTER_GRACE_SECONDS = 86_400;

export function budgetKey(tenantId: string, scope: string, period: Period, unit: BudgetUnit) {
  return `hermesx:budget:{${tenantId}}:${scope}:${period.label}:${unit}`;
}

/** The period budgets of a call of this tenant (and job), at `now`. */
export function periodBudgets(
  pool: Pool,
  tenantId: string,
  jobId: string | null,
  limits: BudgetLimits,
  now: Date,
): PeriodBudget[] {
  const out: PeriodBudget[] = [];
  const add = (name: BudgetName, unit: BudgetUnit, kind: PeriodKind, limit: number | null) => {
    if (limit === null) return;
    const period = periodOf(kind, now);
    const job = kind === 'day' ? jobId : null;
    const scope = job ? `job:${job}:day` : 'month';
    const ttlSeconds =
      Math.ceil((period.resetsAt.getTime() - now.getTime()) / 1000) + COUNTER_GRACE_SECONDS;
    out.push({
      name,
      unit,
      period,
      line: {
        key: budgetKey(tenantId, scope, period, unit),
        limit,
        ttlSeconds,
        seed: () =>
          job
            ? jobDaySum(pool, tenantId, job, unit, period)
            : shared(pool, `month:${tenantId}:${period.label}:${unit}`, () =>
                readTenantSum(pool, tenantId, unit, period),
              ),
      },
    });
  };
  add('tenant_monthly_micros', 'micros', 'month', limits.monthlyMicros);
  add('tenant_monthly_tokens', 'tokens', 'month', limits.monthlyTokens);
  if (jobId) add('job_daily_micros', 'micros', 'day', limits.jobDailyMicros);
  return out;
}

/** What a budget of each unit counts in a ledger row. */
const MEASURE: Record<BudgetUnit, string> = {
  micros: 'coalesce(cost_micros, 0)',
  tokens: 'prompt_tokens + completion_tokens',
};

/** What the ledger holds for the tenant's budget in the period (seeds its missing counter). */
async function readTenantSum(
  pool: Pool,
  tenantId: string,
  unit: BudgetUnit,
  period: Period,
): Promise<number> {
  const { rows } = await withTenant(pool, tenantId, (client) =>
    client.query<{ sum: string }>(
      `SELECT coalesce(sum(${MEASURE[unit]}), 0)::bigint AS sum FROM model_usage
        WHERE tenant_id = $1 AND created_at >= $2 AND created_at < $3`,
      [tenantId, period.startsAt, period.resetsAt],
    ),
  );
  return Number(rows[0]?.sum ?? 0);
}

/**
 * Reads of the ledger under way, shared: the first calls of a period (a burst of a tenant's runs)
 * each miss their counter and would each read the ledger; they share one read while it is under
 * way instead (for a job's day, one grouped read for all the tenant's jobs). Nothing is kept
 * after it: a later miss reads the ledger again, as a single seed would.
 */
const readsUnderWay = new WeakMap<Pool, Map<string, Promise<unknown>>>();

function shared<T>(pool: Pool, key: string, read: () => Promise<T>): Promise<T> {
  let reads = readsUnderWay.get(pool);
  if (!reads) readsUnderWay.set(pool, (reads = new Map()));
  const held = reads.get(key) as Promise<T> | undefined;
  if (held) return held;
  const pending = read();
  reads.set(key, pending);
  const done = () => reads.delete(key);
  pending.then(done, done);
  return pending;
}

async function jobDaySum(
  pool: Pool,
  tenantId: string,
  jobId: string,
  unit: BudgetUnit,
  period: Period,
): Promise<number> {
  const key = `day:${tenantId}:${period.label}:${unit}`;
  const sums = await shared(pool, key, () => readDaySums(pool, tenantId, unit, period));
  return sums.get(jobId) ?? 0;
}

async function readDaySums(
  pool: Pool,
  tenantId: string,
  unit: BudgetUnit,
  period: Period,
): Promise<Map<string, number>> {
  const { rows } = await withTenant(pool, tenantId, (client) =>
    client.query<{ cron_job_id: string; sum: string }>(
      `SELECT cron_job_id, coalesce(sum(${MEASURE[unit]}), 0)::bigint AS sum FROM model_usage
        WHERE tenant_id = $1 AND created_at >= $2 AND created_at < $3
          AND cron_job_id IS NOT NULL
        GROUP BY cron_job_id`,
      [tenantId, period.startsAt, period.resetsAt],
    ),
  );
  return new Map(rows.map((row) => [row.cron_job_id, Number(row.sum)]));
}

/** A tenant's budgets and those of its jobs that have one, as read together. */
interface TenantBudgets {
  monthlyMicros: number | null;
  monthlyTokens: number | null;
  jobs: Map<string, { dailyMicros: number | null; runTokens: number | null }>;
}

/**
 * The limits in force. One read per tenant at most every `ttlMs` (a raise applies then), shared
 * by every run and chat turn of the tenant on this pod, with its jobs' budgets in it (a partial
 * index holds only the jobs that have one), so a burst of runs costs no read per run.
 */
export function createBudgetLimits(pool: Pool, ttlMs = 5000, nowMs: () => number = Date.now) {
  const cache = new Map<string, { atMs: number; budgets: Promise<TenantBudgets> }>();
  const read = (tenantId: string) =>
    withTenant(pool, tenantId, async (client): Promise<TenantBudgets> => {
      const { rows } = await client.query<{
        monthly_budget_micros: string | null;
        monthly_budget_tokens: string | null;
        jobs: Record<string, [number | null, number | null]>;
      }>(
        `SELECT t.monthly_budget_micros, t.monthly_budget_tokens,
                coalesce((SELECT jsonb_object_agg(j.id, jsonb_build_array(j.daily_budget_micros,
                                                                          j.max_run_tokens))
                            FROM cron_jobs j
                           WHERE j.tenant_id = t.id AND j.deleted_at IS NULL
                             AND (j.daily_budget_micros IS NOT NULL OR j.max_run_tokens IS NOT NULL)),
                         '{}') AS jobs
           FROM tenants t WHERE t.id = $1`,
        [tenantId],
      );
      const row = rows[0];
      const num = (v: string | number | null) => (v === null ? null : Number(v));
      return {
        monthlyMicros: num(row?.monthly_budget_micros ?? null),
        monthlyTokens: num(row?.monthly_budget_tokens ?? null),
        jobs: new Map(
          Object.entries(row?.jobs ?? {}).map(([id, [daily, run]]) => [
            id,
            { dailyMicros: num(daily), runTokens: run },
          ]),
        ),
      };
    });
  return async (tenantId: string, jobId: string | null): Promise<BudgetLimits> => {
    let hit = cache.get(tenantId);
    if (!hit || nowMs() - hit.atMs >= ttlMs) {
      // Bounded: a pod serving many tenants forgets them all rather than grow.
      if (cache.size >= 10_000) cache.clear();
      hit = { atMs: nowMs(), budgets: read(tenantId) };
      cache.set(tenantId, hit);
      // A failed read is not kept: the next call reads again.
      hit.budgets.catch(() => cache.delete(tenantId));
    }
    const budgets = await hit.budgets;
    const job = jobId ? budgets.jobs.get(jobId) : undefined;
    return {
      monthlyMicros: budgets.monthlyMicros,
      monthlyTokens: budgets.monthlyTokens,
      jobDailyMicros: job?.dailyMicros ?? null,
      runTokens: job?.runTokens ?? null,
    };
  };
}
