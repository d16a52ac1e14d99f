/**
 * A `fetch` through the outbound guard, for clients that take one (the MCP SDK's Streamable HTTP
 * transport). The same rules as sendOutbound (request.ts): the address policy at connect time
 * (the guarded lookup and the peer check, on the same keep-alive agents), no redirect followed
 * (a 3xx is returned; a client that follows one calls this fetch again, judged again), and
 * bounded time and bytes. The body is streamed, not buffered: an MCP server answers a POST with
 * an event stream, read as it comes.
 *
 *   createGuardedFetch(options) → fetch
 *
 * - Time: `timeoutMs` bounds each exchange, headers and body (the caller's signal also ends it).
 * - Bytes: a body longer than `maxResponseBytes` errors its stream with OutboundError
 *   `too_large`, and `onBodyFailure` is told (a client may otherwise wait for an answer that
 *   will never come); so is a body cut off by the peer (`connect`).
 * - GET is answered 405 here, without a request: a client then opens no long-lived stream (the
 *   MCP transport's optional server-to-client channel), which no bound could cover.
 * - Failures before a response reject with OutboundError (`dns`, `connect`, `timeout`,
 *   `blocked_address`, `aborted`, `invalid_url`).
 */
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { isIpLiteral, judgeAddress, type AddressPolicy } from './address-policy.js';
import { resolveWithSystem, type Resolver } from './guarded-lookup.js';
import { OutboundError } from './outbound-error.js';
import { agentFor, parseOutboundUrl, toOutboundError } from './request.js';

export interface GuardedFetchOptions {
  readonly policy: AddressPolicy;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  readonly resolve?: Resolver;
  /** Told when a response body stops early (too large, cut off by the peer). */
  readonly onBodyFailure?: (error: OutboundError) => void;
}

/** Statuses whose Response may not carry a body. */
const NULL_BODY = new Set([101, 204, 205, 304]);

export function createGuardedFetch(options: GuardedFetchOptions): typeof fetch {
  return async (input, init) => {
    const target =
      typeof input === 'string' || input instanceof URL ? String(input) : (input as Request).url;
    const method = (init?.method ?? 'GET').toUpperCase();
    if (method === 'GET') return new Response(null, { status: 405, statusText: 'Not Offered' });
    const url = parseOutboundUrl(target, { allowHttp: true });
    if (isIpLiteral(url.hostname)) {
      const verdict = judgeAddress(url.hostname, options.policy);
      if (!verdict.allowed) {
        throw new OutboundError('blocked_address', `refused ${url.host}: it is ${verdict.reason}`);
      }
    }
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => (headers[name] = value));
    const body = typeof init?.body === 'string' ? init.body : undefined;
    if (init?.body != null && body === undefined) {
      throw new OutboundError('invalid_url', 'only text request bodies are sent');
    }
    return exchange(url, method, headers, body, init?.signal ?? undefined, options);
  };
}

function exchange(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  callerSignal: AbortSignal | undefined,
  options: GuardedFetchOptions,
): Promise<Response> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = callerSignal ? AbortSignal.any([callerSignal, deadline]) : deadline;
  const isHttps = url.protocol === 'https:';
  const agent = agentFor(options.policy, options.resolve ?? resolveWithSystem, isHttps);
  const requestFn = isHttps ? https.request : http.request;
  const failure = (error: unknown) =>
    toOutboundError(
      error,
      { timeoutMs: options.timeoutMs, ...(callerSignal ? { signal: callerSignal } : {}) },
      deadline,
    );
  return new Promise<Response>((resolve, reject) => {
    let answered = false;
    const outgoing = requestFn(url, { method, headers, agent, signal });
    outgoing.on('socket', (socket: Socket) => {
      if (!socket.connecting) return;
      socket.once('connect', () => {
        const peer = socket.remoteAddress;
        const verdict = peer === undefined ? null : judgeAddress(peer, options.policy);
        if (verdict !== null && !verdict.allowed) {
          outgoing.destroy(
            new OutboundError(
              'blocked_address',
              `refused ${url.host}: it connected to ${verdict.reason}`,
            ),
          );
        }
      });
    });
    outgoing.on('error', (error) => {
      if (!answered) reject(failure(error));
    });
    outgoing.on('response', (incoming) => {
      answered = true;
      const status = incoming.statusCode ?? 0;
      const responseHeaders = new Headers();
      for (const [name, value] of Object.entries(incoming.headers)) {
        if (value === undefined) continue;
        for (const one of Array.isArray(value) ? value : [value]) responseHeaders.append(name, one);
      }
      if (NULL_BODY.has(status)) {
        incoming.resume();
        return resolve(new Response(null, { status, headers: responseHeaders }));
      }
      resolve(
        new Response(streamBody(incoming, options, failure), {
          status,
          statusText: incoming.statusMessage ?? '',
          headers: responseHeaders,
        }),
      );
    });
    outgoing.end(body);
  });
}

/** The body as a web stream, at most maxResponseBytes, erroring when cut. */
function streamBody(
  incoming: http.IncomingMessage,
  options: GuardedFetchOptions,
  failure: (error: unknown) => OutboundError,
): ReadableStream<Uint8Array> {
  let bytes = 0;
  let done = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const stop = (error: OutboundError) => {
        if (done) return;
        done = true;
        controller.error(error);
        incoming.destroy();
        options.onBodyFailure?.(error);
      };
      incoming.on('data', (chunk: Buffer) => {
        if (done) return;
        bytes += chunk.length;
        if (bytes > options.maxResponseBytes) {
          return stop(
            new OutboundError(
              'too_large',
              `the response is larger than ${options.maxResponseBytes} bytes`,
            ),
          );
        }
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length));
      });
      incoming.on('end', () => {
        if (done) return;
        done = true;
        controller.close();
      });
      incoming.on('error', (error) => stop(failure(error)));
      incoming.on('aborted', () => stop(new OutboundError('connect', 'the response was cut off')));
    },
    cancel() {
      done = true;
      incoming.destroy();
    },
  });
}
