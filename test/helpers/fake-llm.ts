// A fake OpenAI-compatible model server on loopback, for tests, manual checks and benchmarks.
// Standalone: `node --import tsx test/helpers/fake-llm.ts --port 0 --latency-ms 50 [--agent]
// | [--content-chars N --chunk-chars C]` prints {"url":...} on one line and serves until SIGTERM.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';

export interface FakeToolCall {
  id?: string;
  name: string;
  arguments: string;
}

export interface FakeReply {
  content?: string;
  toolCalls?: FakeToolCall[];
  /** Not 200: an OpenAI-style error body with this status. */
  status?: number;
  /** The error body's message, with `status`. */
  errorMessage?: string;
  /** The error body's `type` and `code`, with `status` (OpenAI's 429: `requests`, `rate_limit_exceeded`). */
  errorType?: string;
  errorCode?: string;
  /** Extra response headers (Retry-After with a 429, say). */
  headers?: Record<string, string>;
  /** Sent as is (status 200, JSON content type): for garbage answers. */
  rawBody?: string;
  /** Extra delay before answering, on top of the server's latency. */
  delayMs?: number;
  /** Never answer (the client disconnecting marks the call aborted). */
  hang?: boolean;
  /** Streamed answers: the pause before each content chunk (shows deltas arrive one by one). */
  chunkDelayMs?: number;
  /** Streamed answers: the size of each content chunk (default: the content in three). */
  chunkChars?: number;
  /** The model the answer names (default: the one asked for), as a server may resolve an alias. */
  model?: string;
  /** The usage the answer reports (default: 10 prompt tokens, content / 4 completion); streamed
   * answers then end with a usage chunk, as `stream_options.include_usage` asks. */
  usage?: { prompt_tokens: number; completion_tokens: number; cached_tokens?: number };
}

export type Handler = (body: unknown, callIndex: number) => FakeReply | Promise<FakeReply>;

export interface RecordedCall {
  /** The parsed JSON request body (undefined if it did not parse). */
  body: unknown;
  receivedAt: number;
  /** The client went away before the answer was complete. */
  aborted: boolean;
  /** When the answer was complete (undefined while pending, aborted or hanging). */
  answeredAt?: number;
}

