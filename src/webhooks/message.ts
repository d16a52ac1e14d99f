// A delivery on the wire, as Standard Webhooks (standardwebhooks.com) defines it: the body is
// rendered from the event's data as it was frozen when the delivery was queued (never from the
// run as it is at send time), so every attempt of a delivery sends the same bytes; the headers
// are signed by the maintained `standardwebhooks` package (no HMAC of our own).
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { messageIdOf, type EventType } from './events.js';
import type { ClaimedDelivery, JobPausedData, RunEventData } from './outbox.js';

export interface WebhookMessage {
  /** `webhook-id`: the same on every attempt of a delivery. */
  id: string;
  body: string;
}

/**
 * `{"type","timestamp","data"}`; `timestamp` is when the run finished, or when the job paused
 * (the event's time). A delivery has its frozen data (the sender checks).
 */
export function renderMessage(delivery: ClaimedDelivery): WebhookMessage {
  if (delivery.runId === null) {
    const data = delivery.payload as JobPausedData;
    const payload = {
      type: delivery.eventType,
      timestamp: data.paused_at ?? delivery.createdAt.toISOString(),
      data: { ...data, paused_at: data.paused_at && new Date(data.paused_at).toISOString() },
    };
    return { id: messageIdOf(delivery.deliveryId), body: JSON.stringify(payload) };
  }
  const data = delivery.payload as RunEventData;
  const payload: { type: EventType; timestamp: string; data: RunEventData } = {
    type: delivery.eventType,
    timestamp: data.finished_at ?? data.created_at,
    data,
  };
  return { id: messageIdOf(delivery.deliveryId), body: JSON.stringify(payload) };
}

/**
 * The three Standard Webhooks headers. After a rotation both secrets sign: `webhook-signature`
 * carries `v1,<new> v1,<old>`, and a receiver holding either secret accepts the message.
 */
export function signMessage(
  message: WebhookMessage,
  secrets: readonly string[],
  sentAt: Date,
): Record<string, string> {
  const signatures = secrets.map((secret) =>
    new Webhook(secret).sign(message.id, sentAt, message.body),
  );
  return {
    'webhook-id': message.id,
    'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}

/** A new Standard Webhooks secret: `whsec_` and 24 random bytes in base64. */
export function generateSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}
