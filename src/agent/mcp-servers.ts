// The commands behind /v1/mcp-servers: a tenant's MCP servers checked (name, URL, headers, the
// host on the tenant's allow-list), bounded (MCP_MAX_SERVERS_PER_TENANT) and stored; a test lists
// a server's tools now or names what failed. Errors are McpServerErrors with an HTTP status.
import { withTenant, type Pool } from '../db/pool.js';
import type { McpDirectory, McpToolInfo } from '../mcp/directory.js';
import { describeMcpFailure, type McpFailure } from '../mcp/failure.js';
import { exposeToolNames, SERVER_NAME_PATTERN, SERVER_NAME_RULE } from '../mcp/names.js';
import {
  countMcpServers,
  deleteMcpServerRow,
  insertMcpServerRow,
  listMcpServerRows,
  selectMcpServerRow,
  updateMcpServerRow,
  type McpServerRow,
  type McpServerWrite,
} from '../mcp/store.js';
import { spendOutboundTest, type SpendOutboundTest } from '../outbound/test-budget.js';
import { listSecretReferences } from '../secrets/references.js';
import type { Redactor } from '../secrets/redact.js';
import { selectAgentSettings } from './agent-settings.js';
import { isUrlAllowed } from './host-allow-list.js';

export interface McpServerDeps {
  pool: Pool;
  directory: McpDirectory;
  maxServers: number;
  redactor(tenantId: string): Promise<Redactor>;
  /** OUTBOUND_TESTS_PER_HOUR: a test (also the one at registration) spends one of the tenant's tests. */
  spendTest?: SpendOutboundTest | undefined;
}

export interface McpServerInput {
  name: string;
  url: string;
  headers?: Record<string, string> | undefined;
  allowed_tools?: string[] | null | undefined;
  description?: string | undefined;
}

export interface McpServerView {
  id: string;
  name: string;
  url: string;
  headers: Record<string, string>;
  allowed_tools: string[] | null;
  description: string;
  created_at: string;
  updated_at: string;
}

export type McpTestView =
  | {
      ok: true;
      duration_ms: number;
      tools: { name: string; offered_as: string; description: string; read_only: boolean }[];
    }
  | { ok: false; duration_ms: number; error: McpFailure };

export class McpServerError extends Error {
  override name = 'McpServerError';
  constructor(
    readonly status: 400 | 404 | 409 | 422,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const MAX_HEADERS = 16;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Headers the client sets itself: the transport's framing and the session's. */
const FORBIDDEN_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'accept',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
]);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;

/** The write as stored, or a McpServerError naming what is wrong. */
export function checkMcpServer(input: McpServerInput, allowedHosts: readonly string[]) {
  if (!SERVER_NAME_PATTERN.test(input.name)) {
    throw new McpServerError(400, 'invalid_name', `name: ${SERVER_NAME_RULE}`);
  }
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    throw new McpServerError(400, 'invalid_url', 'url: expected an absolute https:// URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new McpServerError(400, 'invalid_url', `url: expected https, got ${url.protocol}`);
  }
  if (url.username !== '' || url.password !== '' || url.hash !== '') {
    throw new McpServerError(
      400,
      'invalid_url',
      'url: no user, password or #fragment (put credentials in headers as {{secrets.NAME}})',
    );
  }
  if (listSecretReferences(input.url).length > 0) {
    throw new McpServerError(400, 'invalid_url', 'url: secrets go in header values only');
  }
  if (!isUrlAllowed(allowedHosts, url)) {
    throw new McpServerError(
      422,
      'host_not_allowed',
      `${url.protocol}//${url.host} is not on this tenant's allow-list (http_allowed_hosts, set by the admin)`,
    );
  }
  const headers = input.headers ?? {};
  if (Object.keys(headers).length > MAX_HEADERS) {
    throw new McpServerError(400, 'invalid_headers', `headers: at most ${MAX_HEADERS}`);
  }
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name) || FORBIDDEN_HEADERS.has(name.toLowerCase())) {
      throw new McpServerError(400, 'invalid_headers', `headers: ${name} may not be set`);
    }
    if (value.includes('\r') || value.includes('\n') || value.includes('\u0000')) {
      throw new McpServerError(400, 'invalid_headers', `headers: ${name} has a line break`);
    }
  }
  const write: McpServerWrite = {
    name: input.name,
    url: url.href,
    headers,
    allowed_tools: input.allowed_tools ? [...new Set(input.allowed_tools)] : null,
    description: input.description ?? '',
  };
  return write;
}

async function allowedHostsOf(deps: McpServerDeps, tenantId: string): Promise<string[]> {
  return withTenant(deps.pool, tenantId, async (client) =>
    selectAgentSettings(client, tenantId).then((settings) => settings.http_allowed_hosts),
  );
}

