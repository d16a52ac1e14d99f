// tenant_agent_settings (migration 221): the tenant's http_allowed_hosts and (migration 350) its
// default_models, the model list of jobs without their own. The admin writes it
// (withAdmin); the tenant and its runs read it (withTenant).
import type { PoolClient } from '../db/pool.js';

type Query = Pick<PoolClient, 'query'>;

export interface AgentSettings {
  http_allowed_hosts: string[];
  default_models: string[];
  updated_at: string | null;
}

interface SettingsRow {
  http_allowed_hosts: string[];
  default_models: string[];
  updated_at: Date;
}

const COLUMNS = 'http_allowed_hosts, default_models, updated_at';

function toSettings(row: SettingsRow | undefined): AgentSettings {
  return {
    http_allowed_hosts: row?.http_allowed_hosts ?? [],
    default_models: row?.default_models ?? [],
    updated_at: row ? row.updated_at.toISOString() : null,
  };
}

/** The settings of the transaction's tenant (or tenantId's, for the admin). */
export async function selectAgentSettings(client: Query, tenantId: string): Promise<AgentSettings> {
  const { rows } = await client.query<SettingsRow>(
    `SELECT ${COLUMNS} FROM tenant_agent_settings WHERE tenant_id = $1`,
    [tenantId],
  );
  return toSettings(rows[0]);
}

/** Replaces the allow-list, and the default models when given (undefined keeps them). */
export async function upsertHttpAllowedHosts(
  client: Query,
  tenantId: string,
  hosts: readonly string[],
  defaultModels?: readonly string[],
): Promise<AgentSettings> {
  const { rows } = await client.query<SettingsRow>(
    `INSERT INTO tenant_agent_settings (tenant_id, http_allowed_hosts, default_models)
     VALUES ($1, $2, coalesce($3, '{}'::text[]))
     ON CONFLICT (tenant_id) DO UPDATE SET http_allowed_hosts = EXCLUDED.http_allowed_hosts,
       default_models = coalesce($3, tenant_agent_settings.default_models), updated_at = now()
     RETURNING ${COLUMNS}`,
    [tenantId, hosts, defaultModels ?? null],
  );
  return toSettings(rows[0]);
}
