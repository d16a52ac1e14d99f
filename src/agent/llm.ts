import http from 'node:http';
import https from 'node:https';
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
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/**
 * A plain HTTP client for `POST /chat/completions` on keep-alive connections. The OpenAI SDK over
 * fetch cost about 40% of a pod's CPU in a burst of scheduled runs (docs/benchmarks.md); one JSON
 * request and answer need none of it. Never retries: a retry would ask the model twice for one
 * occurrence.
 */
export function createLlm(settings: LlmSettings, options: { requestTimeoutMs?: number } = {}): Llm {
  const endpoint = new URL(
    'chat/completions',
    settings.url.endsWith('/') ? settings.url : `${settings.url}/`,
  );
  const transport = endpoint.protocol === 'https:' ? https : http;
  const agent = new transport.Agent({ keepAlive: true, maxSockets: 256 });
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json',
    ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
  };
  const timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  return {
    model: settings.model,
    async complete(params, signal) {
      const body = JSON.stringify({
        ...params,
        model: params.model ?? settings.model,
        stream: false,
      });
      const request = { transport, agent, endpoint, headers, body, signal, timeoutMs };
      const answer = await post(request).catch((err: unknown) => {
        // A kept-alive socket the server had just closed: the request never reached it, so
        // sending it again on a fresh socket cannot ask the model twice.
        if (err instanceof StaleSocket) return post(request);
        throw err;
      });
      return parseCompletion(answer);
    },
  };
}

class StaleSocket extends Error {}

interface PostRequest {
  transport: typeof http | typeof https;
  agent: http.Agent;
  endpoint: URL;
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
  timeoutMs: number;
}

function post(request: PostRequest): Promise<{ status: number; text: string }> {
  const { signal } = request;
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    let settled = false;
    let responded = false;
    const finish = (err: unknown, value?: { status: number; text: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (err !== undefined) reject(err);
      else resolve(value as { status: number; text: string });
    };
    const req = request.transport.request(request.endpoint, {
      method: 'POST',
      agent: request.agent,
      headers: { ...request.headers, 'content-length': Buffer.byteLength(request.body) },
    });
    const onAbort = () => {
      finish(signal.reason);
      req.destroy();
    };
    const timer = setTimeout(() => {
      finish(new LlmError('the model server did not answer in time', 'timeout'));
      req.destroy();
    }, request.timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });
    req.on('error', (err: NodeJS.ErrnoException) => {
      const stale =
        req.reusedSocket && !responded && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
      finish(
        stale
          ? new StaleSocket()
          : new LlmError(`cannot reach the model server: ${err.message}`, 'unreachable'),
      );
    });
    req.on('response', (res) => {
      responded = true;
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_RESPONSE_BYTES) {
          finish(new LlmError('the model server answered too much', 'bad_response'));
          req.destroy();
        } else chunks.push(chunk);
      });
      res.on('end', () =>
        finish(undefined, {
          status: res.statusCode ?? 0,
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', (err) =>
        finish(new LlmError(`the model server connection failed: ${err.message}`, 'unreachable')),
      );
    });
    req.end(request.body);
  });
}

function parseCompletion(answer: { status: number; text: string }): ChatCompletion {
  let json: unknown;
  try {
    json = JSON.parse(answer.text);
  } catch {
    if (answer.status < 200 || answer.status >= 300) {
      throw new LlmError(`the model server answered ${answer.status}`, 'upstream');
    }
    throw new LlmError('the model server answered with invalid JSON', 'bad_response');
  }
  if (answer.status < 200 || answer.status >= 300) {
    const detail = (json as { error?: { message?: unknown } } | null)?.error?.message;
    const suffix = typeof detail === 'string' ? `: ${detail.slice(0, 300)}` : '';
    throw new LlmError(`the model server answered ${answer.status}${suffix}`, 'upstream');
  }
  const choices = (json as { choices?: unknown } | null)?.choices;
  if (!Array.isArray(choices) || choices.length === 0) {
    throw new LlmError('the model server answered without choices', 'bad_response');
  }
  return json as ChatCompletion;
}
