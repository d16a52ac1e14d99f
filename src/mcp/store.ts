// A tenant's MCP servers in PostgreSQL (mcp_servers, migration 345). Every statement runs inside
// the caller's withTenant, so row-level security scopes it to the tenant.
import type { PoolClient } from '../db/pool.js';

type Query = Pick<PoolClient, 'query'>;

export interface McpServerRow {
  id: string;
  name: string;
  url: string;
  /** Header values as written: {{secrets.NAME}} templates are substituted at send time. */
  headers: Record<string, string>;
  /** Null: every tool the server lists. */
  allowed_tools: string[] | null;
  description: string;
  created_at: Date;
  updated_at: Date;
}

export type McpServerWrite = Pick<
  McpServerRow,
  'name' | 'url' | 'headers' | 'allowed_tools' | 'description'
>;

const COLUMNS = 'id, name, url, headers, allowed_tools, description, created_at, updated_at';

export async function listMcpServerRows(client: Query): Promise<McpServerRow[]> {
  const { rows } = await client.query<McpServerRow>(
    `SELECT ${COLUMNS} FROM mcp_servers ORDER BY name`,
  );
  return rows;
}

export async function selectMcpServerRow(
  client: Query,
  id: string,
): Promise<McpServerRow | undefined> {
  const { rows } = await client.query<McpServerRow>(
    `SELECT ${COLUMNS} FROM mcp_servers WHERE id = $1`,
    [id],
  );
  return rows[0];
}

export async function countMcpServers(client: Query): Promise<number> {
  const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM mcp_servers');
  return rows[0]?.n ?? 0;
}

/** Inserts a server; undefined when the tenant already has one of that name. */
export async function insertMcpServerRow(
  client: Query,
  tenantId: string,
  server: McpServerWrite,
): Promise<McpServerRow | undefined> {
  const { rows } = await client.query<McpServerRow>(
    `INSERT INTO mcp_servers (tenant_id, name, url, headers, allowed_tools, description)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (tenant_id, name) DO NOTHING
     RETURNING ${COLUMNS}`,
    [
      tenantId,
      server.name,
      server.url,
      JSON.stringify(server.headers),
      server.allowed_tools,
      server.description,
    ],
  );
  return rows[0];
}

export async function updateMcpServerRow(
  client: Query,
  id: string,
  server: McpServerWrite,
): Promise<McpServerRow | undefined> {
  const { rows } = await client.query<McpServerRow>(
    `UPDATE mcp_servers
        SET name = $2, url = $3, headers = $4, allowed_tools = $5, description = $6,
            updated_at = now()
      WHERE id = $1
      RETURNING ${COLUMNS}`,
    [
      id,
      server.name,
      server.url,
      JSON.stringify(server.headers),
      server.allowed_tools,
      server.description,
    ],
  );
  return rows[0];
}

export async function deleteMcpServerRow(client: Query, id: string): Promise<boolean> {
  const { rowCount } = await client.query('DELETE FROM mcp_servers WHERE id = $1', [id]);
  return (rowCount ?? 0) > 0;
}

/** The tenant's run_context_version: discovery is cached under it. */
export async function selectContextVersion(client: Query, tenantId: string): Promise<string> {
  const { rows } = await client.query<{ run_context_version: string }>(
    'SELECT run_context_version FROM tenants WHERE id = $1',
    [tenantId],
  );
  return rows[0]?.run_context_version ?? '0';
}

/** The servers a job's runs are offered (names; empty: none). */
export async function selectJobMcpServers(client: Query, jobId: string): Promise<string[]> {
  const { rows } = await client.query<{ mcp_servers: string[] | null }>(
    'SELECT mcp_servers FROM cron_jobs WHERE id = $1',
    [jobId],
  );
  return rows[0]?.mcp_servers ?? [];
}
