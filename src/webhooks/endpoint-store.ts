import { PAGE_KEY_FORMAT, type PagePosition } from '../db/jobs.js';
import type { PoolClient } from '../db/pool.js';
import type { EventType } from './events.js';
import type { StoredSecret } from './secret-seal.js';

// Tenant-scoped statements on webhook_endpoints (inside withTenant; RLS limits them to the tenant).
// No statement here reads a secret back: only the sender's claim does, to sign (secret-seal.ts).

export interface EndpointRow {
  id: string;
  tenant_id: string;
  url: string;
  description: string;
  events: EventType[];
  cron_job_id: string | null;
  enabled: boolean;
  disabled_reason: 'gone' | 'failing' | null;
  previous_secret_expires_at: Date | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, tenant_id, url, description, events, cron_job_id, enabled, disabled_reason,
  previous_secret_expires_at, failing_since, created_at, updated_at`;

export interface EndpointFields {
  url: string;
  description: string;
  events: EventType[];
  cronJobId: string | null;
  enabled: boolean;
}

/** The id is the caller's: the sealed secret is bound to it. */
export async function insertEndpoint(
  client: PoolClient,
  ids: { id: string; tenantId: string },
  fields: EndpointFields,
  secret: StoredSecret,
): Promise<EndpointRow> {
  const { rows } = await client.query<EndpointRow>(
    `INSERT INTO webhook_endpoints
       (id, tenant_id, url, description, events, cron_job_id, enabled, secret, secret_sealed)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${COLUMNS}`,
    [
      ids.id,
      ids.tenantId,
      fields.url,
      fields.description,
      fields.events,
      fields.cronJobId,
      fields.enabled,
      secret.plain,
      secret.sealed,
    ],
  );
  return rows[0] as EndpointRow;
}

/** Enabling an endpoint clears why it was disabled and its failing streak. */
export async function updateEndpoint(
  client: PoolClient,
  id: string,
  fields: EndpointFields,
): Promise<EndpointRow | undefined> {
  const { rows } = await client.query<EndpointRow>(
    `UPDATE webhook_endpoints
        SET url = $2, description = $3, events = $4, cron_job_id = $5, enabled = $6,
            disabled_reason = CASE WHEN $6 THEN NULL ELSE disabled_reason END,
            failing_since = CASE WHEN $6 AND NOT enabled THEN NULL ELSE failing_since END,
            updated_at = now()
      WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, fields.url, fields.description, fields.events, fields.cronJobId, fields.enabled],
  );
  return rows[0];
}

/** A new secret; the current one keeps signing (beside it) until `overlapSeconds` from now. */
export async function rotateEndpointSecret(
  client: PoolClient,
  id: string,
  secret: StoredSecret,
  overlapSeconds: number,
): Promise<EndpointRow | undefined> {
  const { rows } = await client.query<EndpointRow>(
    `UPDATE webhook_endpoints
        SET previous_secret = secret, previous_secret_sealed = secret_sealed,
            secret = $2, secret_sealed = $3,
            previous_secret_expires_at = now() + make_interval(secs => $4),
            updated_at = now()
      WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, secret.plain, secret.sealed, overlapSeconds],
  );
  return rows[0];
}

export async function selectEndpoint(
  client: PoolClient,
  id: string,
  forUpdate = false,
): Promise<EndpointRow | undefined> {
  const { rows } = await client.query<EndpointRow>(
    `SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
    [id],
  );
  return rows[0];
}

export async function deleteEndpoint(client: PoolClient, id: string): Promise<boolean> {
  const { rowCount } = await client.query('DELETE FROM webhook_endpoints WHERE id = $1', [id]);
  return (rowCount ?? 0) > 0;
}

export async function countEndpoints(client: PoolClient): Promise<number> {
  const { rows } = await client.query<{ count: number }>(
    'SELECT count(*)::integer AS count FROM webhook_endpoints',
  );
  return rows[0]?.count ?? 0;
}

/** Newest first; `before` is the (created_at, id) of the last row of the previous page. */
export async function listEndpoints(
  client: PoolClient,
  limit: number,
  before: PagePosition | null,
  cronJobId: string | null,
): Promise<(EndpointRow & { page_key: string })[]> {
  const { rows } = await client.query<EndpointRow & { page_key: string }>(
    `SELECT ${COLUMNS}, to_char(created_at AT TIME ZONE 'UTC', ${PAGE_KEY_FORMAT}) AS page_key
       FROM webhook_endpoints
      WHERE ($1::timestamptz IS NULL OR (created_at, id) < ($1::timestamptz, $2::uuid))
        AND ($4::uuid IS NULL OR cron_job_id = $4::uuid)
      ORDER BY created_at DESC, id DESC LIMIT $3`,
    [before?.at ?? null, before?.id ?? null, limit, cronJobId],
  );
  return rows;
}

export async function jobExists(client: PoolClient, jobId: string): Promise<boolean> {
  const { rows } = await client.query(
    'SELECT 1 FROM cron_jobs WHERE id = $1 AND deleted_at IS NULL',
    [jobId],
  );
  return rows.length > 0;
}
