// The webhook shapes of the REST API (docs/webhooks.md), as the dashboard reads them.

export type EventType = 'run.succeeded' | 'run.failed' | 'job.paused';
export const EVENT_TYPES: EventType[] = ['run.succeeded', 'run.failed', 'job.paused'];

export interface WebhookEndpoint {
  id: string;
  url: string;
  description: string;
  events: EventType[] | null;
  job_id: string | null;
  enabled: boolean;
  disabled_reason: 'gone' | 'failing' | null;
  failing_since: string | null;
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
  /** Only in the answer to a create or a rotation. */
  secret?: string;
}

export interface WebhookAttempt {
  attempt: number;
  attempted_at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  outcome: 'delivered' | 'retry' | 'failed' | 'gone' | 'refused';
  next_attempt_at: string | null;
}

export interface WebhookDelivery {
  id: string;
  webhook_id: string;
  endpoint_id: string;
  job_id: string;
  run_id: string | null;
  event_type: EventType;
  status: 'pending' | 'delivered' | 'failed' | 'cancelled';
  attempts: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
  attempt_history: WebhookAttempt[];
}

/** Why an endpoint is off, in words. */
export function disabledText(endpoint: WebhookEndpoint): string | null {
  if (endpoint.enabled) return null;
  if (endpoint.disabled_reason === 'gone') return 'disabled: the receiver answered 410 Gone';
  if (endpoint.disabled_reason === 'failing') return 'disabled: every delivery failed for 5 days';
  return 'paused';
}
