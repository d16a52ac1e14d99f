// Which budgets a model call falls under, and their Redis lines (budget-store.ts): the tenant's
// per UTC calendar month (micro-dollars and/or tokens, set by the admin) and the job's per UTC
// day (micro-dollars, set by the tenant). The job's tokens per run are counted by the run itself
// (metered-step.ts): one run runs on one pod.
import { withTenant, type Pool } from '../db/pool.js';
import type { BudgetLine } from './budget-store.js';
import { periodOf, type Period, type PeriodKind } from './periods.js';

export interface BudgetLimits {
  monthlyMicros: number | null;
  monthlyTokens: number | null;
  jobDailyMicros: number | null;
  runTokens: number | null;
}

export const NO_BUDGETS: BudgetLimits = {
  monthlyMicros: null,
  monthlyTokens: null,
  jobDailyMicros: null,
  runTokens: null,
};

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
        seed: () => ledgerSum(pool, tenantId, job, unit, period),
      },
    });
  };
  add('tenant_monthly_micros', 'micros', 'month', limits.monthlyMicros);
  add('tenant_monthly_tokens', 'tokens', 'month', limits.monthlyTokens);
  if (jobId) add('job_daily_micros', 'micros', 'day', limits.jobDailyMicros);
  return out;
}

/** What the ledger holds for a budget's period (seeds a counter Redis does not have). */
export async function ledgerSum(
  pool: Pool,
  tenantId: string,
  jobId: string | null,
  unit: BudgetUnit,
  period: Period,
): Promise<number> {
  const measure =
    unit === 'micros' ? 'coalesce(cost_micros, 0)' : 'prompt_tokens + completion_tokens';
  const { rows } = await withTenant(pool, tenantId, (client) =>
    client.query<{ sum: string }>(
      `SELECT coalesce(sum(${measure}), 0)::bigint AS sum FROM model_usage
        WHERE tenant_id = $1 AND created_at >= $2 AND created_at < $3
          AND ($4::uuid IS NULL OR cron_job_id = $4)`,
      [tenantId, period.startsAt, period.resetsAt, jobId],
    ),
  );
  return Number(rows[0]?.sum ?? 0);
}

/** The limits in force, read at most every `ttlMs` per tenant and job (a raise applies then). */
export function createBudgetLimits(pool: Pool, ttlMs = 5000, nowMs: () => number = Date.now) {
  const cache = new Map<string, { atMs: number; limits: BudgetLimits }>();
  return async (tenantId: string, jobId: string | null): Promise<BudgetLimits> => {
    const key = `${tenantId}/${jobId ?? ''}`;
    const hit = cache.get(key);
    if (hit && nowMs() - hit.atMs < ttlMs) return hit.limits;
    const limits = await withTenant(pool, tenantId, async (client) => {
      const { rows } = await client.query<{
        monthly_budget_micros: string | null;
        monthly_budget_tokens: string | null;
        daily_budget_micros: string | null;
        max_run_tokens: number | null;
      }>(
        `SELECT t.monthly_budget_micros, t.monthly_budget_tokens, j.daily_budget_micros,
                j.max_run_tokens
           FROM tenants t LEFT JOIN cron_jobs j ON j.id = $2 AND j.tenant_id = t.id
          WHERE t.id = $1`,
        [tenantId, jobId],
      );
      const row = rows[0];
      if (!row) return NO_BUDGETS;
      const num = (v: string | number | null) => (v === null ? null : Number(v));
      return {
        monthlyMicros: num(row.monthly_budget_micros),
        monthlyTokens: num(row.monthly_budget_tokens),
        jobDailyMicros: num(row.daily_budget_micros),
        runTokens: row.max_run_tokens,
      };
    });
    // Bounded: a pod serving many tenants forgets them all rather than grow.
    if (cache.size >= 10_000) cache.clear();
    cache.set(key, { atMs: nowMs(), limits });
    return limits;
  };
}
