// The MCP SDK's classes, loaded at the first session rather than at start: a pod whose tenants
// have no MCP server does not hold the SDK (a few megabytes of code and heap).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

export interface McpSdk {
  Client: typeof Client;
  StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
  StreamableHTTPError: typeof StreamableHTTPError;
  McpError: typeof McpError;
  ErrorCode: typeof ErrorCode;
}

let loaded: McpSdk | undefined;

/** The SDK's classes; the imports happen once (Node keeps the modules). */
export async function loadMcpSdk(): Promise<McpSdk> {
  const [client, http, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  loaded ??= {
    Client: client.Client,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
    StreamableHTTPError: http.StreamableHTTPError,
    McpError: types.McpError,
    ErrorCode: types.ErrorCode,
  };
  return loaded;
}

/** The SDK if a session loaded it; an error cannot be one of its classes otherwise. */
export const loadedMcpSdk = (): McpSdk | undefined => loaded;
