import { z } from 'zod';
import { ERROR_KINDS } from '../scheduler/ports.js';

// Request and response shapes of the REST API. Requests are strict (unknown fields are refused);
// the job rules in src/jobs/commands.ts check the values.

export const IdParams = z.object({ id: z.string().max(100) });

export const PageQuery = z.strictObject({
  limit: z.coerce.number().int().optional(),
  cursor: z.string().max(500).optional(),
});

/** PostgreSQL text cannot hold U+0000: such names are refused as invalid, not failed on insert. */
const withoutNul = (text: string) => !text.includes('\u0000');
const NUL_MESSAGE = 'must not contain NUL (U+0000) characters';

export const ErrorBody = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

export const JobCreateBody = z.strictObject({
  name: z.string().max(10_000),
  schedule: z.string().max(1000),
  timezone: z.string().max(200).optional(),
  prompt: z.string().max(100_000),
  enabled: z.boolean().optional(),
});

export const JobPatchBody = z
  .strictObject({
    name: z.string().max(10_000),
    schedule: z.string().max(1000),
    timezone: z.string().max(200),
    prompt: z.string().max(100_000),
    enabled: z.boolean(),
  })
  .partial()
  .refine((patch) => Object.keys(patch).length > 0, 'give at least one field to change');

const timestamp = z.string().describe('RFC 3339 timestamp');

export const Job = z.object({
  id: z.string(),
  name: z.string(),
  schedule: z.string(),
  timezone: z.string(),
  prompt: z.string(),
  enabled: z.boolean(),
  next_run_at: timestamp.nullable(),
  last_run_at: timestamp.nullable(),
  last_run_success: z.boolean().nullable(),
  last_run_error: z.string().nullable(),
  last_run_error_kind: z.enum(ERROR_KINDS).nullable(),
  run_count: z.number(),
  created_at: timestamp,
  updated_at: timestamp,
});

export const Run = z.object({
  id: z.string(),
  cron_job_id: z.string(),
  scheduled_at: timestamp,
  started_at: timestamp,
  finished_at: timestamp.nullable(),
  status: z.enum(['claimed', 'running', 'success', 'failed']),
  result: z.string().nullable(),
  error: z.string().nullable(),
  error_kind: z.enum(ERROR_KINDS).nullable(),
  attempts: z.number().int(),
  duration_ms: z.number().nullable(),
  pod_id: z.string(),
  created_at: timestamp,
});

export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), next_cursor: z.string().nullable() });

export const PreviewBody = z.strictObject({
  schedule: z.string().max(1000),
  timezone: z.string().max(200).optional(),
  count: z.number().int().optional(),
  from: z.iso.datetime({ offset: true }).optional(),
});

export const Preview = z.object({
  schedule: z.string(),
  timezone: z.string(),
  next: z.array(timestamp),
});

export const Trigger = z.object({ job_id: z.string(), scheduled_at: timestamp });

export const TenantCreateBody = z.strictObject({
  name: z.string().trim().min(1).max(200).refine(withoutNul, NUL_MESSAGE),
  max_cron_jobs: z.number().int().min(0).max(1_000_000).optional(),
  min_schedule_interval_seconds: z.number().int().min(0).max(31_536_000).optional(),
  rate_limit_rpm: z.number().int().min(1).max(1_000_000).optional(),
  /** Runs in flight across all pods; null or 0 means unlimited (the default). */
  max_concurrent_runs: z
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .nullable()
    .optional()
    .describe('runs of this tenant in flight at once across all replicas; null or 0: unlimited'),
});

export const TenantPatchBody = TenantCreateBody.partial().refine(
  (patch) => Object.keys(patch).length > 0,
  'give at least one field to change',
);

export const Tenant = z.object({
  id: z.string(),
  name: z.string(),
  max_cron_jobs: z.number(),
  min_schedule_interval_seconds: z.number(),
  rate_limit_rpm: z.number(),
  max_concurrent_runs: z.number().nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});

// z.guid(), not z.uuid(): the default tenant 00000000-…-000000000001 is no RFC 9562 UUID.
export const ApiKeyCreateBody = z.strictObject({
  tenant_id: z.guid(),
  name: z.string().trim().min(1).max(200).refine(withoutNul, NUL_MESSAGE),
  expires_at: z.iso.datetime({ offset: true }).optional(),
});

export const ApiKey = z.object({
  id: z.string(),
  tenant_id: z.string(),
  name: z.string(),
  key_prefix: z.string(),
  expires_at: timestamp.nullable(),
  revoked_at: timestamp.nullable(),
  created_at: timestamp,
});

export const ApiKeyCreated = ApiKey.extend({
  key: z.string().describe('the raw key; shown only in this response'),
});

export const ApiKeyListQuery = z.strictObject({ tenant_id: z.guid().optional() });
