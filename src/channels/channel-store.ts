// Tenant-scoped statements on channels, tenant rules and channel deliveries: each runs on a
// client inside withTenant, so row-level security limits it to the transaction's tenant.
import type { PoolClient } from '../db/pool.js';
import { PAGE_KEY_FORMAT, type PagePosition } from '../db/jobs.js';
import type { ChannelKind } from './kinds.js';

type Query = Pick<PoolClient, 'query'>;

export interface ChannelRow {
  id: string;
  tenant_id: string;
  kind: ChannelKind;
  name: string;
  config: Record<string, unknown>;
  enabled: boolean;
  disabled_reason: 'failing' | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
  page_key: string;
}

const CHANNEL_COLUMNS = `id, tenant_id, kind, name, config, enabled, disabled_reason, failing_since,
  created_at, updated_at, to_char(created_at AT TIME ZONE 'UTC', ${PAGE_KEY_FORMAT}) AS page_key`;

export async function countChannels(client: Query): Promise<number> {
  const { rows } = await client.query<{ count: number }>(
    'SELECT count(*)::integer AS count FROM notify_channels',
  );
  return rows[0]?.count ?? 0;
}

export async function insertChannel(
  client: Query,
  tenantId: string,
  values: { id: string; kind: ChannelKind; name: string; config: unknown; enabled: boolean },
): Promise<ChannelRow> {
  const { rows } = await client.query<ChannelRow>(
    `INSERT INTO notify_channels (id, tenant_id, kind, name, config, enabled)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${CHANNEL_COLUMNS}`,
    [values.id, tenantId, values.kind, values.name, JSON.stringify(values.config), values.enabled],
  );
  return rows[0] as ChannelRow;
}

export async function updateChannel(
  client: Query,
  id: string,
  values: { name: string; config: unknown; enabled: boolean },
): Promise<ChannelRow | undefined> {
  const { rows } = await client.query<ChannelRow>(
    `UPDATE notify_channels
        SET name = $2, config = $3, enabled = $4, updated_at = now(),
            disabled_reason = CASE WHEN $4 THEN NULL ELSE disabled_reason END,
            failing_since = CASE WHEN $4 AND NOT enabled THEN NULL ELSE failing_since END
      WHERE id = $1 RETURNING ${CHANNEL_COLUMNS}`,
    [id, values.name, JSON.stringify(values.config), values.enabled],
  );
  return rows[0];
}

