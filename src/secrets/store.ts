// The SQL of tenant_secrets (migrations 220, 331): one function per statement, inside withTenant, so
// row-level security scopes every statement to the caller's tenant.
import type { PoolClient } from '../db/pool.js';

export interface SecretRow {
  name: string;
  allowed_hosts: string[];
  created_at: Date;
  updated_at: Date;
}

type Query = Pick<PoolClient, 'query'>;

/** Inserts or replaces a sealed value and its hosts; `created` tells which. */
export async function upsertSecret(
  client: Query,
  tenantId: string,
  name: string,
  sealed: Buffer,
  allowedHosts: readonly string[],
): Promise<SecretRow & { created: boolean }> {
  const { rows } = await client.query<SecretRow & { created: boolean }>(
    `INSERT INTO tenant_secrets (tenant_id, name, sealed_value, allowed_hosts)
     VALUES ($1, $2, $3, $4::text[])
     ON CONFLICT (tenant_id, name)
       DO UPDATE SET sealed_value = EXCLUDED.sealed_value,
                     allowed_hosts = EXCLUDED.allowed_hosts,
                     updated_at = now()
     RETURNING name, allowed_hosts, created_at, updated_at, (xmax = 0) AS created`,
    [tenantId, name, sealed, allowedHosts],
  );
  return rows[0] as SecretRow & { created: boolean };
}

export async function countSecrets(client: Query): Promise<number> {
  const { rows } = await client.query<{ count: string }>(
    'SELECT count(*) AS count FROM tenant_secrets',
  );
  return Number(rows[0]?.count ?? 0);
}

export async function secretExists(client: Query, name: string): Promise<boolean> {
  const { rowCount } = await client.query('SELECT 1 FROM tenant_secrets WHERE name = $1', [name]);
  return (rowCount ?? 0) > 0;
}

export async function listSecretRows(client: Query): Promise<SecretRow[]> {
  const { rows } = await client.query<SecretRow>(
    'SELECT name, allowed_hosts, created_at, updated_at FROM tenant_secrets ORDER BY name',
  );
  return rows;
}

export async function deleteSecretRow(client: Query, name: string): Promise<boolean> {
  const { rowCount } = await client.query('DELETE FROM tenant_secrets WHERE name = $1', [name]);
  return (rowCount ?? 0) > 0;
}

export interface SealedSecretRow {
  name: string;
  sealed_value: Buffer;
  allowed_hosts: string[];
}

/** The sealed values (and hosts) of the names given, or of all the tenant's secrets. */
export async function selectSealedSecrets(
  client: Query,
  names?: readonly string[],
): Promise<SealedSecretRow[]> {
  const { rows } = await client.query<SealedSecretRow>(
    names
      ? 'SELECT name, sealed_value, allowed_hosts FROM tenant_secrets WHERE name = ANY($1::text[])'
      : 'SELECT name, sealed_value, allowed_hosts FROM tenant_secrets',
    names ? [names] : [],
  );
  return rows;
}
