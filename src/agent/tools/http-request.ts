// The http_request tool: one HTTP request to a host on the tenant's allow-list, through the
// outbound guard (src/outbound: address policy at connect time, bounded time and bytes).
// {{secrets.NAME}} in the URL or a header is replaced by the secret's value here, after the
// model has spoken and after the host was checked; whatever comes back is redacted before the
// model, the audit or a log sees it.
import { z } from 'zod';
import { SecretHostError } from '../../secrets/hosts.js';
import {
  listSecretReferences,
  SecretReferenceError,
  substituteSecrets,
} from '../../secrets/references.js';
import type { Redactor } from '../../secrets/redact.js';
import type { SecretsVault } from '../../secrets/vault.js';
import { isUrlAllowed } from '../host-allow-list.js';
import { truncateText } from '../loop.js';
import { ToolLimitError, type AgentTool, type ToolContext } from '../tool.js';

export const HTTP_TOOL_LIMITS = {
  callsPerRun: 16,
  timeoutMs: 15_000,
  /** Bytes of one response read (the rest is dropped and the result says so). */
  responseBytes: 256 * 1024,
  /** Bytes of the response body shown to the model. */
  bodyShownBytes: 32 * 1024,
  /** Response bytes of all calls of one run together. */
  runResponseBytes: 1024 * 1024,
  requestBodyBytes: 64 * 1024,
  maxRedirects: 5,
};

/** The part of src/outbound's sendOutbound this tool uses. */
export type HttpSender = (request: {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  policy: { allowPrivateNetworks: boolean };
  timeoutMs: number;
  maxResponseBytes: number;
  signal?: AbortSignal;
  redirect?: { maxRedirects: number; allow(target: URL, from: URL): boolean };
}) => Promise<{
  status: number;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  body: Buffer;
  truncated: boolean;
  url: string;
}>;

export interface HttpToolDeps {
  send: HttpSender;
  vault: SecretsVault;
  allowPrivateNetworks: boolean;
}

/** What one run (or chat turn) shares across its calls. */
export interface HttpToolScope {
  allowedHosts: readonly string[];
  redactor: Redactor;
  used: { calls: number; responseBytes: number };
  /** In a run: the Idempotency-Key of the call at a position (RunToolScope.idempotencyKey). */
  idempotencyKey?: ((position: number) => string) | undefined;
}

const SHOWN_HEADERS = [
  'content-type',
  'content-length',
  'location',
  'date',
  'etag',
  'last-modified',
  'retry-after',
  'cache-control',
];
/** Hop-by-hop and framing headers are the client's business, not the model's. */
const FORBIDDEN_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'proxy-authorization',
]);

const Args = z.object({
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
  url: z.string().min(1).max(4096),
  headers: z
    .record(z.string().min(1).max(100), z.string().max(8192))
    .refine((headers) => Object.keys(headers).length <= 32, 'at most 32 headers')
    .optional(),
  body: z.string().optional(),
});

const DESCRIPTION = `Send one HTTP request and get the response (status, main headers, body as text cut to ${HTTP_TOOL_LIMITS.bodyShownBytes / 1024} KB).
Only hosts on this tenant's allow-list can be reached, over https unless the list allows http. At most ${HTTP_TOOL_LIMITS.callsPerRun} requests per run; each has ${HTTP_TOOL_LIMITS.timeoutMs / 1000} s.
To use a stored secret, write {{secrets.NAME}} in the URL or a header value (e.g. "Authorization": "Bearer {{secrets.API_TOKEN}}"): the server puts the value in; you never see it.`;

export function createHttpRequestTool(deps: HttpToolDeps, scope: HttpToolScope): AgentTool {
  return {
    definition: {
      type: 'function',
      function: {
        name: 'http_request',
        description: `${DESCRIPTION}\nAllowed hosts: ${scope.allowedHosts.join(', ')}`,
        parameters: {
          type: 'object',
          properties: {
            method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] },
            url: { type: 'string', description: 'absolute URL, https://…' },
            headers: {
              type: 'object',
              additionalProperties: { type: 'string' },
              description: 'request headers',
            },
            body: { type: 'string', description: 'request body (text, e.g. JSON)' },
          },
          required: ['method', 'url'],
        },
      },
    },
    run: (raw, context) => sendRequest(deps, scope, raw, context),
  };
}

