import http from 'node:http';
import https from 'node:https';
import { createModelConnections, type ModelConnections } from './model-connections.js';
import { GateQueueFull, type ReleaseSlot } from './model-gate.js';
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

/** Per call: what must happen before each request leaves, and when retrying must stop. */
export interface CallOptions {
  /** Awaited before every request is sent (first try and retries); a rejection sends nothing. */
  beforeSend?: () => Promise<void>;
  /** Date.now() ms after which no retry is planned (default: 5 s from the call). */
  deadlineMs?: number;
  /** Told before a request is sent again, with why (this call's retries only). */
  onRetry?: (cause: RetryCause) => void;
  /** Whose request this is: requests wait for a connection in their tenant's turn. */
  tenantId?: string | undefined;
}

/** The one place that talks to the OpenAI-compatible model server (Ollama, vLLM, OpenAI). */
export interface Llm {
  readonly model: string;
  complete(
    params: Omit<ChatCompletionCreateParamsNonStreaming, 'model'> & { model?: string },
    signal: AbortSignal,
    options?: CallOptions,
  ): Promise<ChatCompletion>;
}

export type LlmErrorKind = 'unreachable' | 'timeout' | 'bad_response' | 'upstream' | 'throttled';

export class LlmError extends Error {
  override name = 'LlmError';
  constructor(
    message: string,
    readonly kind: LlmErrorKind,
    /** True when the request provably never reached the server (safe to send again). */
    readonly notSent = false,
    /** The model server's HTTP status, when it answered one. */
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Why a request was sent again: 429, 503, or a connection that failed before anything was sent. */
export type RetryCause = 'throttled' | 'overloaded' | 'connect';

export interface LlmOptions {
  requestTimeoutMs?: number;
  onRetry?: (cause: RetryCause) => void;
  /** Random in [0, 1), for backoff jitter (tests pin it). */
  random?: () => number;
  /** The process's shared pool to the model server (default: one of this client's own). */
  connections?: ModelConnections;
}

// A chat request waits at most this long for one model answer; scheduled runs pass their own limit.
const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;
// Without a deadline (chat), retries stop after this: a person is waiting.
const DEFAULT_RETRY_BUDGET_MS = 5000;
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
const MAX_ATTEMPTS = 12;
const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 10_000;
// Calls held behind a Retry-After go out spread over this much, not all at the same instant.
const HOLD_SPREAD_MS = 250;

/**
 * A plain HTTP client for `POST /chat/completions` on keep-alive connections. The OpenAI SDK over
 * fetch cost about 40% of a pod's CPU in a burst of scheduled runs (docs/benchmarks.md); one JSON
 * request and answer need none of it.
 *
 * Retries only what the model provably did not process: 429 and 503 (honouring Retry-After, in
 * seconds or as an HTTP date; else capped exponential backoff with full jitter) and a connection
 * that failed before the request was sent. Never another 5xx, a timeout after sending, or a
 * broken answer: the model may have acted on those. A 429 with Retry-After also holds the
 * client's other calls until then, instead of hammering a throttled endpoint.
 */
export function createLlm(settings: LlmSettings, options: LlmOptions = {}): Llm {
  const endpoint = new URL(
    'chat/completions',
    settings.url.endsWith('/') ? settings.url : `${settings.url}/`,
  );
  const transport = endpoint.protocol === 'https:' ? https : http;
  const connections = options.connections ?? createModelConnections(settings.url);
  const agent = connections.agent;
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json',
    ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
  };
  const timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const random = options.random ?? Math.random;
  let heldUntilMs = 0;
  return {
    model: settings.model,
    async complete(params, signal, call = {}) {
      const body = JSON.stringify({
        ...params,
        model: params.model ?? settings.model,
        stream: false,
      });
      const deadlineMs = call.deadlineMs ?? Date.now() + DEFAULT_RETRY_BUDGET_MS;
      const request = { transport, agent, endpoint, headers, body, signal, timeoutMs };
      for (let attempt = 1; ; attempt++) {
        const holdMs = heldUntilMs - Date.now();
        if (holdMs > 0) {
          if (Date.now() + holdMs > deadlineMs) throw throttledError(429);
          await sleep(holdMs + random() * HOLD_SPREAD_MS, signal);
        }
        // The tenant's turn for a connection first, so a request marked sent is on its way.
        const release = await openConnection(connections, call.tenantId, signal);
        const outcome = await (async () => {
          try {
            await call.beforeSend?.();
            return await postOnce(request).then(
              (answer) => ({ answer }),
              (err: unknown) => ({ err }),
            );
          } finally {
            release();
          }
        })();
        let retry: { cause: RetryCause; delayMs: number; final: Error };
        if ('err' in outcome) {
          const err = outcome.err;
          if (!(err instanceof LlmError && err.notSent)) throw err;
          retry = { cause: 'connect', delayMs: backoffMs(attempt, random), final: err };
        } else if (outcome.answer.status === 429 || outcome.answer.status === 503) {
          const { status, retryAfter } = outcome.answer;
          const afterMs = parseRetryAfterMs(retryAfter, Date.now());
          if (status === 429 && afterMs !== undefined) {
            heldUntilMs = Math.max(heldUntilMs, Date.now() + afterMs);
          }
          retry = {
            cause: status === 429 ? 'throttled' : 'overloaded',
            delayMs: afterMs ?? backoffMs(attempt, random),
            final: throttledError(status, outcome.answer.text),
          };
        } else return parseCompletion(outcome.answer);
        if (attempt >= MAX_ATTEMPTS || Date.now() + retry.delayMs > deadlineMs) throw retry.final;
        options.onRetry?.(retry.cause);
        call.onRetry?.(retry.cause);
        await sleep(retry.delayMs, signal);
      }
    },
  };
}

/** The tenant's turn for a connection; a full queue is the pool throttling (nothing was sent). */
export async function openConnection(
  connections: ModelConnections,
  tenantId: string | undefined,
  signal: AbortSignal,
): Promise<ReleaseSlot> {
  try {
    return await connections.open(tenantId, signal);
  } catch (err) {
    if (err instanceof GateQueueFull) {
      throw new LlmError(`model connection pool: ${err.message}`, 'throttled', true);
    }
    throw err;
  }
}

/** Full jitter over a capped exponential: 0 .. min(cap, base * 2^(attempt-1)). */
function backoffMs(attempt: number, random: () => number): number {
  return random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1));
}

