// The channel sender's statements, across tenants: each goes through a SECURITY DEFINER function
// of migrations/functions/ (channel_claim_deliveries, channel_finish_delivery, ...).
import type { Pool } from '../db/pool.js';
import type { ChannelOutcome } from './attempt-verdict.js';
import type { ChannelKind } from './kinds.js';
import type { DeliveryPayload } from './message.js';

export interface ClaimedChannelDelivery {
  deliveryId: string;
  tenantId: string;
  channelId: string;
  kind: ChannelKind;
  config: Record<string, unknown>;
  /** Attempts recorded before this one. */
  attempts: number;
  createdAt: Date;
  runId: string | null;
  payload: DeliveryPayload;
}

interface ClaimRow {
  delivery_id: string;
  tenant_id: string;
  channel_id: string;
  kind: ChannelKind;
  config: Record<string, unknown>;
  attempts: number;
  created_at: Date;
  run_id: string | null;
  payload: DeliveryPayload;
}

export async function claimChannelDeliveries(
  pool: Pool,
  limits: { podId: string; limit: number; perTenant: number; leaseMs: number },
): Promise<ClaimedChannelDelivery[]> {
  const { rows } = await pool.query<ClaimRow>(
    'SELECT * FROM channel_claim_deliveries($1, $2, $3, $4)',
    [limits.podId, limits.limit, limits.perTenant, Math.ceil(limits.leaseMs / 1000)],
  );
  return rows.map((row) => ({
    deliveryId: row.delivery_id,
    tenantId: row.tenant_id,
    channelId: row.channel_id,
    kind: row.kind,
    config: row.config,
    attempts: row.attempts,
    createdAt: row.created_at,
    runId: row.run_id,
    payload: row.payload,
  }));
}

export interface ChannelAttemptRecord {
  deliveryId: string;
  podId: string;
  outcome: ChannelOutcome;
  statusCode: number | null;
  error: string | null;
  response: string | null;
  durationMs: number;
  nextAttemptAt: Date | null;
  disableAfterMs: number;
}

export async function finishChannelDelivery(
  pool: Pool,
  record: ChannelAttemptRecord,
): Promise<{ status: string; disabled: boolean }> {
  const { rows } = await pool.query<{ status: string; disabled: boolean }>(
    'SELECT * FROM channel_finish_delivery($1, $2, $3, $4, $5, $6, $7, $8, $9)',
    [
      record.deliveryId,
      record.podId,
      record.outcome,
      record.statusCode,
      record.error,
      record.response,
      Math.round(record.durationMs),
      record.nextAttemptAt,
      Math.ceil(record.disableAfterMs / 1000),
    ],
  );
  return { status: rows[0]?.status ?? 'gone', disabled: rows[0]?.disabled ?? false };
}

export async function pruneChannelDeliveries(
  pool: Pool,
  olderThanMs: number,
  limit: number,
): Promise<number> {
  const { rows } = await pool.query<{ removed: number }>(
    'SELECT channel_prune_deliveries($1, $2) AS removed',
    [Math.ceil(olderThanMs / 1000), limit],
  );
  return rows[0]?.removed ?? 0;
}
