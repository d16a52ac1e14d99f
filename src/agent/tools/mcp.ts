// A tool of a tenant's MCP server, as the model sees it: `<server>__<tool>` with the server's
// description and JSON Schema. A call opens one session with the server (src/mcp/session.ts:
// the gates, the guarded fetch, secrets substituted at send time) and sends one tools/call; in a
// scheduled run the request's _meta carries the call's idempotency key, so a server that honours
// it applies a call sent again by a later attempt of the occurrence once (docs/mcp.md). The
// result is rendered within a bound (src/mcp/result.ts) and redacted; an `isError` result is the
// tool's result, `ok: false`, which the model reads.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpToolInfo } from '../../mcp/directory.js';
import { describeMcpFailure, type McpFailureCode } from '../../mcp/failure.js';
import { renderToolResult } from '../../mcp/result.js';
import { openMcpSession, type McpSessionDeps } from '../../mcp/session.js';
import type { McpServerRow } from '../../mcp/store.js';
import type { Redactor } from '../../secrets/redact.js';
import { isUrlAllowed } from '../host-allow-list.js';
import { ToolLimitError, type AgentTool, type ToolContext } from '../tool.js';

/** The key of a tools/call request's `_meta` that holds the call's idempotency key. */
export const IDEMPOTENCY_META_KEY = 'io.hermesx/idempotency-key';

export const MCP_TOOL_LIMITS = {
  /** MCP tool calls of one run (or chat turn), all servers together. */
  callsPerRun: 16,
  /** Bytes of one result shown to the model. */
  resultShownBytes: 32 * 1024,
  /** Response bytes of all MCP calls of one run together. */
  runResponseBytes: 4 * 1024 * 1024,
};

/** One tool offered: the name the model calls, its server, the tool as the server lists it. */
export interface McpToolOffer {
  name: string;
  server: McpServerRow;
  tool: McpToolInfo;
}

/** What the MCP tools of one run or chat turn share. */
export interface McpToolScope {
  session: McpSessionDeps;
  allowedHosts: readonly string[];
  redactor: Redactor;
  used: { calls: number; responseBytes: number };
  /** In a run: the idempotency key of the call at a position. */
  idempotencyKey?: ((position: number) => string) | undefined;
}

/** Codes of calls that were not made (nothing reached the server's tool). */
const NOT_MADE: ReadonlySet<McpFailureCode> = new Set([
  'busy',
  'secret_unavailable',
  'blocked_address',
  'dns',
  'refused',
]);

export function createMcpTool(offer: McpToolOffer, scope: McpToolScope): AgentTool {
  const description = [
    offer.tool.description || `The ${offer.tool.name} tool`,
    `(MCP server ${offer.server.name}${offer.server.description ? `: ${offer.server.description}` : ''})`,
  ].join(' ');
  return {
    definition: {
      type: 'function',
      function: {
        name: offer.name,
        description: description.slice(0, 1024),
        parameters: offer.tool.inputSchema,
      },
    },
    run: (args, context) => callTool(offer, scope, args, context),
    sideEffects: () => !offer.tool.readOnly,
  };
}

async function callTool(
  offer: McpToolOffer,
  scope: McpToolScope,
  args: unknown,
  context: ToolContext,
): Promise<string> {
  const refuse = (code: string, message: string) => {
    context.report?.({ status: 'refused', error: message });
    return failure(code, message);
  };
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    return failure('invalid_arguments', 'the arguments must be a JSON object');
  }
  // The admin may have taken the host off the allow-list since the server was registered.
  if (!isUrlAllowed(scope.allowedHosts, new URL(offer.server.url))) {
    return refuse(
      'host_not_allowed',
      `the MCP server ${offer.server.name}'s host is not on this tenant's allow-list (http_allowed_hosts)`,
    );
  }
  if (scope.used.calls >= MCP_TOOL_LIMITS.callsPerRun) {
    throw new ToolLimitError(
      `MCP tools: more than ${MCP_TOOL_LIMITS.callsPerRun} calls in one run`,
    );
  }
  if (scope.used.responseBytes >= MCP_TOOL_LIMITS.runResponseBytes) {
    throw new ToolLimitError(
      `MCP tools: the run read more than ${MCP_TOOL_LIMITS.runResponseBytes} response bytes`,
    );
  }
  scope.used.calls += 1;
  const key =
    scope.idempotencyKey && context.position !== undefined
      ? scope.idempotencyKey(context.position)
      : undefined;
  const requestBytes = Buffer.byteLength(JSON.stringify(args), 'utf8');
  try {
    const result = (await openMcpSession(
      scope.session,
      context.tenantId,
      offer.server,
      context.signal,
      (client, request) =>
        client.callTool(
          {
            name: offer.tool.name,
            arguments: args as Record<string, unknown>,
            ...(key ? { _meta: { [IDEMPOTENCY_META_KEY]: key } } : {}),
          },
          undefined,
          request,
        ),
    )) as CallToolResult;
    const responseBytes = Buffer.byteLength(JSON.stringify(result), 'utf8');
    scope.used.responseBytes += responseBytes;
    const text = scope.redactor.text(renderToolResult(result, MCP_TOOL_LIMITS.resultShownBytes));
    context.report?.({
      status: result.isError === true ? 'error' : 'ok',
      ...(result.isError === true ? { error: firstText(result) } : {}),
      requestBytes,
      responseBytes,
    });
    return text;
  } catch (err) {
    if (context.signal.aborted) throw err;
    const { code, message } = describeMcpFailure(err);
    const said = scope.redactor.text(`MCP server ${offer.server.name}: ${message}`);
    if (NOT_MADE.has(code)) return refuse(code, said);
    context.report?.({ status: 'error', error: said, requestBytes });
    return failure(code, said);
  }
}

function firstText(result: CallToolResult): string {
  const part = result.content?.find((item) => item.type === 'text');
  return part && part.type === 'text' ? part.text.slice(0, 500) : 'the tool reported an error';
}

function failure(code: string, message: string): string {
  return JSON.stringify({ ok: false, error: { code, message } });
}
