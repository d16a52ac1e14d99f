import { z } from 'zod';
import { EVENT_TYPES } from '../webhooks/events.js';
import { PageQuery } from './schemas.js';

// Request and response shapes of the webhook routes (docs/webhooks.md).

const timestamp = z.string().meta({ format: 'date-time', description: 'RFC 3339 timestamp (UTC)' });
const uuid = z.string().meta({ format: 'uuid' });
const events = z
  .array(z.enum(EVENT_TYPES))
  .max(EVENT_TYPES.length)
  .nullable()
  .describe('event types to send; null or omitted: all of them');

export const WebhookCreateBody = z
  .strictObject({
    url: z
      .string()
      .max(2048)
      .describe('https URL (http too when WEBHOOK_ALLOW_PRIVATE_NETWORKS is true)'),
    events: events.optional(),
    job_id: z.string().max(100).nullable().optional().describe("only this job's runs"),
    description: z.string().max(500).optional(),
    enabled: z.boolean().optional().describe('default true'),
  })
  .meta({ id: 'WebhookCreate' });

export const WebhookPatchBody = z
  .strictObject({
    url: z.string().max(2048),
    events,
    job_id: z.string().max(100).nullable(),
    description: z.string().max(500),
    enabled: z.boolean().describe('true also clears disabled_reason'),
  })
  .partial()
  .refine((patch) => Object.keys(patch).length > 0, 'give at least one field to change')
  .meta({ id: 'WebhookPatch', description: 'at least one field', minProperties: 1 });

const endpointShape = {
  id: uuid,
  url: z.string(),
  description: z.string(),
  events: z.array(z.enum(EVENT_TYPES)).nullable().describe('null: every event type'),
  job_id: uuid.nullable().describe("null: every job's runs"),
  enabled: z.boolean(),
  disabled_reason: z
    .enum(['gone', 'failing'])
    .nullable()
    .describe('set when the system disabled it: the receiver answered 410, or failed for 5 days'),
  failing_since: timestamp.nullable().describe('first failed attempt since the last success'),
  previous_secret_expires_at: timestamp
    .nullable()
    .describe('after a rotation: until then the previous secret also signs'),
  created_at: timestamp,
  updated_at: timestamp,
};

const EXAMPLE = {
  id: '5b1e7c2a-9d4f-4e8b-a1c3-2f6d8e0a4b7c',
  url: 'https://hooks.example.com/hermesx',
  description: 'team channel',
  events: ['run.failed'],
  job_id: null,
  enabled: true,
  disabled_reason: null,
  failing_since: null,
  previous_secret_expires_at: null,
  created_at: '2026-03-01T10:00:00.000Z',
  updated_at: '2026-03-01T10:00:00.000Z',
};

export const Webhook = z.object(endpointShape).meta({ id: 'Webhook', examples: [EXAMPLE] });

export const WebhookWithSecret = z
  .object({
    ...endpointShape,
    secret: z
      .string()
      .describe('Standard Webhooks signing secret (whsec_…): shown only in this answer'),
  })
  .meta({
    id: 'WebhookWithSecret',
    examples: [{ ...EXAMPLE, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }],
  });

const Attempt = z
  .object({
    attempt: z.number().int().min(1),
    attempted_at: timestamp,
    duration_ms: z.number().int().min(0),
    status_code: z.number().int().nullable().describe('null: no HTTP answer'),
    error: z.string().nullable(),
    outcome: z.enum(['delivered', 'retry', 'failed', 'gone', 'refused']),
    next_attempt_at: timestamp.nullable(),
  })
  .meta({ id: 'WebhookAttempt' });

export const WebhookDelivery = z
  .object({
    id: uuid,
    webhook_id: z.string().describe('the webhook-id header: the same on every attempt'),
    endpoint_id: uuid,
    job_id: uuid.nullable().describe('null for an event of no job (channel.disabled)'),
    run_id: uuid.nullable().describe('the run of a run event; null for job.paused'),
    event_type: z.enum(EVENT_TYPES),
    status: z.enum(['pending', 'delivered', 'failed', 'cancelled']),
    attempts: z.number().int().min(0),
    next_attempt_at: timestamp.nullable().describe('when pending: the next attempt'),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    created_at: timestamp.describe('when the run was recorded (and the delivery queued)'),
    delivered_at: timestamp.nullable(),
    attempt_history: z.array(Attempt).describe('the latest 20 attempts, oldest first'),
  })
  .meta({ id: 'WebhookDelivery' });

const pageOf = <T extends z.ZodType>(item: T, id: string) =>
  z
    .object({
      data: z.array(item),
      next_cursor: z
        .string()
        .nullable()
        .describe('pass as `cursor` for the next page; null at the end'),
    })
    .meta({ id });

export const WebhookPage = pageOf(Webhook, 'WebhookPage');
export const WebhookDeliveryPage = pageOf(WebhookDelivery, 'WebhookDeliveryPage');

export const WebhookListQuery = PageQuery.extend({
  job_id: z.string().max(100).optional().describe('only the endpoints attached to this job'),
});
