import type { AttemptOutcome, DeliveryRow, DeliveryStatus } from './delivery-store.js';
import type { EndpointRow } from './endpoint-store.js';
import { messageIdOf, type EventType } from './events.js';

// What the API (and the cronjob tool) shows of endpoints and deliveries. The secret is shown
// once, when created or rotated, never in a read.

export interface EndpointView {
  id: string;
  url: string;
  description: string;
  /** Null: every event type. */
  events: EventType[] | null;
  job_id: string | null;
  enabled: boolean;
  disabled_reason: 'gone' | 'failing' | null;
  failing_since: string | null;
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface EndpointWithSecret extends EndpointView {
  secret: string;
}

export interface AttemptView {
  attempt: number;
  attempted_at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  outcome: AttemptOutcome;
  next_attempt_at: string | null;
}

export interface DeliveryView {
  id: string;
  webhook_id: string;
  endpoint_id: string;
  job_id: string | null;
  run_id: string | null;
  event_type: EventType;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
  attempt_history: AttemptView[];
}

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

export function toEndpointView(row: EndpointRow, now: Date): EndpointView {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.events.length === 0 ? null : row.events,
    job_id: row.cron_job_id,
    enabled: row.enabled,
    disabled_reason: row.disabled_reason,
    failing_since: iso(row.failing_since),
    previous_secret_expires_at:
      row.previous_secret_expires_at && row.previous_secret_expires_at.getTime() > now.getTime()
        ? row.previous_secret_expires_at.toISOString()
        : null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function toDeliveryView(row: DeliveryRow): DeliveryView {
  return {
    id: row.id,
    webhook_id: messageIdOf(row.id),
    endpoint_id: row.endpoint_id,
    job_id: row.cron_job_id,
    run_id: row.run_id,
    event_type: row.event_type,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at.toISOString() : null,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    created_at: row.created_at.toISOString(),
    delivered_at: iso(row.delivered_at),
    attempt_history: row.attempt_history.map((a) => ({
      attempt: a.attempt,
      attempted_at: a.attempted_at.toISOString(),
      duration_ms: a.duration_ms,
      status_code: a.status_code,
      error: a.error,
      outcome: a.outcome,
      next_attempt_at: iso(a.next_attempt_at),
    })),
  };
}
