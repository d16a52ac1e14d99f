/**
 * The outbound HTTP guard: the one way HermesX sends a request to an address a tenant chose
 * (webhook deliveries, the agent's `http_request` tool).
 *
 * Interface:
 *   sendOutbound(request: OutboundRequest): Promise<OutboundResponse>   // rejects with OutboundError
 *   parseOutboundUrl(text, { allowHttp }): URL                          // throws OutboundError('invalid_url')
 *   judgeAddress(ip, policy) / isIpLiteral(host)                        // from ./address-policy.js
 *
 * What it guarantees:
 * - Address policy at connect time: the host name is resolved by a custom `lookup` on the
 *   request's agent, and every resolved address must be globally routable unicast (loopback,
 *   private, link-local incl. 169.254.169.254, CGNAT, multicast, unspecified, reserved, IPv6
 *   unique-local, IPv4-mapped forms of those are refused) unless `policy.allowPrivateNetworks`
 *   is true or the address is in `policy.allowedCidrs`. IP literals are judged before connecting
 *   and the connected socket's peer address is judged again. No DNS rebinding window.
 * - Redirects: none followed by default (a 3xx is returned as the response). With a
 *   `redirect` rule, up to `maxRedirects` are followed when `allow(target, from)` says so; each
 *   hop passes the same address policy; refusal rejects with `redirect_refused`.
 * - Time: `timeoutMs` bounds the whole exchange (DNS, connect, TLS, headers, body, redirects).
 * - Bytes: at most `maxResponseBytes` of the body are read; the rest is dropped and
 *   `truncated` is true (the connection is closed, the response still counts).
 */
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { isIpLiteral, judgeAddress, type AddressPolicy } from './address-policy.js';
import { createGuardedLookup, resolveWithSystem, type Resolver } from './guarded-lookup.js';
import { OutboundError } from './outbound-error.js';

export { OutboundError, type OutboundErrorKind } from './outbound-error.js';
export type { AddressPolicy } from './address-policy.js';
export { resolveWithSystem, type Resolver, type ResolvedAddress } from './guarded-lookup.js';

export interface RedirectRule {
  readonly maxRedirects: number;
  /** Whether to follow a redirect to `target` (e.g. its host is on an allow-list). */
  allow(target: URL, from: URL): boolean;
}

export interface OutboundRequest {
  readonly url: string | URL;
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
  readonly policy: AddressPolicy;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  readonly signal?: AbortSignal;
  /** Absent: no redirect is followed. */
  readonly redirect?: RedirectRule;
  /** Name resolution (default: the system resolver); the address policy applies to its answer. */
  readonly resolve?: Resolver;
}

export interface OutboundResponse {
  readonly status: number;
  /** Lower-case names, as Node gives them. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
  readonly truncated: boolean;
  /** The URL that answered (after any redirect followed). */
  readonly url: string;
  readonly durationMs: number;
}

