import { createHash, randomBytes } from 'node:crypto';
import type { Scope } from '../domain/scopes.js';
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
  /** NULL: every scope (a key made before scopes existed). */
  scopes: Scope[] | null;
  last_used_at: Date | null;
}

const KEY_COLUMNS =
  'id, tenant_id, name, key_prefix, expires_at, revoked_at, created_at, scopes, last_used_at';

/** Inserts a key (admin or the key's tenant); returns the row and the raw key, never stored. */
export async function insertApiKey(
  client: PoolClient,
  input: { tenantId: string; name: string; expiresAt?: Date | null; scopes: readonly Scope[] },
): Promise<{ row: ApiKeyRow; rawKey: string }> {
  const rawKey = generateApiKey();
  const { rows } = await client.query<ApiKeyRow>(
    `INSERT INTO api_keys (tenant_id, name, key_hash, key_prefix, expires_at, scopes)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${KEY_COLUMNS}`,
    [
      input.tenantId,
      input.name,
      hashApiKey(rawKey),
      rawKey.slice(0, 8),
      input.expiresAt ?? null,
      [...input.scopes],
    ],
  );
  return { row: rows[0] as ApiKeyRow, rawKey };
}

export interface FoundApiKey {
  key_id: string;
  tenant_id: string;
  name: string;
  scopes: Scope[] | null;
}

/** The live key with this raw value, across tenants (through the narrow SECURITY DEFINER lookup). */
export async function findApiKey(
  client: Pick<PoolClient, 'query'>,
  rawKey: string,
): Promise<FoundApiKey | undefined> {
  const { rows } = await client.query<FoundApiKey>(
    'SELECT key_id, tenant_id, name, scopes FROM auth_find_api_key($1)',
    [hashApiKey(rawKey)],
  );
  return rows[0];
}

/** Stamps last_used_at (the SQL writes at most once a minute per key). */
export async function touchApiKey(client: Pick<PoolClient, 'query'>, keyId: string) {
  await client.query('SELECT auth_touch_api_key($1)', [keyId]);
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

/**
 * Revokes (keeps the row, so the key's history stays visible); returns the key as it was, or
 * undefined if unknown, already revoked or (in a tenant's transaction) another tenant's.
 */
export async function revokeApiKey(client: PoolClient, id: string): Promise<ApiKeyRow | undefined> {
  const { rows } = await client.query<ApiKeyRow>(
    `UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL
     RETURNING ${KEY_COLUMNS}`,
    [id],
  );
  return rows[0];
}