export async function selectChannel(
  client: Query,
  id: string,
  forUpdate = false,
): Promise<ChannelRow | undefined> {
  const { rows } = await client.query<ChannelRow>(
    `SELECT ${CHANNEL_COLUMNS} FROM notify_channels WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
    [id],
  );
  return rows[0];
}

export async function deleteChannel(client: Query, id: string): Promise<boolean> {
  const { rowCount } = await client.query('DELETE FROM notify_channels WHERE id = $1', [id]);
  return (rowCount ?? 0) > 0;
}

export async function listChannels(
  client: Query,
  limit: number,
  before: PagePosition | null,
): Promise<ChannelRow[]> {
  const { rows } = await client.query<ChannelRow>(
    `SELECT ${CHANNEL_COLUMNS} FROM notify_channels
      WHERE $2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::uuid)
      ORDER BY created_at DESC, id DESC LIMIT $1`,
    [limit, before?.at ?? null, before?.id ?? null],
  );
  return rows;
}

/** The ids among `ids` that are channels of the tenant. */
export async function existingChannelIds(
  client: Query,
  ids: readonly string[],
): Promise<Set<string>> {
  const { rows } = await client.query<{ id: string }>(
    'SELECT id FROM notify_channels WHERE id = ANY ($1::uuid[])',
    [ids],
  );
  return new Set(rows.map((row) => row.id));
}

export interface TenantRuleRow {
  channel_id: string;
  notify_when: string;
  failures: number | null;
  template: string | null;
}

export async function selectTenantRules(client: Query): Promise<TenantRuleRow[]> {
  const { rows } = await client.query<TenantRuleRow>(
    `SELECT channel_id, notify_when, failures, template FROM notify_tenant_rules
      ORDER BY position, created_at`,
  );
  return rows;
}

export async function replaceTenantRules(
  client: Query,
  tenantId: string,
  rules: readonly TenantRuleRow[],
): Promise<void> {
  await client.query('DELETE FROM notify_tenant_rules');
  if (rules.length === 0) return;
  await client.query(
    `INSERT INTO notify_tenant_rules (tenant_id, channel_id, notify_when, failures, template, position)
     SELECT $1, r.channel_id, r.notify_when, r.failures, r.template, r.n
       FROM unnest($2::uuid[], $3::text[], $4::integer[], $5::text[])
            WITH ORDINALITY AS r (channel_id, notify_when, failures, template, n)`,
    [
      tenantId,
      rules.map((rule) => rule.channel_id),
      rules.map((rule) => rule.notify_when),
      rules.map((rule) => rule.failures),
      rules.map((rule) => rule.template),
    ],
  );
}

export interface ChannelDeliveryRow {
  id: string;
  channel_id: string;
  cron_job_id: string | null;
  run_id: string | null;
  run_status: string | null;
  reason: string;
  status: 'pending' | 'delivered' | 'failed' | 'cancelled';
  attempts: number;
  next_attempt_at: Date;
  last_status_code: number | null;
  last_error: string | null;
  last_response: string | null;
  created_at: Date;
  delivered_at: Date | null;
  page_key: string;
  history: {
    attempt: number;
    attempted_at: string;
    duration_ms: number;
    status_code: number | null;
    error: string | null;
    outcome: string;
  }[];
}

export async function listChannelDeliveries(
  client: Query,
  of: { channelId: string } | { runId: string },
  limit: number,
  before: PagePosition | null,
): Promise<ChannelDeliveryRow[]> {
  const filter = 'channelId' in of ? 'd.channel_id = $1' : 'd.run_id = $1';
  const { rows } = await client.query<ChannelDeliveryRow>(
    `SELECT d.id, d.channel_id, d.cron_job_id, d.run_id, d.run_status, d.reason, d.status,
            d.attempts, d.next_attempt_at, d.last_status_code, d.last_error, d.last_response,
            d.created_at, d.delivered_at,
            to_char(d.created_at AT TIME ZONE 'UTC', ${PAGE_KEY_FORMAT}) AS page_key,
            coalesce((SELECT jsonb_agg(jsonb_build_object(
                        'attempt', a.attempt, 'attempted_at', a.attempted_at,
                        'duration_ms', a.duration_ms, 'status_code', a.status_code,
                        'error', a.error, 'outcome', a.outcome) ORDER BY a.id DESC)
                        FROM (SELECT * FROM channel_delivery_attempts x
                               WHERE x.delivery_id = d.id ORDER BY x.id DESC LIMIT 20) a),
                     '[]'::jsonb) AS history
       FROM channel_deliveries d
      WHERE ${filter}
        AND ($3::timestamptz IS NULL OR (d.created_at, d.id) < ($3::timestamptz, $4::uuid))
      ORDER BY d.created_at DESC, d.id DESC LIMIT $2`,
    ['channelId' in of ? of.channelId : of.runId, limit, before?.at ?? null, before?.id ?? null],
  );
  return rows;
}

export async function selectChannelDelivery(
  client: Query,
  id: string,
): Promise<{ id: string; channel_id: string; status: string } | undefined> {
  const { rows } = await client.query<{ id: string; channel_id: string; status: string }>(
    'SELECT id, channel_id, status FROM channel_deliveries WHERE id = $1',
    [id],
  );
  return rows[0];
}

/** A finished delivery due again now (same message); false while it is pending. */
export async function requeueChannelDelivery(client: Query, id: string): Promise<boolean> {
  const { rowCount } = await client.query(
    `UPDATE channel_deliveries
        SET status = 'pending', next_attempt_at = now(), leased_by = NULL, updated_at = now(),
            delivered_at = NULL
      WHERE id = $1 AND status <> 'pending'`,
    [id],
  );
  return (rowCount ?? 0) > 0;
}
