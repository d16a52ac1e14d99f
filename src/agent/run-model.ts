// The model side of a scheduled run: each call goes through the scheduler's beforeSend, within
// its deadline, down the run's model list (model-fallback.ts); the run detail learns which model
// each request asked and why a call moved on. Then the answer, in the job's shape when it has an
// output schema (structured-answer.ts).
import type { RunContext } from '../scheduler/ports.js';
import { compileOutputSchema } from '../jobs/output-schema.js';
import type { Llm } from './llm.js';
import { runAgent, type AgentRequest, type CompleteStep } from './loop.js';
import { callWithFallback, retryBudgetMs, type FallbackMetrics } from './model-fallback.js';
import { answerStructured, type JsonSchemaMode } from './structured-answer.js';

export interface RunModelSettings {
  /** LLM_FALLBACK_TIMEOUT. */
  fallbackTimeoutMs: number;
  /** LLM_JSON_SCHEMA. */
  jsonSchema: JsonSchemaMode;
  metrics?: FallbackMetrics | undefined;
}

export const DEFAULT_RUN_MODEL_SETTINGS: RunModelSettings = {
  fallbackTimeoutMs: 60_000,
  jsonSchema: 'auto',
};

/**
 * One model's request of a call (params name the model): what a call down the model list makes
 * once per model it asks. The usage meter wraps it (src/usage/metered-step.ts), so each request
 * is reserved at the price of the model it goes to, a fallback's included.
 */
export type ModelRequestWrapper = (ask: CompleteStep) => CompleteStep;

/** One model call of the run, down its model list; `wrap` goes around each model's request. */
export function createRunStep(
  llm: Llm,
  context: RunContext,
  models: readonly string[],
  tenantId: string,
  settings: RunModelSettings,
  wrap: ModelRequestWrapper = (ask) => ask,
): CompleteStep {
  const ask = wrap(async (params, callSignal) => {
    const last = params.model === models.at(-1);
    const completion = await llm.complete(params, callSignal, {
      tenantId,
      beforeSend: context.beforeSend,
      deadlineMs: last
        ? context.deadlineMs
        : Math.min(context.deadlineMs, Date.now() + retryBudgetMs(settings.fallbackTimeoutMs)),
      onRetry: context.onRetry,
    });
    if (typeof completion.model === 'string' && completion.model !== '') {
      context.report?.({ model: completion.model.slice(0, 200) });
    }
    return completion;
  });
  return (params, signal) =>
    callWithFallback(
      models,
      settings.fallbackTimeoutMs,
      signal,
      (model, callSignal) => ask({ ...params, model }, callSignal),
      {
        onAsk: (model) => context.report?.({ askModel: model }),
        onFallback: (from, to, reason) => {
          context.report?.({ fallback: reason });
          settings.metrics?.count(from, to);
        },
      },
    );
}

export interface RunAnswer {
  content: string;
  output?: unknown;
  usage: { prompt_tokens: number; completion_tokens: number };
}

/**
 * The run's answer: free text, or, for a job with an output schema, the JSON the schema
 * accepts (its text is that JSON, compact). A schema that no longer compiles fails the run.
 */
export async function answerRun(
  step: CompleteStep,
  request: AgentRequest,
  outputSchema: Record<string, unknown> | null,
  jobId: string,
  settings: RunModelSettings,
): Promise<RunAnswer> {
  if (outputSchema === null) return runAgent(step, request);
  const compiled = compileOutputSchema(outputSchema);
  if (!compiled.ok) throw new Error(`the job's output_schema ${compiled.message}`);
  const shape = {
    kind: 'json_schema' as const,
    name: `job_${jobId.replaceAll('-', '_')}`,
    schema: outputSchema,
    validate: compiled.validate,
  };
  const { answer, output } = await answerStructured(step, request, shape, settings.jsonSchema);
  return { content: JSON.stringify(output), output, usage: answer.usage };
}
