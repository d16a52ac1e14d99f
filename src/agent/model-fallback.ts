// Model fallback: one model call goes down a list of models, primary first, when the model it
// asked is unreachable, answers 5xx, is still throttled after its retries, or does not answer
// within LLM_FALLBACK_TIMEOUT. A 4xx (the request itself is wrong) or a broken answer goes back
// to the caller as it is: another model would be asked the same wrong thing.
import { Counter, type Registry } from 'prom-client';
import { LlmError } from './llm.js';

/** Why a call left a model for the next one (the run's attempt log says it). */
export type FallbackReason = 'unreachable' | 'timeout' | 'throttled' | 'upstream_5xx';

export interface FallbackHooks {
  /** Before each model is asked (the first one included). */
  onAsk?: (model: string) => void;
  /** The call left `from` for `to`. */
  onFallback?: (from: string, to: string, reason: FallbackReason) => void;
}

/** The reason to try the next model after this error, or null (the error is the call's). */
export function fallbackReason(err: unknown): FallbackReason | null {
  if (!(err instanceof LlmError)) return null;
  switch (err.kind) {
    case 'unreachable':
    case 'timeout':
    case 'throttled':
      return err.kind;
    case 'upstream':
      return err.status !== undefined && err.status >= 500 ? 'upstream_5xx' : null;
    case 'bad_response':
      return null;
  }
}

/**
 * The models of a job's calls, primary first, without repeats: the job's own list; else its
 * model (or the server's default) followed by the tenant's default list.
 */
export function resolveModels(
  jobModels: readonly string[] | null | undefined,
  jobModel: string | null | undefined,
  tenantDefaults: readonly string[],
  serverDefault: string,
): string[] {
  if (jobModels && jobModels.length > 0) return [...new Set(jobModels)];
  const primary = jobModel ?? tenantDefaults[0] ?? serverDefault;
  return [...new Set([primary, ...tenantDefaults])];
}

/**
 * Runs `attempt` with each model in turn until one answers. Every model but the last is given
 * at most `timeoutMs` (the last one has the caller's own limits). The caller's abort stops the
 * whole call: it is never a reason to fall back. An attempt that calls `commit` (a stream whose
 * first byte went out) is never left for another model, whatever happens next.
 */
export async function callWithFallback<T>(
  models: readonly string[],
  timeoutMs: number,
  signal: AbortSignal,
  attempt: (model: string, signal: AbortSignal, commit: () => void) => Promise<T>,
  hooks: FallbackHooks = {},
): Promise<T> {
  if (models.length === 0) throw new Error('no model to ask');
  for (let i = 0; ; i++) {
    const model = models[i] as string;
    const next = models[i + 1];
    hooks.onAsk?.(model);
    if (next === undefined) return attempt(model, signal, () => {});
    const own = new AbortController();
    const onAbort = () => own.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
    const timer = setTimeout(
      () =>
        own.abort(new LlmError(`${model} did not answer within LLM_FALLBACK_TIMEOUT`, 'timeout')),
      timeoutMs,
    );
    // Once committed (a streamed answer's first byte), the call stays with this model.
    let committed = false;
    const commit = () => {
      committed = true;
      clearTimeout(timer);
    };
    try {
      return await attempt(model, own.signal, commit);
    } catch (err) {
      if (signal.aborted || committed) throw err;
      const reason = own.signal.aborted ? 'timeout' : fallbackReason(err);
      if (reason === null) throw err;
      hooks.onFallback?.(model, next, reason);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
  }
}

/**
 * How long a model with another after it may spend on its own retries (429, 503, a refused
 * connection): the next model is the better retry. Half the fallback timeout, at most 5 s.
 */
export function retryBudgetMs(fallbackTimeoutMs: number): number {
  return Math.min(5000, fallbackTimeoutMs / 2);
}

export interface FallbackMetrics {
  count(from: string, to: string): void;
}

/**
 * hermesx_model_fallbacks_total{from,to}. Labels are names of the configured list only
 * (LLM_MODEL, LLM_MODELS, LLM_MODEL_URLS); any other model counts as `other`, so a tenant
 * cannot grow the series.
 */
export function createFallbackMetrics(
  registry: Registry,
  configured: readonly string[],
): FallbackMetrics {
  const known = new Set(configured);
  const counter = new Counter({
    name: 'hermesx_model_fallbacks_total',
    help: 'Model calls that left a model for the next one of their list (from, to)',
    labelNames: ['from', 'to'],
    registers: [registry],
  });
  const label = (model: string) => (known.has(model) ? model : 'other');
  return { count: (from, to) => counter.inc({ from: label(from), to: label(to) }) };
}