export async function createMcpServer(
  deps: McpServerDeps,
  tenantId: string,
  input: McpServerInput,
): Promise<McpServerView> {
  const write = checkMcpServer(input, await allowedHostsOf(deps, tenantId));
  const row = await withTenant(deps.pool, tenantId, async (client) => {
    // Serialises creates of one tenant, so concurrent requests cannot overshoot the bound.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`mcp:${tenantId}`]);
    if ((await countMcpServers(client)) >= deps.maxServers) {
      throw new McpServerError(
        409,
        'mcp_server_limit',
        `a tenant has at most ${deps.maxServers} MCP servers (MCP_MAX_SERVERS_PER_TENANT); delete one first`,
      );
    }
    const inserted = await insertMcpServerRow(client, tenantId, write);
    if (!inserted) throw nameTaken(write.name);
    return inserted;
  });
  return viewOf(row, await deps.redactor(tenantId));
}

export async function listMcpServers(
  deps: McpServerDeps,
  tenantId: string,
): Promise<McpServerView[]> {
  const rows = await withTenant(deps.pool, tenantId, (client) => listMcpServerRows(client));
  const redactor = await deps.redactor(tenantId);
  return rows.map((row) => viewOf(row, redactor));
}

export async function getMcpServer(
  deps: McpServerDeps,
  tenantId: string,
  id: string,
): Promise<McpServerView> {
  return viewOf(await requireRow(deps, tenantId, id), await deps.redactor(tenantId));
}

export async function patchMcpServer(
  deps: McpServerDeps,
  tenantId: string,
  id: string,
  patch: Partial<McpServerInput>,
): Promise<McpServerView> {
  const current = await requireRow(deps, tenantId, id);
  const write = checkMcpServer(
    {
      name: patch.name ?? current.name,
      url: patch.url ?? current.url,
      headers: patch.headers ?? current.headers,
      allowed_tools:
        patch.allowed_tools === undefined ? current.allowed_tools : patch.allowed_tools,
      description: patch.description ?? current.description,
    },
    await allowedHostsOf(deps, tenantId),
  );
  const row = await withTenant(deps.pool, tenantId, async (client) => {
    try {
      return await updateMcpServerRow(client, id, write);
    } catch (err) {
      if ((err as { code?: unknown }).code === '23505') throw nameTaken(write.name);
      throw err;
    }
  });
  if (!row) throw notFound(id);
  return viewOf(row, await deps.redactor(tenantId));
}

export async function deleteMcpServer(
  deps: McpServerDeps,
  tenantId: string,
  id: string,
): Promise<void> {
  if (!UUID.test(id)) throw notFound(id);
  const deleted = await withTenant(deps.pool, tenantId, (client) => deleteMcpServerRow(client, id));
  if (!deleted) throw notFound(id);
}

/** Lists the server's tools now (not from the cache), or names what failed. */
export async function testMcpServer(
  deps: McpServerDeps,
  tenantId: string,
  id: string,
  now: () => number = () => performance.now(),
): Promise<McpTestView> {
  const row = await requireRow(deps, tenantId, id);
  await spendOutboundTest(deps.spendTest, tenantId);
  const redactor = await deps.redactor(tenantId);
  const started = now();
  const took = () => Math.max(0, Math.round(now() - started));
  const allowed = await allowedHostsOf(deps, tenantId);
  if (!isUrlAllowed(allowed, new URL(row.url))) {
    return {
      ok: false,
      duration_ms: took(),
      error: {
        code: 'blocked_address',
        message: "the server's host is no longer on this tenant's allow-list",
      },
    };
  }
  try {
    const tools = await deps.directory.discover(tenantId, row, new AbortController().signal);
    return { ok: true, duration_ms: took(), tools: describeTools(row.name, tools) };
  } catch (err) {
    const failure = describeMcpFailure(err);
    return {
      ok: false,
      duration_ms: took(),
      error: { code: failure.code, message: redactor.text(failure.message) },
    };
  }
}

function describeTools(server: string, tools: readonly McpToolInfo[]) {
  const names = exposeToolNames(
    server,
    tools.map((tool) => tool.name),
  );
  return tools.map((tool, i) => ({
    name: tool.name,
    offered_as: names[i] as string,
    description: tool.description,
    read_only: tool.readOnly,
  }));
}

async function requireRow(
  deps: McpServerDeps,
  tenantId: string,
  id: string,
): Promise<McpServerRow> {
  if (!UUID.test(id)) throw notFound(id);
  const row = await withTenant(deps.pool, tenantId, (client) => selectMcpServerRow(client, id));
  if (!row) throw notFound(id);
  return row;
}

/** Header values as stored ({{secrets.NAME}} templates), any secret value written raw redacted. */
function viewOf(row: McpServerRow, redactor: Redactor): McpServerView {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    headers: redactor.value(row.headers),
    allowed_tools: row.allowed_tools,
    description: row.description,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

const notFound = (id: string) =>
  new McpServerError(404, 'not_found', `no MCP server with id ${id.slice(0, 100)}`);
const nameTaken = (name: string) =>
  new McpServerError(409, 'name_taken', `this tenant already has an MCP server named ${name}`);