async function sendRequest(
  deps: HttpToolDeps,
  scope: HttpToolScope,
  raw: unknown,
  context: ToolContext,
): Promise<string> {
  const refuse = (code: string, message: string) => {
    context.report?.({ status: 'refused', error: message });
    return failure(code, message);
  };
  const parsed = Args.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return failure(
      'invalid_arguments',
      `${issue?.path.join('.') || 'arguments'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  const args = parsed.data;
  if (scope.used.calls >= HTTP_TOOL_LIMITS.callsPerRun) {
    throw new ToolLimitError(
      `http_request: more than ${HTTP_TOOL_LIMITS.callsPerRun} requests in one run`,
    );
  }
  scope.used.calls += 1;
  const body = args.body ?? '';
  if (Buffer.byteLength(body, 'utf8') > HTTP_TOOL_LIMITS.requestBodyBytes) {
    return failure(
      'body_too_large',
      `a request body is at most ${HTTP_TOOL_LIMITS.requestBodyBytes} bytes`,
    );
  }
  // The host is judged on what the model wrote, before any secret is put in: a secret can only
  // go where the list allows, and never into the host itself.
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(args.url)?.[1] ?? '';
  if (authority.includes('{{'))
    return refuse('secret_in_host', 'a secret may not be part of the host');
  let target: URL;
  try {
    target = new URL(args.url);
  } catch {
    return failure(
      'invalid_url',
      'expected an absolute URL such as https://api.example.com/v1/status',
    );
  }
  if (target.protocol !== 'https:' && target.protocol !== 'http:') {
    return failure('invalid_url', `expected an https URL, got ${target.protocol}`);
  }
  if (target.username !== '' || target.password !== '') {
    return failure('invalid_url', 'a URL must not carry a user name or password');
  }
  if (!isUrlAllowed(scope.allowedHosts, target)) {
    const references = listSecretReferences(args.url + JSON.stringify(args.headers ?? {}));
    const note = references.length > 0 ? ` (secrets ${references.join(', ')} were not sent)` : '';
    return refuse(
      'host_not_allowed',
      `${target.protocol}//${target.host} is not on this tenant's allow-list (http_allowed_hosts)${note}`,
    );
  }
  if (listSecretReferences(body).length > 0) {
    return refuse('secret_in_body', 'secrets may be used in the URL and in header values only');
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(args.headers ?? {})) {
    if (FORBIDDEN_HEADERS.has(name.toLowerCase()) || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      return failure('invalid_header', `header ${name} may not be set`);
    }
    headers[name] = value;
  }
  // A request with side effects names its call, so a receiver that honours the header applies
  // it once however many attempts of the occurrence send it; the model's own key is kept.
  if (
    scope.idempotencyKey &&
    context.position !== undefined &&
    hasHttpSideEffects(args) &&
    !Object.keys(headers).some((name) => name.toLowerCase() === 'idempotency-key')
  ) {
    headers['Idempotency-Key'] = scope.idempotencyKey(context.position);
  }
  const names = listSecretReferences(args.url + '\n' + Object.values(headers).join('\n'));
  let url = args.url;
  if (names.length > 0) {
    let values: Map<string, string>;
    try {
      values = await deps.vault.resolve(context.tenantId, names, target.hostname);
    } catch (err) {
      if (err instanceof SecretReferenceError) return refuse('unknown_secret', err.message);
      if (err instanceof SecretHostError) return refuse('secret_host_not_allowed', err.message);
      if (err instanceof Error && 'code' in err && err.code === 'secrets_disabled') {
        return refuse('secrets_disabled', err.message);
      }
      throw err;
    }
    url = substituteSecrets(url, values);
    for (const name of Object.keys(headers))
      headers[name] = substituteSecrets(headers[name] as string, values);
    if (new URL(url).host !== target.host)
      return refuse('secret_in_host', 'a secret may not change the host');
  }
  const requestBytes =
    Buffer.byteLength(url) +
    Buffer.byteLength(body) +
    Object.entries(headers).reduce((n, [k, v]) => n + k.length + Buffer.byteLength(v), 0);
  const room = HTTP_TOOL_LIMITS.runResponseBytes - scope.used.responseBytes;
  if (room <= 0) {
    throw new ToolLimitError(
      `http_request: the run read more than ${HTTP_TOOL_LIMITS.runResponseBytes} response bytes`,
    );
  }
  try {
    const response = await deps.send({
      url,
      method: args.method,
      headers,
      ...(args.body !== undefined && args.method !== 'GET' ? { body } : {}),
      policy: { allowPrivateNetworks: deps.allowPrivateNetworks },
      timeoutMs: HTTP_TOOL_LIMITS.timeoutMs,
      maxResponseBytes: Math.min(HTTP_TOOL_LIMITS.responseBytes, room),
      signal: context.signal,
      redirect: {
        maxRedirects: HTTP_TOOL_LIMITS.maxRedirects,
        // Within the allow-list only; with secrets in the request, within its own host only
        // (the guard drops Authorization across hosts, not an X-Api-Key).
        allow: (next) =>
          isUrlAllowed(scope.allowedHosts, next) &&
          (names.length === 0 || next.host === target.host),
      },
    });
    scope.used.responseBytes += response.body.length;
    context.report?.({
      status: 'ok',
      httpStatus: response.status,
      requestBytes,
      responseBytes: response.body.length,
    });
    const shownHeaders: Record<string, string> = {};
    for (const name of SHOWN_HEADERS) {
      const value = response.headers[name];
      if (value !== undefined) shownHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    // Redacted before the cut, so a cut cannot leave part of a secret; a body the read limit cut
    // loses a secret's first characters at its end too.
    const received = response.body.toString('utf8');
    const text = truncateText(
      response.truncated ? scope.redactor.cutText(received) : scope.redactor.text(received),
      HTTP_TOOL_LIMITS.bodyShownBytes,
    );
    return scope.redactor.text(
      JSON.stringify({
        ok: true,
        status: response.status,
        // The URL as the model wrote it ({{secrets.NAME}}), unless a redirect led elsewhere.
        url: response.url === new URL(url).href ? args.url : response.url,
        headers: shownHeaders,
        body: response.truncated
          ? `${text} …[response cut at ${response.body.length} bytes]`
          : text,
      }),
    );
  } catch (err) {
    const kind = (err as { kind?: unknown } | null)?.kind;
    const message = scope.redactor.text(err instanceof Error ? err.message : String(err));
    if (context.signal.aborted) throw err;
    if (kind === 'blocked_address' || kind === 'redirect_refused') return refuse(kind, message);
    context.report?.({ status: 'error', error: message, requestBytes });
    return failure(typeof kind === 'string' ? kind : 'request_failed', message);
  }
}

/** Methods that only read. A call without a method is refused before anything is sent. */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether the request may change something at its target: any method but a read. */
export function hasHttpSideEffects(args: unknown): boolean {
  const method =
    args !== null && typeof args === 'object' ? (args as { method?: unknown }).method : undefined;
  return method !== undefined && method !== null && !READ_METHODS.has(String(method).toUpperCase());
}

function failure(code: string, message: string): string {
  return JSON.stringify({ ok: false, error: { code, message } });
}