/** Parses an absolute http(s) URL; http only when `allowHttp`; no user:password part. */
export function parseOutboundUrl(text: string, options: { allowHttp: boolean }): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new OutboundError(
      'invalid_url',
      'expected an absolute URL such as https://example.com/hook',
    );
  }
  const allowed = options.allowHttp ? ['https:', 'http:'] : ['https:'];
  if (!allowed.includes(url.protocol)) {
    throw new OutboundError(
      'invalid_url',
      `expected ${allowed.join(' or ')} URL, got ${url.protocol}`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new OutboundError('invalid_url', 'a URL must not carry a user name or password');
  }
  if (url.hostname === '') throw new OutboundError('invalid_url', 'the URL has no host');
  return url;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Sends one request through the guard (see the file's header for the rules). */
export async function sendOutbound(request: OutboundRequest): Promise<OutboundResponse> {
  const startedMs = Date.now();
  const deadline = AbortSignal.timeout(request.timeoutMs);
  const signal = request.signal ? AbortSignal.any([request.signal, deadline]) : deadline;
  let url = parseOutboundUrl(String(request.url), { allowHttp: true });
  let method = (request.method ?? 'GET').toUpperCase();
  let body = request.body;
  const headers: Record<string, string> = { ...request.headers };
  for (let hop = 0; ; hop += 1) {
    const response = await sendOnce(url, method, headers, body, request, signal, deadline);
    const location = response.headers.location;
    if (!REDIRECT_STATUSES.has(response.status) || typeof location !== 'string') {
      return { ...response, url: url.href, durationMs: Date.now() - startedMs };
    }
    if (request.redirect === undefined) {
      return { ...response, url: url.href, durationMs: Date.now() - startedMs };
    }
    const target = parseRedirectTarget(location, url);
    if (hop >= request.redirect.maxRedirects) {
      throw new OutboundError(
        'redirect_refused',
        `more than ${request.redirect.maxRedirects} redirects`,
      );
    }
    if (!request.redirect.allow(target, url)) {
      throw new OutboundError('redirect_refused', `redirect to ${target.host} is not allowed`);
    }
    if (
      response.status === 303 ||
      ((response.status === 301 || response.status === 302) && method === 'POST')
    ) {
      method = 'GET';
      body = undefined;
      delete headers['content-type'];
      delete headers['Content-Type'];
    }
    if (target.host !== url.host) {
      for (const name of Object.keys(headers)) {
        if (['authorization', 'cookie'].includes(name.toLowerCase())) delete headers[name];
      }
    }
    url = target;
  }
}

function parseRedirectTarget(location: string, from: URL): URL {
  let target: URL;
  try {
    target = new URL(location, from);
  } catch {
    throw new OutboundError('redirect_refused', 'the redirect Location is not a URL');
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    throw new OutboundError('redirect_refused', `redirect to a ${target.protocol} URL`);
  }
  return target;
}

type Exchange = Omit<OutboundResponse, 'url' | 'durationMs'>;

function sendOnce(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | Uint8Array | undefined,
  request: OutboundRequest,
  signal: AbortSignal,
  deadline: AbortSignal,
): Promise<Exchange> {
  const { policy } = request;
  if (isIpLiteral(url.hostname)) {
    const verdict = judgeAddress(url.hostname, policy);
    if (!verdict.allowed) {
      return Promise.reject(
        new OutboundError('blocked_address', `refused ${url.host}: it is ${verdict.reason}`),
      );
    }
  }
  const isHttps = url.protocol === 'https:';
  const agent = agentFor(policy, request.resolve ?? resolveWithSystem, isHttps);
  const requestFn = isHttps ? https.request : http.request;
  return new Promise<Exchange>((resolve, reject) => {
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      reject(toOutboundError(error, request, deadline));
    };
    const outgoing = requestFn(url, { method, headers, agent, signal });
    outgoing.on('socket', (socket: Socket) => {
      // A reused keep-alive socket was judged when it connected.
      if (!socket.connecting) return;
      socket.once('connect', () => {
        const peer = socket.remoteAddress;
        const verdict = peer === undefined ? null : judgeAddress(peer, policy);
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
    outgoing.on('error', fail);
    outgoing.on('response', (incoming) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      let truncated = false;
      const finish = () => {
        if (settled) return;
        settled = true;
        resolve({
          status: incoming.statusCode ?? 0,
          headers: incoming.headers,
          body: Buffer.concat(chunks),
          truncated,
        });
      };
      incoming.on('data', (chunk: Buffer) => {
        if (truncated) return;
        const room = request.maxResponseBytes - bytes;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, Math.max(room, 0)));
          bytes += Math.max(room, 0);
          truncated = true;
          finish();
          incoming.destroy();
          return;
        }
        chunks.push(chunk);
        bytes += chunk.length;
      });
      incoming.on('end', finish);
      incoming.on('error', fail);
      incoming.on('aborted', () => fail(new OutboundError('connect', 'the response was cut off')));
    });
    outgoing.end(body);
  });
}

// Keep-alive agents, one per policy and resolver: a kept-alive socket was judged when it
// connected (its lookup and peer check), so reusing it for the same host is safe, and repeated
// deliveries to one receiver skip a TCP and TLS handshake each.
const agents = new WeakMap<Resolver, Map<string, http.Agent>>();
const IDLE_SOCKET_MS = 15_000;

export function agentFor(policy: AddressPolicy, resolve: Resolver, isHttps: boolean): http.Agent {
  const key = JSON.stringify([isHttps, policy.allowPrivateNetworks, policy.allowedCidrs ?? []]);
  let byPolicy = agents.get(resolve);
  if (!byPolicy) agents.set(resolve, (byPolicy = new Map()));
  let agent = byPolicy.get(key);
  if (!agent) {
    const options = {
      keepAlive: true,
      maxFreeSockets: 64,
      timeout: IDLE_SOCKET_MS,
      lookup: createGuardedLookup(policy, resolve),
    };
    agent = isHttps ? new https.Agent(options) : new http.Agent(options);
    byPolicy.set(key, agent);
  }
  return agent;
}

export function toOutboundError(
  error: unknown,
  request: Pick<OutboundRequest, 'signal' | 'timeoutMs'>,
  deadline: AbortSignal,
): OutboundError {
  const cause = (error as { cause?: unknown } | null)?.cause;
  const known =
    error instanceof OutboundError ? error : cause instanceof OutboundError ? cause : null;
  if (known?.kind === 'blocked_address') return known;
  if (request.signal?.aborted) return new OutboundError('aborted', 'the request was cancelled');
  if (deadline.aborted) {
    return new OutboundError('timeout', `no complete answer within ${request.timeoutMs} ms`);
  }
  if (known !== null) return known;
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  return new OutboundError('connect', typeof code === 'string' ? `${code}: ${message}` : message);
}
