// Which MCP tools a run or a chat turn is offered. A run: the servers its job names
// (cron_jobs.mcp_servers; none by default), read only when the tenant has servers at all. A chat
// turn: every server of the tenant (chat is where a tenant tries its tools). Each server's tools
// come from the pod's directory under the tenant's run_context_version (no tools/list round trip
// once known); a server that cannot be used now (unknown name, host off the allow-list,
// unreachable) is left out and named in a note the model reads, so the run goes on without it.
import type { McpSettings } from '../mcp/settings.js';
import { withTenant, type Pool } from '../db/pool.js';
import { createMcpDirectory, type McpDirectory } from '../mcp/directory.js';
import { createMcpGates } from '../mcp/gates.js';
import { describeMcpFailure } from '../mcp/failure.js';
import { exposeToolNames } from '../mcp/names.js';
import type { McpSessionDeps } from '../mcp/session.js';
import { selectContextVersion, selectJobMcpServers } from '../mcp/store.js';
import type { SecretsVault } from '../secrets/vault.js';
import { isUrlAllowed } from './host-allow-list.js';
import type { McpToolOffer } from './tools/mcp.js';

export interface McpToolkitDeps {
  directory: McpDirectory;
  session: McpSessionDeps;
}

export interface McpOffers {
  offers: McpToolOffer[];
  session: McpSessionDeps;
  /** Servers left out, and why, for the model; null: none. */
  note: string | null;
}

interface OfferRequest {
  tenantId: string;
  version: string;
  /** Server names; 'all': every server of the tenant. */
  names: readonly string[] | 'all';
  allowedHosts: readonly string[];
  signal: AbortSignal;
}

export async function loadMcpOffers(
  deps: McpToolkitDeps,
  request: OfferRequest,
): Promise<McpOffers> {
  const { tenantId, version } = request;
  const servers = await deps.directory.servers(tenantId, version);
  const notes: string[] = [];
  const chosen =
    request.names === 'all'
      ? servers
      : request.names.flatMap((name) => {
          const found = servers.find((server) => server.name === name);
          if (!found) notes.push(`${name}: there is no MCP server of that name`);
          return found ? [found] : [];
        });
  const usable = chosen.filter((server) => {
    const allowed = isUrlAllowed(request.allowedHosts, new URL(server.url));
    if (!allowed) notes.push(`${server.name}: its host is not on the tenant's allow-list`);
    return allowed;
  });
  const listed = await Promise.all(
    usable.map((server) =>
      deps.directory.tools(tenantId, version, server, request.signal).then(
        (tools) => ({ server, tools }),
        (err: unknown) => {
          const failure = describeMcpFailure(err);
          notes.push(`${server.name}: unavailable (${failure.code}: ${failure.message})`);
          return { server, tools: [] };
        },
      ),
    ),
  );
  const offers: McpToolOffer[] = [];
  const taken = new Set<string>();
  for (const { server, tools } of listed) {
    const names = exposeToolNames(
      server.name,
      tools.map((tool) => tool.name),
      taken,
    );
    tools.forEach((tool, i) => {
      const name = names[i] as string;
      taken.add(name);
      offers.push({ name, server, tool });
    });
  }
  const note =
    notes.length > 0
      ? `Some MCP servers' tools are not available in this run: ${notes.join('; ')}.`
      : null;
  return { offers, session: deps.session, note };
}

/** A run's offers: its job's servers, when its tenant has any. */
export async function loadRunMcpOffers(
  deps: McpToolkitDeps,
  pool: Pool,
  request: Omit<OfferRequest, 'names'> & { jobId: string },
): Promise<McpOffers | undefined> {
  const servers = await deps.directory.servers(request.tenantId, request.version);
  if (servers.length === 0) return undefined;
  const names = await withTenant(pool, request.tenantId, (client) =>
    selectJobMcpServers(client, request.jobId),
  );
  if (names.length === 0) return undefined;
  return loadMcpOffers(deps, { ...request, names });
}

/** A chat turn's offers: every server of the tenant. */
export async function loadChatMcpOffers(
  deps: McpToolkitDeps,
  pool: Pool,
  tenantId: string,
  allowedHosts: readonly string[],
): Promise<McpOffers | undefined> {
  const version = await withTenant(pool, tenantId, (client) =>
    selectContextVersion(client, tenantId),
  );
  const servers = await deps.directory.servers(tenantId, version);
  if (servers.length === 0) return undefined;
  return loadMcpOffers(deps, {
    tenantId,
    version,
    names: 'all',
    allowedHosts,
    signal: AbortSignal.timeout(deps.session.settings.callTimeoutMs),
  });
}

/**
 * The pod's MCP pieces: one set of gates (sessions per pod and per tenant) and one directory,
 * shared by scheduled runs, chat and the API. Private addresses as for http_request.
 */
export function createMcpToolkit(
  pool: Pool,
  vault: SecretsVault,
  settings: McpSettings,
  allowPrivateNetworks: boolean,
): McpToolkitDeps {
  const session: McpSessionDeps = {
    vault,
    gates: createMcpGates(settings),
    settings,
    policy: { allowPrivateNetworks },
  };
  return { session, directory: createMcpDirectory(pool, session) };
}
