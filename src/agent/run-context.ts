// What a scheduled run reads of its tenant: the redactor of its secrets, the HTTP allow-list and
// the skill list. Runs fire by the thousand and these change rarely, so a pod keeps each tenant's
// under the tenant's run_context_version (migration 310), which every claim returns: a run whose
// claim names the version held here reads nothing; after a change, the first run of the tenant
// reloads it and the runs claimed with it share that one read.
//
//   createTenantContexts(pool, vault, skills) → { get(tenantId, version), load(client, tenantId) }
import { withTenant, type Pool, type PoolClient } from '../db/pool.js';
import type { Redactor } from '../secrets/redact.js';
import type { SecretsVault } from '../secrets/vault.js';
import type { SkillLibrary, SkillSummary } from '../skills/library.js';
import { selectAgentSettings } from './agent-settings.js';

export interface TenantRunContext {
  /** tenants.run_context_version this was read under. */
  version: string;
  redactor: Redactor;
  httpAllowedHosts: string[];
  /** The models of jobs that list none of their own, after the job's model (migration 350). */
  defaultModels: string[];
  skills: SkillSummary[];
  /** The tenant has MCP servers (a run of a tenant without any reads nothing about them). */
  hasMcpServers: boolean;
}

export interface TenantContexts {
  /** The tenant's context at `version` or later: from memory when held, read otherwise. */
  get(tenantId: string, version: string): Promise<TenantRunContext>;
  /** Reads it inside the caller's tenant transaction (and keeps it). */
  load(client: Pick<PoolClient, 'query'>, tenantId: string): Promise<TenantRunContext>;
  /**
   * Tenants whose runs are due soon: those not held are read ahead, a few at a time, so their
   * first runs find them (a pod just started, a tenant new to it). Never throws.
   */
  warm(tenantIds: readonly string[]): void;
}

/** Tenants held at once, and an upper bound on the bytes their secrets take in memory. */
export const TENANT_CONTEXTS_MAX = 1000;
export const TENANT_CONTEXTS_MAX_BYTES = 16 * 1024 * 1024;
/** A secret value is at most 4 KiB, kept in three forms (as is, URL-encoded, JSON-escaped). */
const SECRET_WEIGHT_BYTES = 3 * 4096;
const ENTRY_WEIGHT_BYTES = 1024;
/** Reads ahead at once: the pool is the claims' first (a pod has a handful of connections). */
const WARM_READS_AT_ONCE = 2;

export function createTenantContexts(
  pool: Pool,
  vault: SecretsVault,
  skills: SkillLibrary | undefined,
  limits = { maxEntries: TENANT_CONTEXTS_MAX, maxBytes: TENANT_CONTEXTS_MAX_BYTES },
): TenantContexts {
  // Insertion order is recency: a hit moves its entry to the end; eviction takes the front.
  const held = new Map<string, { context: TenantRunContext; weight: number }>();
  const reading = new Map<string, Promise<TenantRunContext>>();
  let heldBytes = 0;

  const keep = (tenantId: string, context: TenantRunContext) => {
    const before = held.get(tenantId);
    // A slower read must not replace a newer one.
    if (before && BigInt(before.context.version) > BigInt(context.version)) return;
    if (before) heldBytes -= before.weight;
    held.delete(tenantId);
    const weight = ENTRY_WEIGHT_BYTES + context.redactor.size * SECRET_WEIGHT_BYTES;
    held.set(tenantId, { context, weight });
    heldBytes += weight;
    for (const [id, entry] of held) {
      if (held.size <= limits.maxEntries && heldBytes <= limits.maxBytes) break;
      held.delete(id);
      heldBytes -= entry.weight;
    }
  };

  const load = async (client: Pick<PoolClient, 'query'>, tenantId: string) => {
    // MCP servers bump run_context_version too (migration 345), so whether there are any is
    // known under the same version as the rest.
    const { rows } = await client.query<{ run_context_version: string; mcp_servers: boolean }>(
      `SELECT run_context_version, EXISTS (SELECT 1 FROM mcp_servers) AS mcp_servers
         FROM tenants WHERE id = $1`,
      [tenantId],
    );
    const redactor = await vault.redactorIn(client, tenantId);
    const settings = await selectAgentSettings(client, tenantId);
    const context: TenantRunContext = {
      version: rows[0]?.run_context_version ?? '0',
      redactor,
      httpAllowedHosts: settings.http_allowed_hosts,
      defaultModels: settings.default_models,
      skills: skills ? await skills.listIn(client) : [],
      hasMcpServers: rows[0]?.mcp_servers ?? false,
    };
    keep(tenantId, context);
    return context;
  };

  const read = (tenantId: string): Promise<TenantRunContext> => {
    // Runs of one tenant claimed together share one read.
    let pending = reading.get(tenantId);
    if (!pending) {
      pending = withTenant(pool, tenantId, (client) => load(client, tenantId));
      reading.set(tenantId, pending);
      const done = () => reading.delete(tenantId);
      pending.then(done, done);
    }
    return pending;
  };

  const toWarm = new Set<string>();
  let warming = 0;
  const pump = () => {
    for (const tenantId of toWarm) {
      if (warming >= WARM_READS_AT_ONCE) return;
      toWarm.delete(tenantId);
      if (held.has(tenantId) || reading.has(tenantId)) continue;
      warming += 1;
      // A failed read ahead costs nothing: the tenant's first run reads again and reports it.
      read(tenantId)
        .catch(() => {})
        .finally(() => {
          warming -= 1;
          pump();
        });
    }
  };

  return {
    load,
    warm(tenantIds) {
      for (const tenantId of tenantIds) {
        if (toWarm.size >= limits.maxEntries) break;
        if (!held.has(tenantId)) toWarm.add(tenantId);
      }
      pump();
    },
    async get(tenantId, version) {
      const wanted = BigInt(version);
      const entry = held.get(tenantId);
      if (entry && BigInt(entry.context.version) >= wanted) {
        held.delete(tenantId);
        held.set(tenantId, entry);
        return entry.context;
      }
      const context = await read(tenantId);
      // A shared read that began before this version committed is not enough: one more, which
      // begins after it (a tenant gone meanwhile reads as version 0: that one is used).
      return BigInt(context.version) >= wanted ? context : read(tenantId);
    },
  };
}
