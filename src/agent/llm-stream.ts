import http from 'node:http';
import https from 'node:https';
import type {
  ChatCompletion,
  ChatCompletionMessageToolCall,
} from 'openai/resources/chat/completions';
import { LlmError, openConnection, type Llm, type LlmSettings } from './llm.js';
import { createModelConnections, type ModelConnections } from './model-connections.js';

/** A model call that streams: content deltas go to `onDelta` as the model produces them. */
export interface StreamingLlm {
  complete(
    params: Parameters<Llm['complete']>[0],
    signal: AbortSignal,
    /** `model`: the model the server says is answering (the configured name if it says none). */
    onDelta: (text: string, model: string) => void,
    call?: { tenantId?: string | undefined },
  ): Promise<ChatCompletion>;
}

// How long the model may stay silent (before its first byte, or between two).
const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
const MAX_ERROR_BODY_BYTES = 64 * 1024;

type ToolCall = Extract<ChatCompletionMessageToolCall, { type: 'function' }>;

interface Chunk {
  choices?: {
    delta?: {
      content?: string | null;
      tool_calls?: {
        index?: number;
        id?: string;
        function?: { name?: string; arguments?: string };
      }[];
    };
    finish_reason?: string | null;
  }[];
  usage?: ChatCompletion['usage'];
  model?: unknown;
  error?: { message?: unknown };
}

/** Longer model names are not believed (every chunk we send repeats the name). */
export const MAX_MODEL_NAME_CHARS = 200;

/**
 * `POST /chat/completions` with `stream: true`: server-sent events read as they arrive, content
 * forwarded at once, tool calls assembled from their fragments. The result has the shape of a
 * non-streamed completion, so the agent loop does not care which client it was given. Never
 * retries (a retry would ask the model twice).
 */
export function createStreamingLlm(
  settings: LlmSettings,
  options: { requestTimeoutMs?: number; connections?: ModelConnections } = {},
): StreamingLlm {
  const endpoint = new URL(
    'chat/completions',
    settings.url.endsWith('/') ? settings.url : `${settings.url}/`,
  );
  const transport = endpoint.protocol === 'https:' ? https : http;
  const connections = options.connections ?? createModelConnections(settings.url);
  const agent = connections.agent;
  const timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const headers = {
    'content-type': 'application/json',
    accept: 'text/event-stream',
    ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
  };
  return {
    async complete(params, signal, onDelta, call = {}) {
      // The tenant's turn for a connection, held until the answer ends.
      const release = await openConnection(connections, call.tenantId, signal);
      const body = JSON.stringify({
        ...params,
        model: params.model ?? settings.model,
        stream: true,
        stream_options: { include_usage: true },
      });
      return new Promise<ChatCompletion>((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason);
        const assembly = new Assembly(settings.model, onDelta);
        let settled = false;
        const finish = (err: unknown, value?: ChatCompletion) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          if (err !== undefined) {
            req.destroy();
            reject(err);
          } else resolve(value as ChatCompletion);
        };
        const req = transport.request(endpoint, {
          method: 'POST',
          agent,
          headers: { ...headers, 'content-length': Buffer.byteLength(body) },
        });
        const onAbort = () => finish(signal.reason);
        const timer = setTimeout(
          () => finish(new LlmError('the model server did not answer in time', 'timeout')),
          timeoutMs,
        );
        signal.addEventListener('abort', onAbort, { once: true });
        req.on('error', (err) =>
          finish(new LlmError(`cannot reach the model server: ${err.message}`, 'unreachable')),
        );
        req.on('response', (res) => {
          const status = res.statusCode ?? 0;
          const ok = status >= 200 && status < 300;
          let size = 0;
          let pending = '';
          res.setEncoding('utf8');
          res.on('data', (text: string) => {
            // The limit is on silence: a long answer that keeps streaming is not cut.
            timer.refresh();
            size += Buffer.byteLength(text);
            if (size > (ok ? MAX_RESPONSE_BYTES : MAX_ERROR_BODY_BYTES)) {
              return finish(new LlmError('the model server answered too much', 'bad_response'));
            }
            pending += text;
            if (!ok) return;
            const lines = pending.split('\n');
            pending = lines.pop() ?? '';
            try {
              for (const line of lines) assembly.readLine(line);
            } catch (err) {
              finish(err);
            }
          });
          res.on('end', () => {
            if (!ok) {
              return finish(
                new LlmError(`the model server answered ${status}`, 'upstream', false, status),
              );
            }
            try {
              if (pending) assembly.readLine(pending);
              finish(undefined, assembly.completion());
            } catch (err) {
              finish(err);
            }
          });
          res.on('error', (err) =>
            finish(
              new LlmError(`the model server connection failed: ${err.message}`, 'unreachable'),
            ),
          );
        });
        req.end(body);
      }).finally(release);
    },
  };
}

/** The pieces of one streamed answer, put together. */
class Assembly {
  // Pieces, joined at the end: appending a byte at a time to a string costs a 32-byte node each.
  private readonly pieces: string[] = [];
  private readonly toolCalls: ToolCall[] = [];
  private usage: ChatCompletion['usage'];
  private finishReason: string | null = null;
  private sawEvent = false;
  private served: string | undefined;

  constructor(
    private readonly model: string,
    private readonly onDelta: (text: string, model: string) => void,
  ) {}

  readLine(raw: string): void {
    const line = raw.trimEnd();
    if (!line.startsWith('data:')) return;
    const data = line.slice(5).trim();
    if (data === '' || data === '[DONE]') return;
    let chunk: Chunk;
    try {
      chunk = JSON.parse(data) as Chunk;
    } catch {
      throw new LlmError('the model server streamed invalid JSON', 'bad_response');
    }
    if (chunk.error) throw new LlmError('the model server reported an error', 'upstream');
    this.sawEvent = true;
    if (
      typeof chunk.model === 'string' &&
      chunk.model !== '' &&
      chunk.model.length <= MAX_MODEL_NAME_CHARS
    ) {
      this.served = chunk.model;
    }
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (!choice) return;
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    const delta = choice.delta;
    if (typeof delta?.content === 'string' && delta.content !== '') {
      this.pieces.push(delta.content);
      this.onDelta(delta.content, this.served ?? this.model);
    }
    for (const part of delta?.tool_calls ?? []) {
      const index = part.index ?? this.toolCalls.length;
      // Indexes come from the model server: only the next one may be new.
      if (index < 0 || index > this.toolCalls.length) {
        throw new LlmError('the model server streamed a tool call out of order', 'bad_response');
      }
      const call = (this.toolCalls[index] ??= {
        id: '',
        type: 'function',
        function: { name: '', arguments: '' },
      });
      if (part.id) call.id = part.id;
      if (part.function?.name) call.function.name += part.function.name;
      if (part.function?.arguments) call.function.arguments += part.function.arguments;
    }
  }

  completion(): ChatCompletion {
    if (!this.sawEvent) throw new LlmError('the model server streamed nothing', 'bad_response');
    const calls = this.toolCalls;
    const content = this.pieces.join('');
    return {
      id: 'streamed',
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: this.served ?? this.model,
      choices: [
        {
          index: 0,
          logprobs: null,
          finish_reason: (this.finishReason ??
            (calls.length > 0 ? 'tool_calls' : 'stop')) as 'stop',
          message: {
            role: 'assistant',
            content: calls.length > 0 && content === '' ? null : content,
            refusal: null,
            ...(calls.length > 0 ? { tool_calls: calls } : {}),
          },
        },
      ],
      ...(this.usage ? { usage: this.usage } : {}),
    };
  }
}
