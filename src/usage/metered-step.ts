// A model call with its usage counted and its budgets enforced: wraps any CompleteStep, so the
// agent loop and the model client stay as they are. The scheduled run and the chat wrap each
// model's request inside the walk down the model list (run-model.ts, chat-model.ts), so a
// fallback's request is reserved at its own model's price.
// Before the call: the worst case (prompt tokens as sent, estimated from bytes, plus max_tokens)
// is reserved against every budget the call falls under, all or none; no room ⇒ BudgetExhausted
// and no request leaves. After it: the reservation settles to the usage the answer reported,
// the call is priced and kept for the ledger.
import type { Pool } from '../db/pool.js';
import type { UsageCall } from '../domain/run.js';
import type { Logger } from '../log.js';
import type { BudgetStore } from './budget-store.js';
import { periodBudgets, type BudgetLimits, type BudgetName, type PeriodBudget } from './budgets.js';
import { costMicros, estimatePromptTokens, readUsage } from './cost.js';
import { notePricedAnswer } from './priced-answers.js';
import type { PriceBook } from './prices.js';
import type { UsageMetrics } from './usage-metrics.js';

export class BudgetExhausted extends Error {
  override name = 'BudgetExhausted';
  constructor(
    message: string,
    readonly budget: BudgetName,
    /** When the budget's period turns; null for a run's token cap (the next run starts afresh). */
    readonly resetsAt: Date | null,
  ) {
    super(message);
  }
}

export interface BudgetWarning {
  tenantId: string;
  jobId: string;
  budget: PeriodBudget;
}

export interface UsageDeps {
  pool: Pool;
  prices: PriceBook;
  /** Absent (no Redis): period budgets are not enforced; usage is still recorded. */
  budgets?: BudgetStore | undefined;
  limits: (tenantId: string, jobId: string | null) => Promise<BudgetLimits>;
  /** max_tokens given to a call that sets none when a budget applies (it bounds the worst case). */
  reserveMaxTokens: number;
  defaultModel: string;
  now: () => Date;
  metrics?: UsageMetrics | undefined;
  /** A budget passed 80 % in its period (once per budget and period, across pods). */
  onWarning?: ((warning: BudgetWarning) => void) | undefined;
  log?: Logger | undefined;
}

/** What the wrapper reads of a model request (the agent loop's CompleteStep params). */
export interface StepParams {
  messages: unknown;
  tools?: unknown;
  model?: string | undefined;
  max_tokens?: number | null | undefined;
}

/** What it reads of the answer. */
export interface StepAnswer {
  model?: unknown;
  usage?: unknown;
}

export type Step<P extends StepParams, A extends StepAnswer> = (
  params: P,
  signal: AbortSignal,
) => Promise<A>;

export interface MeteredStep<P extends StepParams, A extends StepAnswer> {
  step: Step<P, A>;
  /** Every call answered so far, in order. */
  calls: UsageCall[];
}

export function meterStep<P extends StepParams, A extends StepAnswer>(
  inner: Step<P, A>,
  deps: UsageDeps,
  scope: { tenantId: string; jobId: string | null },
): MeteredStep<P, A> {
  const calls: UsageCall[] = [];
  let runTokens = 0;
  const step: Step<P, A> = async (params, signal) => {
    const limits = await deps.limits(scope.tenantId, scope.jobId);
    const now = deps.now();
    const budgets = deps.budgets
      ? periodBudgets(deps.pool, scope.tenantId, scope.jobId, limits, now)
      : [];
    const model = params.model ?? deps.defaultModel;
    const price = await deps.prices.priceOf(model);
    let asked = params;
    let reserved: number[] = [];
    if (budgets.length > 0 || limits.runTokens !== null) {
      const promptTokens = estimatePromptTokens(
        Buffer.byteLength(JSON.stringify([params.messages, params.tools ?? null]), 'utf8'),
      );
      let maxTokens = params.max_tokens ?? deps.reserveMaxTokens;
      if (limits.runTokens !== null) {
        const room = limits.runTokens - runTokens - promptTokens;
        if (room < 1) {
          throw new BudgetExhausted(
            `the job's max_run_tokens (${limits.runTokens}) has no room for another model call: ${runTokens} tokens used, about ${promptTokens} to send`,
            'job_run_tokens',
            null,
          );
        }
        maxTokens = Math.min(maxTokens, room);
      }
      asked = { ...params, max_tokens: maxTokens };
      const worstTokens = promptTokens + maxTokens;
      // Unknown price: nothing to reserve in money (the budget still refuses once spent).
      const worstMicros =
        costMicros({ promptTokens, cachedTokens: 0, completionTokens: maxTokens }, price) ?? 0;
      reserved = budgets.map((b) => (b.unit === 'tokens' ? worstTokens : worstMicros));
      const full = await (deps.budgets as BudgetStore).reserve(
        budgets.map((b) => b.line),
        reserved,
      );
      if (full !== null) throw exhausted(budgets[full] as PeriodBudget);
    }
    let completion: A;
    try {
      completion = await inner(asked, signal);
    } catch (err) {
      // No answer, no usage reported: the reservation is given back whole.
      await settle(
        budgets,
        reserved,
        budgets.map(() => 0),
      );
      throw err;
    }
    const tokens = readUsage(completion.usage);
    const answered =
      typeof completion.model === 'string' && completion.model !== ''
        ? completion.model.slice(0, 200)
        : model;
    const answeredPrice = answered === model ? price : await deps.prices.priceOf(answered);
    const cost = costMicros(tokens, answeredPrice ?? price);
    const call: UsageCall = { model: answered, ...tokens, costMicros: cost };
    calls.push(call);
    if (typeof completion === 'object' && completion !== null) notePricedAnswer(completion, call);
    runTokens += tokens.promptTokens + tokens.completionTokens;
    deps.metrics?.count(answered, tokens, cost, (answeredPrice ?? price) !== null);
    await settle(
      budgets,
      reserved,
      budgets.map((b) =>
        b.unit === 'tokens' ? tokens.promptTokens + tokens.completionTokens : (cost ?? 0),
      ),
    );
    return completion;
  };

  async function settle(budgets: PeriodBudget[], reserved: number[], actual: number[]) {
    if (budgets.length === 0 || !deps.budgets) return;
    try {
      const warned = await deps.budgets.settle(
        budgets.map((b) => b.line),
        reserved,
        actual,
      );
      for (const i of warned) {
        const budget = budgets[i] as PeriodBudget;
        if (scope.jobId) deps.onWarning?.({ tenantId: scope.tenantId, jobId: scope.jobId, budget });
      }
    } catch (err) {
      // The reservation then stays counted until the period ends: over-counting, never under.
      deps.log?.warn(
        { tenant_id: scope.tenantId, error: err instanceof Error ? err.message : String(err) },
        'cannot settle a budget reservation',
      );
    }
  }

  return { step, calls };
}

function exhausted(budget: PeriodBudget): BudgetExhausted {
  const what =
    budget.name === 'job_daily_micros'
      ? `the job's daily budget (${budget.line.limit} micro-dollars)`
      : budget.unit === 'tokens'
        ? `the tenant's monthly budget (${budget.line.limit} tokens)`
        : `the tenant's monthly budget (${budget.line.limit} micro-dollars)`;
  return new BudgetExhausted(
    `${what} for ${budget.period.label} (UTC) is spent; it resets at ${budget.period.resetsAt.toISOString()}`,
    budget.name,
    budget.period.resetsAt,
  );
}
