import { PAGE_KEY_FORMAT, type PagePosition } from '../db/jobs.js';
import type { PoolClient } from '../db/pool.js';
import type { EventType } from './events.js';

// Tenant-scoped statements on webhook_deliveries and their attempts (inside withTenant).

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'cancelled';
export type AttemptOutcome = 'delivered' | 'retry' | 'failed' | 'gone' | 'refused';

export interface AttemptRow {
  attempt: number;
  attempted_at: Date;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  outcome: AttemptOutcome;
  next_attempt_at: Date | null;
}

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  cron_job_id: string | null;
  run_id: string | null;
  event_type: EventType;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date;
  leased_by: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  delivered_at: Date | null;
  /** The latest attempts, oldest first (at most ATTEMPTS_SHOWN). */
  attempt_history: AttemptRow[];
}

/** How many attempts a delivery shows (a redelivered one may have more). */
export const ATTEMPTS_SHOWN = 20;

const SELECT_DELIVERY = `
  SELECT d.id, d.endpoint_id, d.cron_job_id, d.run_id, d.event_type, d.status, d.attempts,
         d.next_attempt_at, d.leased_by, d.last_status_code, d.last_error, d.created_at,
         d.delivered_at,
         to_char(d.created_at AT TIME ZONE 'UTC', ${PAGE_KEY_FORMAT}) AS page_key,
         coalesce((SELECT json_agg(a ORDER BY a.attempt) FROM (
           SELECT x.attempt, x.attempted_at, x.duration_ms, x.status_code, x.error, x.outcome,
                  x.next_attempt_at
             FROM webhook_delivery_attempts x WHERE x.delivery_id = d.id
            ORDER BY x.id DESC LIMIT ${ATTEMPTS_SHOWN}) a), '[]') AS attempt_history
    FROM webhook_deliveries d`;

type ListedDelivery = DeliveryRow & { page_key: string };

/** Deliveries newest first, of one endpoint, one job or one run. */
export async function listDeliveries(
  client: PoolClient,
  filter: { endpointId?: string; cronJobId?: string; runId?: string },
  limit: number,
  before: PagePosition | null,
): Promise<ListedDelivery[]> {
  const { rows } = await client.query<ListedDelivery>(
    `${SELECT_DELIVERY}
      WHERE ($1::uuid IS NULL OR d.endpoint_id = $1::uuid)
        AND ($2::uuid IS NULL OR d.cron_job_id = $2::uuid)
        AND ($3::uuid IS NULL OR d.run_id = $3::uuid)
        AND ($4::timestamptz IS NULL OR (d.created_at, d.id) < ($4::timestamptz, $5::uuid))
      ORDER BY d.created_at DESC, d.id DESC LIMIT $6`,
    [
      filter.endpointId ?? null,
      filter.cronJobId ?? null,
      filter.runId ?? null,
      before?.at ?? null,
      before?.id ?? null,
      limit,
    ],
  );
  return rows.map(withDates);
}

export async function selectDelivery(
  client: PoolClient,
  id: string,
): Promise<DeliveryRow | undefined> {
  const { rows } = await client.query<ListedDelivery>(`${SELECT_DELIVERY} WHERE d.id = $1`, [id]);
  return rows[0] ? withDates(rows[0]) : undefined;
}

/** Queues a finished delivery again, now (same webhook-id); false while it is still pending. */
export async function requeueDelivery(client: PoolClient, id: string): Promise<boolean> {
  const { rowCount } = await client.query(
    `UPDATE webhook_deliveries
        SET status = 'pending', next_attempt_at = now(), leased_by = NULL, updated_at = now()
      WHERE id = $1 AND status <> 'pending'`,
    [id],
  );
  return (rowCount ?? 0) > 0;
}

// json_agg gives timestamps as text; the view expects Dates like the other columns.
function withDates(row: ListedDelivery): ListedDelivery {
  const history = row.attempt_history as unknown as Record<string, unknown>[];
  return {
    ...row,
    attempt_history: history.map((a) => ({
      attempt: Number(a.attempt),
      attempted_at: new Date(String(a.attempted_at)),
      duration_ms: Number(a.duration_ms),
      status_code: a.status_code === null ? null : Number(a.status_code),
      error: (a.error as string | null) ?? null,
      outcome: a.outcome as AttemptOutcome,
      next_attempt_at: a.next_attempt_at ? new Date(String(a.next_attempt_at)) : null,
    })),
  };
}
