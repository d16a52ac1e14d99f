import type { PoolClient } from './pool.js';

export interface IdempotencyRow {
  request_hash: string;
  status_code: number | null;
  response: unknown;
  age_ms: number;
}

/**
 * Forgets the tenant's answers older than the window: their keys may be used again, and a
 * tenant's table holds at most one window of keys (cleaned whenever it sends one).
 */
export async function deleteExpiredKeys(client: PoolClient, windowMs: number): Promise<void> {
  await client.query(
    `DELETE FROM idempotency_keys
      WHERE tenant_id = app_current_tenant()
        AND created_at < now() - make_interval(secs => $1::double precision / 1000)`,
    [windowMs],
  );
}

/**
 * Keeps the tenant's table within `maxKeys` rows before one more is taken: the oldest answered
 * keys go first (their retries then run again); keys still being answered stay.
 */
export async function evictOldestKeys(client: PoolClient, maxKeys: number): Promise<void> {
  await client.query(
    `DELETE FROM idempotency_keys k
      USING (SELECT scope, key FROM idempotency_keys
              WHERE tenant_id = app_current_tenant() AND status_code IS NOT NULL
              ORDER BY created_at DESC OFFSET $1) old
      WHERE k.tenant_id = app_current_tenant() AND k.scope = old.scope AND k.key = old.key`,
    [Math.max(0, maxKeys - 1)],
  );
}

/** Renews the lease of a key still being answered, so a long turn keeps it. */
export async function touchPendingKey(
  client: PoolClient,
  scope: string,
  key: string,
): Promise<void> {
  await client.query(
    `UPDATE idempotency_keys SET created_at = now()
      WHERE tenant_id = app_current_tenant() AND scope = $1 AND key = $2 AND status_code IS NULL`,
    [scope, key],
  );
}

/** Takes the key for a first request; false when another request already has it. */
export async function insertPendingKey(
  client: PoolClient,
  scope: string,
  key: string,
  requestHash: string,
): Promise<boolean> {
  const { rowCount } = await client.query(
    `INSERT INTO idempotency_keys (tenant_id, scope, key, request_hash)
     VALUES (app_current_tenant(), $1, $2, $3) ON CONFLICT DO NOTHING`,
    [scope, key, requestHash],
  );
  return rowCount === 1;
}

export async function selectKey(
  client: PoolClient,
  scope: string,
  key: string,
): Promise<IdempotencyRow | undefined> {
  const { rows } = await client.query<IdempotencyRow>(
    `SELECT request_hash, status_code, response,
            (extract(epoch FROM now() - created_at) * 1000)::double precision AS age_ms
       FROM idempotency_keys
      WHERE tenant_id = app_current_tenant() AND scope = $1 AND key = $2`,
    [scope, key],
  );
  const row = rows[0];
  return row && { ...row, response: fromJsonb(row.response) };
}

/** Stores the answer of the request that held the key. */
export async function completeKey(
  client: PoolClient,
  scope: string,
  key: string,
  statusCode: number,
  response: unknown,
): Promise<void> {
  await client.query(
    `UPDATE idempotency_keys SET status_code = $3, response = $4
      WHERE tenant_id = app_current_tenant() AND scope = $1 AND key = $2`,
    [scope, key, statusCode, toJsonb(response)],
  );
}

/** Gives the key up after a failure that changed nothing, so a retry may run. */
export async function deleteKey(client: PoolClient, scope: string, key: string): Promise<void> {
  await client.query(
    'DELETE FROM idempotency_keys WHERE tenant_id = app_current_tenant() AND scope = $1 AND key = $2',
    [scope, key],
  );
}

/**
 * The answer as a jsonb string holding its JSON text: jsonb cannot hold U+0000 anywhere, but the
 * text JSON.stringify writes has none (it escapes it, and lone surrogates, as \uXXXX), so the
 * replay is the first answer exactly. Answers are objects, so a string is always this form.
 */
function toJsonb(value: unknown): string {
  return JSON.stringify(JSON.stringify(value));
}

/** Rows stored before answers were kept as text hold the object itself. */
function fromJsonb(stored: unknown): unknown {
  return typeof stored === 'string' ? (JSON.parse(stored) as unknown) : stored;
}