/** Retry-After as delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const dateMs = Date.parse(text);
  return Number.isFinite(dateMs) ? Math.max(0, dateMs - nowMs) : undefined;
}

function throttledError(status: number, text?: string): LlmError {
  const detail = text === undefined ? '' : errorDetail(text);
  return new LlmError(`the model server answered ${status}${detail}`, 'throttled', false, status);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

interface Answer {
  status: number;
  text: string;
  retryAfter: string | undefined;
}

/** One request; a kept-alive socket the server had just closed is retried once at once. */
function postOnce(request: PostRequest): Promise<Answer> {
  return post(request).catch((err: unknown) => {
    // The request never reached the server, so sending it again cannot ask the model twice.
    if (err instanceof StaleSocket) return post(request);
    throw err;
  });
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

function post(request: PostRequest): Promise<Answer> {
  const { signal } = request;
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    let settled = false;
    let responded = false;
    let connected = false;
    const finish = (err: unknown, value?: Answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (err !== undefined) reject(err);
      else resolve(value as Answer);
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
    req.on('socket', (socket) => {
      if (req.reusedSocket || !socket.connecting) connected = true;
      else socket.once('connect', () => (connected = true));
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      const stale =
        req.reusedSocket && !responded && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
      finish(
        stale
          ? new StaleSocket()
          : new LlmError(
              `cannot reach the model server: ${err.message}`,
              'unreachable',
              !connected,
            ),
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
          retryAfter: res.headers['retry-after'],
        }),
      );
      res.on('error', (err) =>
        finish(new LlmError(`the model server connection failed: ${err.message}`, 'unreachable')),
      );
    });
    req.end(request.body);
  });
}

/** The model server's own error message, shortened, for the run's error text. */
function errorDetail(text: string): string {
  try {
    const detail = (JSON.parse(text) as { error?: { message?: unknown } } | null)?.error?.message;
    return typeof detail === 'string' ? `: ${detail.slice(0, 300)}` : '';
  } catch {
    return '';
  }
}

function parseCompletion(answer: Answer): ChatCompletion {
  let json: unknown;
  try {
    json = JSON.parse(answer.text);
  } catch {
    if (answer.status < 200 || answer.status >= 300) {
      throw new LlmError(
        `the model server answered ${answer.status}`,
        'upstream',
        false,
        answer.status,
      );
    }
    throw new LlmError('the model server answered with invalid JSON', 'bad_response');
  }
  if (answer.status < 200 || answer.status >= 300) {
    throw new LlmError(
      `the model server answered ${answer.status}${errorDetail(answer.text)}`,
      'upstream',
      false,
      answer.status,
    );
  }
  const choices = (json as { choices?: unknown } | null)?.choices;
  if (!Array.isArray(choices) || choices.length === 0) {
    throw new LlmError('the model server answered without choices', 'bad_response');
  }
  return json as ChatCompletion;
}
