// The webhook shapes of the REST API (docs/webhooks.md), as the dashboard reads them: generated
// from /openapi.json (api.gen.ts).
import type { components } from './api.gen';

type Schemas = components['schemas'];

export type EventType = NonNullable<Schemas['Webhook']['events']>[number];
export const EVENT_TYPES: EventType[] = ['run.succeeded', 'run.failed', 'job.paused'];

/** An endpoint; the answer to a create or a rotation carries its new secret too. */
export type WebhookEndpoint = Schemas['Webhook'] & {
  secret?: Schemas['WebhookWithSecret']['secret'];
};
export type WebhookAttempt = Schemas['WebhookAttempt'];
export type WebhookDelivery = Schemas['WebhookDelivery'];

/** Why an endpoint is off, in words. */
export function disabledText(endpoint: WebhookEndpoint): string | null {
  if (endpoint.enabled) return null;
  if (endpoint.disabled_reason === 'gone') return 'disabled: the receiver answered 410 Gone';
  if (endpoint.disabled_reason === 'failing') return 'disabled: every delivery failed for 5 days';
  return 'paused';
}
