import { z } from 'zod';
import { CHANNEL_KINDS } from '../channels/kinds.js';

// Request and response shapes of the notification channel routes (docs/channels.md).

const timestamp = z.string().meta({ format: 'date-time', description: 'RFC 3339 timestamp (UTC)' });
const uuid = z.string().meta({ format: 'uuid' });
const withoutNul = (text: string) => !text.includes('\u0000');

const configDescription =
  'by kind: slack, discord, teams `{url}`; telegram `{bot_token: "{{secrets.NAME}}", chat_id}`; email `{to: [..], smtp?: {host, port?, security?, username?, password?: "{{secrets.NAME}}", from}}` (docs/channels.md)';

export const ChannelCreateBody = z
  .strictObject({
    kind: z.enum(CHANNEL_KINDS),
    name: z.string().min(1).max(200).refine(withoutNul, 'must not contain NUL'),
    config: z.record(z.string(), z.unknown()).describe(configDescription),
    enabled: z.boolean().optional().describe('default true'),
  })
  .meta({ id: 'ChannelCreate' });

export const ChannelPatchBody = z
  .strictObject({
    name: z.string().min(1).max(200).refine(withoutNul, 'must not contain NUL'),
    config: z.record(z.string(), z.unknown()).describe(`the whole config; ${configDescription}`),
    enabled: z.boolean().describe('true also clears disabled_reason'),
  })
  .partial()
  .refine((patch) => Object.keys(patch).length > 0, 'give at least one field to change')
  .meta({ id: 'ChannelPatch', description: 'at least one field', minProperties: 1 });

const CHANNEL_EXAMPLE = {
  id: '1c7e9a40-2b3d-4f5e-8a9b-0c1d2e3f4a5b',
  kind: 'slack' as const,
  name: 'ops alerts',
  config: { url: 'https://hooks.slack.com/servic…' },
  enabled: true,
  disabled_reason: null,
  failing_since: null,
  created_at: '2026-03-01T10:00:00.000Z',
  updated_at: '2026-03-01T10:00:00.000Z',
};

export const Channel = z
  .object({
    id: uuid,
    kind: z.enum(CHANNEL_KINDS),
    name: z.string(),
    config: z
      .record(z.string(), z.unknown())
      .describe('as given, a webhook URL shortened (it is a credential)'),
    enabled: z.boolean(),
    disabled_reason: z
      .enum(['failing'])
      .nullable()
      .describe('set when the system disabled it: every attempt failed for CHANNEL_DISABLE_AFTER'),
    failing_since: timestamp.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Channel', examples: [CHANNEL_EXAMPLE] });

export const ChannelTestResult = z
  .object({
    delivered: z.boolean(),
    outcome: z.enum(['delivered', 'failed', 'refused']),
    status_code: z.number().int().nullable().describe('HTTP status, or the SMTP reply code'),
    response: z.string().nullable().describe("the platform's answer (its first 500 characters)"),
    error: z.string().nullable().describe('why there was no answer'),
    duration_ms: z.number().int().min(0),
  })
  .meta({ id: 'ChannelTestResult' });

const RULE_WHEN = ['always', 'failed', 'recovered', 'changed', 'agent'] as const;
const TENANT_WHEN = [...RULE_WHEN, 'failures', 'system_paused'] as const;

export const TenantRule = z
  .strictObject({
    channel: z.string().max(100).describe('a channel id'),
    when: z
      .enum(TENANT_WHEN)
      .describe(
        'always|failed|recovered|changed|agent: for jobs without their own `notify`; failures: any job failing `failures` times in a row; system_paused: any job the system pauses',
      ),
    failures: z.number().int().min(1).max(1000).nullable().optional(),
    template: z
      .string()
      .max(4000)
      .refine(withoutNul, 'must not contain NUL')
      .nullable()
      .optional()
      .describe('the message: {{answer}} {{job_name}} {{time}} {{status}} {{link}} {{error}}'),
  })
  .meta({ id: 'ChannelRule' });

export const TenantRules = z
  .object({ rules: z.array(TenantRule).max(20) })
  .meta({ id: 'ChannelRules' });

const Attempt = z
  .object({
    attempt: z.number().int().min(1),
    attempted_at: timestamp,
    duration_ms: z.number().int().min(0),
    status_code: z.number().int().nullable(),
    error: z.string().nullable(),
    outcome: z.enum(['delivered', 'retry', 'failed', 'refused']),
  })
  .meta({ id: 'ChannelAttempt' });

export const ChannelDelivery = z
  .object({
    id: uuid,
    channel_id: uuid,
    job_id: uuid.nullable(),
    run_id: uuid.nullable().describe('null for a job paused by the system'),
    run_status: z.enum(['success', 'failed']).nullable(),
    reason: z.enum(TENANT_WHEN).describe('the rule that queued it'),
    status: z.enum(['pending', 'delivered', 'failed', 'cancelled']),
    attempts: z.number().int().min(0),
    next_attempt_at: timestamp.nullable(),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    last_response: z.string().nullable().describe("the platform's last answer (its start)"),
    created_at: timestamp,
    delivered_at: timestamp.nullable(),
    history: z.array(Attempt).describe('the latest 20 attempts, newest first'),
  })
  .meta({ id: 'ChannelDelivery' });

const pageOf = <T extends z.ZodType>(item: T, id: string) =>
  z
    .object({
      data: z.array(item),
      next_cursor: z.string().nullable().describe('pass as `cursor` for the next page'),
    })
    .meta({ id });

export const ChannelPage = pageOf(Channel, 'ChannelPage');
export const ChannelDeliveryPage = pageOf(ChannelDelivery, 'ChannelDeliveryPage');

export const Redelivered = z
  .object({ id: uuid, status: z.literal('pending') })
  .meta({ id: 'ChannelRedelivered' });

/** A job's rule (the job field `notify`). */
export const JOB_NOTIFY_WHEN = RULE_WHEN;
