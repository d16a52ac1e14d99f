import { createHash, randomBytes } from 'node:crypto';
import type { PoolClient } from './pool.js';

export const API_KEY_PREFIX = 'hk_';

/** Keys are stored only as their SHA-256; a key has 192 random bits, so no salt or KDF is needed. */
export function hashApiKey(rawKey: string): string {
  return createHash('sha256').update(rawKey).digest('hex');
}

export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(24).toString('base64url');
}

export interface ApiKeyRow {
  id: string;
  tenant_id: string;
  name: string;
  key_prefix: string;
  expires_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
}

const KEY_COLUMNS = 'id, tenant_id, name, key_prefix, expires_at, revoked_at, created_at';

/** Inserts a key (admin transaction); returns the row and the raw key, which is never stored. */
export async function insertApiKey(
  client: PoolClient,
  input: { tenantId: string; name: string; expiresAt?: Date | null },
): Promise<{ row: ApiKeyRow; rawKey: string }> {
  const rawKey = generateApiKey();
  const { rows } = await client.query<ApiKeyRow>(
    `INSERT INTO api_keys (tenant_id, name, key_hash, key_prefix, expires_at)
     VALUES ($1, $2, $3, $4, $5) RETURNING ${KEY_COLUMNS}`,
    [input.tenantId, input.name, hashApiKey(rawKey), rawKey.slice(0, 8), input.expiresAt ?? null],
  );
  return { row: rows[0] as ApiKeyRow, rawKey };
}

/** The live key with this raw value, across tenants (through the narrow SECURITY DEFINER lookup). */
export async function findApiKey(
  client: Pick<PoolClient, 'query'>,
  rawKey: string,
): Promise<{ key_id: string; tenant_id: string } | undefined> {
  const { rows } = await client.query<{ key_id: string; tenant_id: string }>(
    'SELECT key_id, tenant_id FROM auth_find_api_key($1)',
    [hashApiKey(rawKey)],
  );
  return rows[0];
}

export async function listApiKeys(
  client: PoolClient,
  tenantId: string | null,
): Promise<ApiKeyRow[]> {
  const { rows } = await client.query<ApiKeyRow>(
    `SELECT ${KEY_COLUMNS} FROM api_keys WHERE $1::uuid IS NULL OR tenant_id = $1
     ORDER BY created_at, id`,
    [tenantId],
  );
  return rows;
}

/** Revokes (keeps the row, so the key's history stays visible); false if unknown or already revoked. */
export async function revokeApiKey(client: PoolClient, id: string): Promise<boolean> {
  const { rowCount } = await client.query(
    'UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL',
    [id],
  );
  return (rowCount ?? 0) > 0;
}
