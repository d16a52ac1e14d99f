import type { Pool } from '../db/pool.js';
import type { RunView } from '../jobs/view.js';
import type { AttemptOutcome } from './delivery-store.js';
import type { EventType } from './events.js';
import type { StoredSecret } from './secret-seal.js';

// The sender's statements, across tenants: each goes through a SECURITY DEFINER function of
// migrations/functions/ (webhook_claim_deliveries, webhook_finish_delivery, ...).

export interface ClaimedDelivery {
  deliveryId: string;
  tenantId: string;
  endpointId: string;
  url: string;
  /** As stored: sealed, or plain for a row not sealed yet (secret-seal.ts opens it). */
  secret: StoredSecret;
  /** The secret before a rotation, while it still signs beside the new one. */
  previousSecret: StoredSecret | null;
  eventType: EventType;
  /** Attempts recorded before this one. */
  attempts: number;
  createdAt: Date;
  /** Null for an event of no job (channel.disabled). */
  jobId: string | null;
  /** The run of a run event; null for a job event. */
  runId: string | null;
  /**
   * The event's data, frozen when the delivery was queued (webhook_run_event_data):
   * every attempt sends these bytes. Null only when the run was gone before it could be frozen.
   */
  payload: RunEventData | JobPausedData | null;
}

/** The data of a run event: the run as the runs list showed it when it was recorded. */
export interface RunEventData extends RunView {
  job_id: string;
  job_name: string;
}

/** The data of a job.paused event (migration 251's trigger writes it). */
export interface JobPausedData {
  job_id: string;
  job_name: string;
  paused_at: string | null;
  paused_by: 'user' | 'system' | null;
  paused_reason: string | null;
  stopped_by: string | null;
  consecutive_failures: number;
  run_count: number;
  labels: Record<string, string>;
}

interface ClaimRow {
  delivery_id: string;
  tenant_id: string;
  endpoint_id: string;
  url: string;
  secret: string | null;
  secret_sealed: Buffer | null;
  previous_secret: string | null;
  previous_secret_sealed: Buffer | null;
  event_type: EventType;
  attempts: number;
  created_at: Date;
  cron_job_id: string | null;
  run_id: string | null;
  payload: RunEventData | JobPausedData | null;
}

export interface ClaimLimits {
  podId: string;
  limit: number;
  perTenant: number;
  leaseMs: number;
}

export async function claimDeliveries(pool: Pool, limits: ClaimLimits): Promise<ClaimedDelivery[]> {
  const { rows } = await pool.query<ClaimRow>(
    'SELECT * FROM webhook_claim_deliveries($1, $2, $3, $4)',
    [limits.podId, limits.limit, limits.perTenant, Math.ceil(limits.leaseMs / 1000)],
  );
  return rows.map((row) => ({
    deliveryId: row.delivery_id,
    tenantId: row.tenant_id,
    endpointId: row.endpoint_id,
    url: row.url,
    secret: { plain: row.secret, sealed: row.secret_sealed },
    previousSecret:
      row.previous_secret === null && row.previous_secret_sealed === null
        ? null
        : { plain: row.previous_secret, sealed: row.previous_secret_sealed },
    eventType: row.event_type,
    attempts: row.attempts,
    createdAt: row.created_at,
    jobId: row.cron_job_id,
    runId: row.run_id,
    payload: row.payload,
  }));
}

export interface AttemptRecord {
  deliveryId: string;
  podId: string;
  outcome: AttemptOutcome;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  nextAttemptAt: Date | null;
  disableAfterMs: number;
}

export interface FinishAnswer {
  status: string;
  /** Set when this attempt disabled the endpoint. */
  disabledReason: 'gone' | 'failing' | null;
}

export async function finishDelivery(pool: Pool, record: AttemptRecord): Promise<FinishAnswer> {
  const { rows } = await pool.query<{ status: string; disabled_reason: 'gone' | 'failing' | null }>(
    'SELECT * FROM webhook_finish_delivery($1, $2, $3, $4, $5, $6, $7, $8)',
    [
      record.deliveryId,
      record.podId,
      record.outcome,
      record.statusCode,
      record.error,
      Math.round(record.durationMs),
      record.nextAttemptAt,
      Math.ceil(record.disableAfterMs / 1000),
    ],
  );
  return { status: rows[0]?.status ?? 'gone', disabledReason: rows[0]?.disabled_reason ?? null };
}

export async function cancelDelivery(
  pool: Pool,
  deliveryId: string,
  podId: string,
  reason: string,
): Promise<void> {
  await pool.query('SELECT webhook_cancel_delivery($1, $2, $3)', [deliveryId, podId, reason]);
}

export async function readQueueStats(
  pool: Pool,
): Promise<{ pending: number; oldestPendingSeconds: number }> {
  const { rows } = await pool.query<{ pending: string; oldest_pending_seconds: number }>(
    'SELECT pending, oldest_pending_seconds FROM webhook_queue_stats()',
  );
  return {
    pending: Number(rows[0]?.pending ?? 0),
    oldestPendingSeconds: Number(rows[0]?.oldest_pending_seconds ?? 0),
  };
}

/** Removes up to `limit` finished deliveries older than `olderThanMs`; how many went. */
export async function pruneDeliveries(
  pool: Pool,
  olderThanMs: number,
  limit: number,
): Promise<number> {
  const { rows } = await pool.query<{ removed: number }>(
    'SELECT webhook_prune_deliveries($1, $2) AS removed',
    [Math.ceil(olderThanMs / 1000), limit],
  );
  return rows[0]?.removed ?? 0;
}
