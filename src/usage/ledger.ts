// The usage ledger's writes outside a run (chat turns; runs write theirs in scheduler_finish)
// and the sends of budget warnings.
import { withTenant, type Pool } from '../db/pool.js';
import type { UsageCall } from '../domain/run.js';
import type { Logger } from '../log.js';
import type { BudgetWarning } from './metered-step.js';

/** A chat turn's calls, one row each, in one statement. */
export async function recordChatUsage(
  pool: Pool,
  tenantId: string,
  calls: readonly UsageCall[],
): Promise<void> {
  if (calls.length === 0) return;
  await withTenant(pool, tenantId, (client) =>
    client.query(
      `INSERT INTO model_usage (tenant_id, origin, model, prompt_tokens, cached_tokens,
                                completion_tokens, cost_micros)
       SELECT $1, 'chat', m, p, c, o, x
         FROM unnest($2::text[], $3::integer[], $4::integer[], $5::integer[], $6::bigint[])
              AS u (m, p, c, o, x)`,
      [
        tenantId,
        calls.map((call) => call.model),
        calls.map((call) => call.promptTokens),
        calls.map((call) => call.cachedTokens),
        calls.map((call) => call.completionTokens),
        calls.map((call) => call.costMicros),
      ],
    ),
  );
}

/** Queues the budget.warning webhook deliveries of a budget that passed 80 % (once per period). */
export function sendBudgetWarning(pool: Pool, log: Logger | undefined) {
  return (warning: BudgetWarning): void => {
    const { budget } = warning;
    const payload = {
      tenant_id: warning.tenantId,
      job_id: warning.jobId,
      budget: budget.name,
      unit: budget.unit,
      limit: budget.line.limit,
      threshold_percent: 80,
      period: budget.period.label,
      period_start: budget.period.startsAt.toISOString(),
      resets_at: budget.period.resetsAt.toISOString(),
    };
    pool
      .query('SELECT webhook_enqueue_budget_warning($1, $2, $3)', [
        warning.tenantId,
        warning.jobId,
        JSON.stringify(payload),
      ])
      .then(() =>
        log?.info(
          { tenant_id: warning.tenantId, job_id: warning.jobId, budget: budget.name },
          'budget warning',
        ),
      )
      .catch((err: unknown) =>
        log?.error(
          { tenant_id: warning.tenantId, budget: budget.name, error: String(err) },
          'cannot queue a budget warning',
        ),
      );
  };
}
