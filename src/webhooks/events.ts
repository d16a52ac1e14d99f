// The event types a webhook endpoint can subscribe to: a run's outcome, and a job that paused
// (by itself: pause_after_failures, max_runs; or by a user), migration 251. The list is the
// vocabulary's, beside the other words the SQL holds.
import { EVENT_TYPES, type EventType } from '../domain/vocabulary.js';

export { EVENT_TYPES, type EventType };

/** The event a finished run produces. */
export function eventTypeOfRun(status: 'success' | 'failed'): EventType {
  return status === 'success' ? 'run.succeeded' : 'run.failed';
}

/** The Standard Webhooks `webhook-id` of a delivery: one per run × endpoint, kept on retries. */
export function messageIdOf(deliveryId: string): string {
  return `msg_${deliveryId.replaceAll('-', '')}`;
}
