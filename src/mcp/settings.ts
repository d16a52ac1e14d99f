/** Tenants' MCP servers (docs/mcp.md): bounds per tenant, per server, per call and per pod. */
export interface McpSettings {
  readonly maxServersPerTenant: number;
  /** Tools of one server offered to a run or a chat turn (the first ones it lists). */
  readonly maxToolsPerServer: number;
  /** Bytes of one response read from a server (a tools/list, a tools/call). */
  readonly responseMaxBytes: number;
  /** One session with a server: connect, then one tools/list or tools/call. */
  readonly callTimeoutMs: number;
  /** Sessions with MCP servers open at once on this pod, and for one tenant on it. */
  readonly maxSessions: number;
  readonly maxSessionsPerTenant: number;
}
