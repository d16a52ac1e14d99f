/**
 * Why an outbound request produced no HTTP response:
 * - `invalid_url`: not an absolute http(s) URL, or credentials in it;
 * - `blocked_address`: the destination (or a redirect's) is not allowed by the address policy;
 * - `dns`: the name did not resolve;
 * - `connect`: the connection failed (refused, reset, TLS) before an answer;
 * - `timeout`: the whole exchange took longer than `timeoutMs`;
 * - `aborted`: the caller's signal fired;
 * - `redirect_refused`: a redirect outside the caller's rule, or too many of them;
 * - `too_large`: a streamed body (guarded-fetch.ts) went past its byte bound.
 */
export type OutboundErrorKind =
  | 'invalid_url'
  | 'blocked_address'
  | 'dns'
  | 'connect'
  | 'timeout'
  | 'aborted'
  | 'redirect_refused'
  | 'too_large';

export class OutboundError extends Error {
  override name = 'OutboundError';
  constructor(
    readonly kind: OutboundErrorKind,
    message: string,
  ) {
    super(message);
  }
}
