// The model side of a chat turn: each call down the tenant's model list (model-fallback.ts) and,
// streamed, forwarding content as it comes; a streamed call falls back only before its first
// byte, since the client has seen the first model's words after that.
import type { ChatCompletion } from 'openai/resources/chat/completions';
import type { Llm } from './llm.js';
import type { StreamingLlm } from './llm-stream.js';
import type { CompleteStep } from './loop.js';
import { callWithFallback, retryBudgetMs } from './model-fallback.js';
import type { RunModelSettings } from './run-model.js';

export interface ChatModelCall {
  models: readonly string[];
  tenantId: string;
  settings: RunModelSettings;
  /** Told of each answer (the route names the model that served it). */
  onAnswer: (completion: ChatCompletion) => void;
}

/** One non-streamed model call of the turn. */
export function createChatStep(llm: Llm, call: ChatModelCall): CompleteStep {
  return async (params, signal) => {
    const completion = await callWithFallback(
      call.models,
      call.settings.fallbackTimeoutMs,
      signal,
      (model, callSignal) =>
        llm.complete({ ...params, model }, callSignal, {
          tenantId: call.tenantId,
          ...retryDeadline(call, model),
        }),
      { onFallback: (from, to) => call.settings.metrics?.count(from, to) },
    );
    call.onAnswer(completion);
    return completion;
  };
}

/** A model with another after it retries within the shorter budget (the next one is the retry). */
function retryDeadline(call: ChatModelCall, model: string): { deadlineMs?: number } {
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
  return async (params, signal) => {
    const completion = await callWithFallback(
      call.models,
      call.settings.fallbackTimeoutMs,
      signal,
      (model, callSignal, commit) =>
        streaming.complete(
          { ...params, model },
          callSignal,
          (text, served) => {
            commit();
            onDelta(text, served);
          },
          { tenantId: call.tenantId },
        ),
      { onFallback: (from, to) => call.settings.metrics?.count(from, to) },
    );
    call.onAnswer(completion);
    return completion;
  };
}
