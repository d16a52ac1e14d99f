// The event types a webhook endpoint can subscribe to. `job.paused` waits for per-job controls
// (the system does not pause jobs by itself yet), so it is not offered.
export const EVENT_TYPES = ['run.succeeded', 'run.failed'] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** The event a finished run produces. */
export function eventTypeOfRun(status: 'success' | 'failed'): EventType {
  return status === 'success' ? 'run.succeeded' : 'run.failed';
}

/** The Standard Webhooks `webhook-id` of a delivery: one per run × endpoint, kept on retries. */
export function messageIdOf(deliveryId: string): string {
  return `msg_${deliveryId.replaceAll('-', '')}`;
}
