// tenant_agent_settings (migration 221): the tenant's http_allowed_hosts. The admin writes it
// (withAdmin); the tenant and its runs read it (withTenant).
import type { PoolClient } from '../db/pool.js';

type Query = Pick<PoolClient, 'query'>;

export interface AgentSettings {
  http_allowed_hosts: string[];
  updated_at: string | null;
}

/** The settings of the transaction's tenant (or tenantId's, for the admin). */
export async function selectAgentSettings(client: Query, tenantId: string): Promise<AgentSettings> {
  const { rows } = await client.query<{ http_allowed_hosts: string[]; updated_at: Date }>(
    'SELECT http_allowed_hosts, updated_at FROM tenant_agent_settings WHERE tenant_id = $1',
    [tenantId],
  );
  const row = rows[0];
  return {
    http_allowed_hosts: row?.http_allowed_hosts ?? [],
    updated_at: row ? row.updated_at.toISOString() : null,
  };
}

export async function upsertHttpAllowedHosts(
  client: Query,
  tenantId: string,
  hosts: readonly string[],
): Promise<AgentSettings> {
  const { rows } = await client.query<{ http_allowed_hosts: string[]; updated_at: Date }>(
    `INSERT INTO tenant_agent_settings (tenant_id, http_allowed_hosts) VALUES ($1, $2)
     ON CONFLICT (tenant_id) DO UPDATE SET http_allowed_hosts = EXCLUDED.http_allowed_hosts,
       updated_at = now()
     RETURNING http_allowed_hosts, updated_at`,
    [tenantId, hosts],
  );
  const row = rows[0] as { http_allowed_hosts: string[]; updated_at: Date };
  return { http_allowed_hosts: row.http_allowed_hosts, updated_at: row.updated_at.toISOString() };
}
