// The model side of a chat turn: each call down the tenant's model list (model-fallback.ts) and,
// streamed, forwarding content as it comes; a streamed call falls back only before its first
// byte, since the client has seen the first model's words after that.
import type { ChatCompletion } from 'openai/resources/chat/completions';
import type { Llm } from './llm.js';
import type { StreamingLlm } from './llm-stream.js';
import type { CompleteStep } from './loop.js';
import { callWithFallback, retryBudgetMs } from './model-fallback.js';
import type { ModelRequestWrapper, RunModelSettings } from './run-model.js';

export interface ChatModelCall {
  models: readonly string[];
  tenantId: string;
  settings: RunModelSettings;
  /** Told of each answer (the route names the model that served it). */
  onAnswer: (completion: ChatCompletion) => void;
  /** Goes around each model's request, a fallback's included (the usage meter). */
  wrap?: ModelRequestWrapper | undefined;
}

/** One non-streamed model call of the turn. */
export function createChatStep(llm: Llm, call: ChatModelCall): CompleteStep {
  const ask = (call.wrap ?? unwrapped)((params, callSignal) =>
    llm.complete(params, callSignal, {
      tenantId: call.tenantId,
      ...retryDeadline(call, params.model),
    }),
  );
  return async (params, signal) => {
    const completion = await callWithFallback(
      call.models,
      call.settings.fallbackTimeoutMs,
      signal,
      (model, callSignal) => ask({ ...params, model }, callSignal),
      { onFallback: (from, to) => call.settings.metrics?.count(from, to) },
    );
    call.onAnswer(completion);
    return completion;
  };
}

/** A model with another after it retries within the shorter budget (the next one is the retry). */
function retryDeadline(call: ChatModelCall, model: string | undefined): { deadlineMs?: number } {
  return model === call.models.at(-1)
    ? {}
    : { deadlineMs: Date.now() + retryBudgetMs(call.settings.fallbackTimeoutMs) };
}

/** One streamed model call: content goes to `onDelta` (unless `hold`: a structured answer). */
export function createChatStreamStep(
  streaming: StreamingLlm,
  call: ChatModelCall,
  onDelta: (text: string, model: string) => void,
): CompleteStep {
  // The attempt under way's commit (a call's attempts, and a turn's calls, come one at a time).
  let commit = () => {};
  const ask = (call.wrap ?? unwrapped)((params, callSignal) =>
    streaming.complete(
      params,
      callSignal,
      (text, served) => {
        commit();
        onDelta(text, served);
      },
      { tenantId: call.tenantId },
    ),
  );
  return async (params, signal) => {
    const completion = await callWithFallback(
      call.models,
      call.settings.fallbackTimeoutMs,
      signal,
      (model, callSignal, commitAttempt) => {
        commit = commitAttempt;
        return ask({ ...params, model }, callSignal);
      },
      { onFallback: (from, to) => call.settings.metrics?.count(from, to) },
    );
    call.onAnswer(completion);
    return completion;
  };
}

const unwrapped: ModelRequestWrapper = (ask) => ask;
