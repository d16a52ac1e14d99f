import OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';

export type { ChatCompletion, ChatCompletionChunk, ChatCompletionMessageParam };

export interface LlmSettings {
  url: string;
  apiKey: string;
  model: string;
}

/** The one place that talks to the OpenAI-compatible model server (Ollama, vLLM, OpenAI). */
export interface Llm {
  readonly model: string;
  complete(
    params: Omit<ChatCompletionCreateParamsNonStreaming, 'model'> & { model?: string },
    signal: AbortSignal,
  ): Promise<ChatCompletion>;
}

export class LlmError extends Error {
  override name = 'LlmError';
  constructor(
    message: string,
    readonly kind: 'unreachable' | 'timeout' | 'bad_response' | 'upstream',
  ) {
    super(message);
  }
}

// A chat request waits at most this long for one model answer; scheduled runs pass their own limit.
const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;

export function createLlm(settings: LlmSettings, options: { requestTimeoutMs?: number } = {}): Llm {
  const client = new OpenAI({
    baseURL: settings.url,
    // Local servers ignore the key, but the client requires one.
    apiKey: settings.apiKey || 'none',
    // No automatic retry: a retried request would ask the model twice for one occurrence.
    maxRetries: 0,
    timeout: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
  });
  return {
    model: settings.model,
    async complete(params, signal) {
      try {
        const completion = await client.chat.completions.create(
          { ...params, model: params.model ?? settings.model, stream: false },
          { signal },
        );
        if (!Array.isArray(completion?.choices) || completion.choices.length === 0) {
          throw new LlmError('the model server answered without choices', 'bad_response');
        }
        return completion;
      } catch (err) {
        throw toLlmError(err, signal);
      }
    },
  };
}

/** The reply text of a completion ("" when the model answered only with tool calls). */
export function replyText(completion: ChatCompletion): string {
  return completion.choices[0]?.message?.content ?? '';
}

function toLlmError(err: unknown, signal: AbortSignal): unknown {
  if (signal.aborted) return signal.reason ?? err;
  if (err instanceof LlmError) return err;
  if (err instanceof OpenAI.APIConnectionTimeoutError) {
    return new LlmError('the model server did not answer in time', 'timeout');
  }
  if (err instanceof OpenAI.APIConnectionError) {
    return new LlmError(`cannot reach the model server: ${err.message}`, 'unreachable');
  }
  if (err instanceof OpenAI.APIError) {
    return new LlmError(
      `the model server answered ${err.status ?? 'an error'}: ${err.message}`,
      'upstream',
    );
  }
  if (err instanceof SyntaxError) {
    return new LlmError('the model server answered with invalid JSON', 'bad_response');
  }
  return err;
}
