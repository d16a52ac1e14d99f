import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { LlmError, type Llm, type LlmErrorKind } from './llm.js';
import type { FairGate } from './model-gate.js';

/** Who calls the model: the chat route or a scheduled run. */
export type ModelCaller = 'chat' | 'scheduler';

export interface ModelMetrics {
  duration: Histogram<'caller'>;
  calls: Counter<'caller' | 'outcome'>;
  promptTokens: Counter<'caller'>;
  completionTokens: Counter<'caller'>;
}

const CALLERS: ModelCaller[] = ['chat', 'scheduler'];
// LlmError kinds, plus ok, aborted (the caller gave up) and error (anything else). New kinds
// still count, under their own name; these start at 0 so rate() and alerts see them at once.
const OUTCOMES: string[] = [
  'ok',
  ...(['timeout', 'unreachable', 'bad_response', 'upstream', 'throttled'] satisfies LlmErrorKind[]),
  'aborted',
  'error',
];

/** The model-call metrics, registered once per registry. */
export function createModelMetrics(registry: Registry): ModelMetrics {
  const registers = [registry];
  const metrics: ModelMetrics = {
    duration: new Histogram({
      name: 'hermesx_model_call_duration_seconds',
      help: 'Time of one model call (POST /chat/completions), whatever its outcome',
      labelNames: ['caller'],
      buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300],
      registers,
    }),
    calls: new Counter({
      name: 'hermesx_model_calls_total',
      help: 'Model calls by caller and outcome (ok or the error kind)',
      labelNames: ['caller', 'outcome'],
      registers,
    }),
    promptTokens: new Counter({
      name: 'hermesx_model_prompt_tokens_total',
      help: 'Prompt (input) tokens, as the model server reports them in usage',
      labelNames: ['caller'],
      registers,
    }),
    completionTokens: new Counter({
      name: 'hermesx_model_completion_tokens_total',
      help: 'Completion (output) tokens, as the model server reports them in usage',
      labelNames: ['caller'],
      registers,
    }),
  };
  for (const caller of CALLERS) {
    metrics.duration.zero({ caller });
    metrics.promptTokens.inc({ caller }, 0);
    metrics.completionTokens.inc({ caller }, 0);
    for (const outcome of OUTCOMES) metrics.calls.inc({ caller, outcome }, 0);
  }
  return metrics;
}

/** The same model client, timing and counting every call and the tokens it reports. */
export function instrumentLlm(llm: Llm, metrics: ModelMetrics, caller: ModelCaller): Llm {
  return {
    ...llm,
    model: llm.model,
    // Every argument passes through as given (the client's per-call options included).
    async complete(...args: Parameters<Llm['complete']>) {
      const signal = args[1];
      const stop = metrics.duration.startTimer({ caller });
      try {
        const completion = await llm.complete(...args);
        metrics.calls.inc({ caller, outcome: 'ok' });
        const usage = completion.usage;
        if (usage) {
          metrics.promptTokens.inc({ caller }, nonNegative(usage.prompt_tokens));
          metrics.completionTokens.inc({ caller }, nonNegative(usage.completion_tokens));
        }
        return completion;
      } catch (err) {
        metrics.calls.inc({ caller, outcome: outcomeOf(err, signal) });
        throw err;
      } finally {
        stop();
      }
    },
  };
}

function outcomeOf(err: unknown, signal: AbortSignal): string {
  if (signal.aborted) return 'aborted';
  if (err instanceof LlmError) return err.kind;
  return 'error';
}

function nonNegative(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/** The model connection pool's state, read at each scrape (no per-tenant label: unbounded). */
export function registerModelPoolGauges(registry: Registry, gate: FairGate): void {
  const registers = [registry];
  new Gauge({
    name: 'hermesx_model_connections_in_use',
    help: "Model requests holding a connection of this replica's pool (LLM_MAX_CONNECTIONS)",
    registers,
    collect() {
      this.set(gate.snapshot().active);
    },
  });
  new Gauge({
    name: 'hermesx_model_requests_waiting',
    help: "Model requests waiting for a connection in their tenant's queue",
    registers,
    collect() {
      const { queued } = gate.snapshot();
      this.set(Object.values(queued).reduce((sum, n) => sum + n, 0));
    },
  });
}
