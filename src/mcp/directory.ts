// What a pod knows of its tenants' MCP servers, under each tenant's run_context_version (which
// every change to a server or a secret bumps, migration 345): the server rows, read once per
// version, and each server's tool list, discovered with one tools/list per version. A run whose
// tenant's version is the one held makes no round trip to a server before calling it. A server
// that failed to list is not asked again for FAILURE_HOLD_MS (under the same version): the runs
// of a job naming a server that hangs do not each wait MCP_CALL_TIMEOUT for it.
//
//   const directory = createMcpDirectory(pool, session deps, nowMs?)
//   directory.servers(tenantId, version) → McpServerRow[]
//   directory.tools(tenantId, version, server, signal) → McpToolInfo[]   (throws; failure.ts)
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { withTenant, type Pool } from '../db/pool.js';
import { openMcpSession, type McpSessionDeps } from './session.js';
import { listMcpServerRows, type McpServerRow } from './store.js';

/** A tool as a server lists it, what the agent needs of it. */
export interface McpToolInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  readOnly: boolean;
}

export interface McpDirectory {
  servers(tenantId: string, version: string): Promise<McpServerRow[]>;
  tools(
    tenantId: string,
    version: string,
    server: McpServerRow,
    signal: AbortSignal,
  ): Promise<McpToolInfo[]>;
  /** Lists a server's tools now (the API's test), without the cache. */
  discover(tenantId: string, server: McpServerRow, signal: AbortSignal): Promise<McpToolInfo[]>;
}

/** Entries held per kind; the oldest goes first. */
const MAX_ENTRIES = 2000;
/** A server listing more tools than this is read no further (pages of tools/list). */
const MAX_LIST_PAGES = 10;
/** How long a failed tools/list answers for its server (under one version). */
export const FAILURE_HOLD_MS = 30_000;

export function createMcpDirectory(
  pool: Pool,
  deps: McpSessionDeps,
  nowMs: () => number = Date.now,
): McpDirectory {
  const servers = new BoundedMap<McpServerRow[]>();
  const tools = new BoundedMap<McpToolInfo[]>();
  const failures = new BoundedMap<{ error: unknown; untilMs: number }>();
  const discover = (tenantId: string, server: McpServerRow, signal: AbortSignal) =>
    openMcpSession(deps, tenantId, server, signal, async (client, request) => {
      const listed: Tool[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_LIST_PAGES; page += 1) {
        const answer = await client.listTools(cursor ? { cursor } : {}, request);
        listed.push(...answer.tools);
        cursor = answer.nextCursor;
        if (!cursor || listed.length >= 1024) break;
      }
      return pickTools(listed, server.allowed_tools, deps.settings.maxToolsPerServer);
    });
  return {
    discover,
    async servers(tenantId, version) {
      const key = `${tenantId}:${version}`;
      const held = servers.get(key);
      if (held) return held;
      const rows = await withTenant(pool, tenantId, (client) => listMcpServerRows(client));
      servers.set(key, rows);
      return rows;
    },
    async tools(tenantId, version, server, signal) {
      const key = `${tenantId}:${server.id}:${version}`;
      const held = tools.get(key);
      if (held) return held;
      const failed = failures.get(key);
      if (failed && failed.untilMs > nowMs()) throw failed.error;
      try {
        const found = await discover(tenantId, server, signal);
        tools.set(key, found);
        return found;
      } catch (err) {
        // A run cancelled meanwhile says nothing of the server.
        if (!signal.aborted) failures.set(key, { error: err, untilMs: nowMs() + FAILURE_HOLD_MS });
        throw err;
      }
    },
  };
}

/** The tools offered: those allowed (all when no list), the first `max` of them. */
export function pickTools(
  listed: readonly Tool[],
  allowed: readonly string[] | null,
  max: number,
): McpToolInfo[] {
  const wanted = allowed === null ? null : new Set(allowed);
  return listed
    .filter((tool) => wanted === null || wanted.has(tool.name))
    .slice(0, max)
    .map((tool) => ({
      name: tool.name,
      description: (tool.description ?? tool.title ?? '').slice(0, 1024),
      inputSchema: tool.inputSchema as Record<string, unknown>,
      readOnly: tool.annotations?.readOnlyHint === true,
    }));
}

/** A Map that forgets its oldest entries past MAX_ENTRIES. */
class BoundedMap<V> {
  private readonly entries = new Map<string, V>();
  get(key: string): V | undefined {
    return this.entries.get(key);
  }
  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= MAX_ENTRIES) break;
      this.entries.delete(oldest);
    }
  }
}