export interface FakeLlm {
  /** Base URL, ending with /v1. */
  url: string;
  calls: RecordedCall[];
  setHandler(handler: Handler): void;
  setLatency(ms: number): void;
  waitForCalls(n: number, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export const FAKE_MODEL = 'fake-model';

const defaultHandler: Handler = () => ({ content: `ok ${new Date().toISOString()}` });

/**
 * Plays a tool-using model for manual checks (`--agent`): asked by a user with the cronjob tool
 * offered, it creates a job that runs every minute and replies with the current time; given the
 * tool's result, it confirms; in a scheduled run it replies with the occurrence time it was given.
 */
export const cronAgentHandler: Handler = (body) => {
  const request = body as { messages?: { role: string; content?: unknown }[]; tools?: unknown[] };
  const last = request.messages?.at(-1);
  if (request.tools?.length && last?.role === 'user') {
    const create = {
      action: 'create',
      name: 'current time',
      schedule: '* * * * *',
      prompt: 'Reply with the current time',
    };
    return { toolCalls: [{ name: 'cronjob', arguments: JSON.stringify(create) }] };
  }
  if (last?.role === 'tool') return { content: `Done. The tool answered: ${String(last.content)}` };
  const system = String(request.messages?.[0]?.content ?? '');
  const occurrence = /which is (\S+) UTC/.exec(system)?.[1];
  return { content: occurrence ? `The current time is ${occurrence}.` : 'ok' };
};

export async function startFakeLlm(
  /** host: the listen address, loopback unless containers must reach it (a bridge gateway). */
  options: {
    latencyMs?: number;
    handler?: Handler;
    port?: number;
    host?: string;
    /** Called each time an answer was sent whole. */
    onAnswered?: () => void;
  } = {},
): Promise<FakeLlm> {
  let handler = options.handler ?? defaultHandler;
  let latencyMs = options.latencyMs ?? 0;
  const calls: RecordedCall[] = [];
  const waiters = new Set<() => void>();

  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/v1/models') {
      const models = { object: 'list', data: [modelEntry()] };
      return sendJson(res, 200, models);
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      return sendJson(res, 404, errorBody(`no route ${req.method} ${path}`, 'not_found'));
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
      const call: RecordedCall = { body, receivedAt: Date.now(), aborted: false };
      const index = calls.push(call) - 1;
      for (const wake of waiters) wake();
      res.on('close', () => {
        if (!res.writableFinished) call.aborted = true;
      });
      void answer(call, index, res).catch((err: unknown) => {
        if (!res.headersSent) sendJson(res, 500, errorBody(String(err), 'server_error'));
        else res.destroy();
      });
    });
  });

  async function answer(call: RecordedCall, index: number, res: http.ServerResponse) {
    const reply = await handler(call.body, index);
    const waitMs = latencyMs + (reply.delayMs ?? 0);
    if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
    if (reply.hang || call.aborted || res.destroyed) return;
    res.once('finish', () => {
      call.answeredAt = Date.now();
      options.onAnswered?.();
    });
    if (reply.status !== undefined && reply.status !== 200) {
      const message = reply.errorMessage ?? `fake error ${reply.status}`;
      const body = errorBody(message, reply.errorType ?? 'fake_error', reply.errorCode);
      return sendJson(res, reply.status, body, reply.headers);
    }
    if (reply.rawBody !== undefined) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(reply.rawBody);
    }
    const request = (call.body ?? {}) as { model?: unknown; stream?: unknown };
    const model = typeof request.model === 'string' ? request.model : FAKE_MODEL;
    if (request.stream === true) return streamCompletion(res, reply, reply.model ?? model, call);
    sendJson(res, 200, completion(reply, reply.model ?? model));
  }

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://${host}:${port}/v1`,
    calls,
    setHandler: (next) => (handler = next),
    setLatency: (ms) => (latencyMs = ms),
    waitForCalls(n, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (calls.length < n) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`fake LLM: ${calls.length} of ${n} calls after ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function modelEntry() {
  return { id: FAKE_MODEL, object: 'model', created: 1_700_000_000, owned_by: 'hermesx-tests' };
}

function errorBody(message: string, type: string, code = type) {
  return { error: { message, type, param: null, code } };
}

function sendJson(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

function toolCallsOf(reply: FakeReply) {
  return (reply.toolCalls ?? []).map((call, i) => ({
    id: call.id ?? `call_${i}_${Math.random().toString(36).slice(2, 10)}`,
    type: 'function' as const,
    function: { name: call.name, arguments: call.arguments },
  }));
}

function envelope(object: string, model: string) {
  const id = `chatcmpl-${Math.random().toString(36).slice(2, 14)}`;
  return { id, object, created: Math.floor(Date.now() / 1000), model };
}

function completion(reply: FakeReply, model: string) {
  const toolCalls = toolCallsOf(reply);
  const content = reply.content ?? (toolCalls.length > 0 ? null : '');
  const tokens = Math.max(1, Math.ceil((content ?? '').length / 4));
  return {
    ...envelope('chat.completion', model),
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
      },
    ],
    usage: reply.usage
      ? usageOf(reply.usage)
      : { prompt_tokens: 10, completion_tokens: tokens, total_tokens: 10 + tokens },
  };
}

function usageOf(usage: NonNullable<FakeReply['usage']>) {
  return {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
    prompt_tokens_details: { cached_tokens: usage.cached_tokens ?? 0 },
  };
}

async function streamCompletion(
  res: http.ServerResponse,
  reply: FakeReply,
  model: string,
  call: RecordedCall,
): Promise<void> {
  const base = envelope('chat.completion.chunk', model);
  const toolCalls = toolCallsOf(reply);
  const chunk = (delta: object, finish: string | null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  const events: object[] = [chunk({ role: 'assistant', content: '' }, null)];
  const content = reply.content ?? '';
  const size = reply.chunkChars ?? Math.max(1, Math.ceil(content.length / 3));
  for (let i = 0; i < content.length; i += size) {
    events.push(chunk({ content: content.slice(i, i + size) }, null));
  }
  toolCalls.forEach((call, index) => {
    const head = { index, id: call.id, type: 'function', function: { name: call.function.name } };
    events.push(
      chunk({ tool_calls: [{ ...head, function: { ...head.function, arguments: '' } }] }, null),
    );
    events.push(
      chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments } }] }, null),
    );
  });
  events.push(chunk({}, toolCalls.length > 0 ? 'tool_calls' : 'stop'));
  if (reply.usage) events.push({ ...base, choices: [], usage: usageOf(reply.usage) });
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  for (const event of events) {
    const delta = (event as { choices: { delta: { content?: unknown } }[] }).choices[0]?.delta;
    const isContent = typeof delta?.content === 'string' && delta.content !== '';
    if (reply.chunkDelayMs && isContent) {
      await new Promise((resolve) => setTimeout(resolve, reply.chunkDelayMs));
      if (call.aborted || res.destroyed) return;
    }
    res.write(`data: ${JSON.stringify(event)}\n\n`);
  }
  res.end('data: [DONE]\n\n');
}

/** `--content-chars N [--chunk-chars C]`: every answer is N characters, streamed C at a time. */
function longAnswerHandler(args: string[]): Handler {
  const content = 'x'.repeat(Number(argValue(args, '--content-chars')));
  const chunkChars = Number(argValue(args, '--chunk-chars') ?? 0) || undefined;
  return () => ({ content, ...(chunkChars ? { chunkChars } : {}) });
}

function argValue(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const starting = startFakeLlm({
    port: Number(argValue(args, '--port') ?? 0),
    latencyMs: Number(argValue(args, '--latency-ms') ?? 0),
    ...(args.includes('--agent') ? { handler: cronAgentHandler } : {}),
    ...(argValue(args, '--content-chars') ? { handler: longAnswerHandler(args) } : {}),
    // One line per answer sent whole, for a test in another process to wait on.
    ...(args.includes('--print-answers')
      ? { onAnswered: () => process.stdout.write('answered\n') }
      : {}),
  });
  // Handlers first, so a SIGTERM right after the URL line is never the default (exit 143).
  const shutdown = () => void starting.then((fake) => fake.close()).then(() => process.exit(0));
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  process.stdout.write(`${JSON.stringify({ url: (await starting).url })}\n`);
}
