// What went wrong talking to an MCP server, in one word a tenant can act on: the name did not
// resolve (dns), nothing listens (refused), TLS failed (tls), the server wants other credentials
// (unauthorized), the URL answers but not as an MCP server (not_mcp), no answer in time (timeout),
// the address is not allowed (blocked_address), the answer is too large (too_large), the server
// went away mid-answer (connection_lost), it answered with an error of its own (server_error).
import { OutboundError } from '../outbound/outbound-error.js';
import { SecretHostError } from '../secrets/hosts.js';
import { SecretReferenceError } from '../secrets/references.js';
import { McpBusyError } from './gates.js';
import { loadedMcpSdk } from './sdk.js';

export type McpFailureCode =
  | 'dns'
  | 'refused'
  | 'tls'
  | 'unauthorized'
  | 'not_mcp'
  | 'timeout'
  | 'blocked_address'
  | 'too_large'
  | 'connection_lost'
  | 'server_error'
  | 'busy'
  | 'aborted'
  | 'secret_unavailable';

export interface McpFailure {
  code: McpFailureCode;
  message: string;
}

const TLS_CODE = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|EPROTO/;

export function describeMcpFailure(error: unknown): McpFailure {
  if (error instanceof McpBusyError) return { code: 'busy', message: error.message };
  if (error instanceof OutboundError) return describeOutbound(error);
  if (error instanceof SecretReferenceError || error instanceof SecretHostError) {
    return { code: 'secret_unavailable', message: `${error.message}; nothing was sent` };
  }
  if (error instanceof Error && (error as { code?: unknown }).code === 'secrets_disabled') {
    return { code: 'secret_unavailable', message: error.message };
  }
  if (error instanceof Error && error.name === 'TimeoutError') {
    return { code: 'timeout', message: 'no complete answer within MCP_CALL_TIMEOUT' };
  }
  if (error instanceof Error && error.name === 'AbortError') {
    return { code: 'aborted', message: 'the call was cancelled' };
  }
  const sdk = loadedMcpSdk();
  if (sdk && error instanceof sdk.StreamableHTTPError) {
    const status = error.code ?? 0;
    if (status === 401 || status === 403) {
      return {
        code: 'unauthorized',
        message: `the server answered ${status}: check the server's headers (a token in {{secrets.NAME}})`,
      };
    }
    if (status >= 500) return { code: 'server_error', message: `the server answered ${status}` };
    return {
      code: 'not_mcp',
      message: `the URL answered HTTP ${status}: it is not an MCP endpoint (Streamable HTTP)`,
    };
  }
  if (sdk && error instanceof sdk.McpError) {
    if (error.code === (sdk.ErrorCode.RequestTimeout as number)) {
      return { code: 'timeout', message: 'no answer in time' };
    }
    if (error.code === (sdk.ErrorCode.ConnectionClosed as number)) {
      return { code: 'connection_lost', message: 'the server closed the connection' };
    }
    return { code: 'server_error', message: `the server answered: ${error.message}` };
  }
  const message = error instanceof Error ? error.message : String(error);
  if (/SSE stream disconnected|terminated|socket hang up|ECONNRESET/i.test(message)) {
    return { code: 'connection_lost', message: 'the server went away before answering' };
  }
  return {
    code: 'not_mcp',
    message: `the answer is not MCP (Streamable HTTP): ${message.slice(0, 300)}`,
  };
}

function describeOutbound(error: OutboundError): McpFailure {
  switch (error.kind) {
    case 'dns':
      return { code: 'dns', message: error.message };
    case 'timeout':
      return { code: 'timeout', message: error.message };
    case 'blocked_address':
    case 'redirect_refused':
    case 'invalid_url':
      return { code: 'blocked_address', message: error.message };
    case 'too_large':
      return { code: 'too_large', message: error.message };
    case 'aborted':
      return { code: 'aborted', message: error.message };
    case 'connect':
      if (/ECONNREFUSED/.test(error.message)) {
        return { code: 'refused', message: `connection refused (${error.message})` };
      }
      if (TLS_CODE.test(error.message)) return { code: 'tls', message: error.message };
      return { code: 'connection_lost', message: error.message };
  }
}
