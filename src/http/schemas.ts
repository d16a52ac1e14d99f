import { z } from 'zod';
import { RUN_STATUSES } from '../scheduler/life-cycle.js';
import { ERROR_KINDS } from '../domain/vocabulary.js';
import { JOB_EXAMPLE, jobCreateShape, jobOutputShape, jobPatchShape } from '../jobs/field-lists.js';
import { RUN_ORIGINS } from '../domain/run.js';
import { SCOPES } from '../domain/scopes.js';

// Request and response shapes of the REST API. Requests are strict (unknown fields are refused);
// the job rules in src/jobs/commands.ts check the values. A schema given `.meta({ id })` becomes
// a named component of /openapi.json (#/components/schemas/<id>), so generated clients get types
// with these names.

export const IdParams = z.object({ id: z.string().max(100).describe('the id (a UUID)') });

export const PageQuery = z.strictObject({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .optional()
    .describe('page size, 1 to 100 (default 20)'),
  cursor: z
    .string()
    .max(500)
    .optional()
    .describe('`next_cursor` of the previous page; omit for the first page'),
});

/** PostgreSQL text cannot hold U+0000: such names are refused as invalid, not failed on insert. */
const withoutNul = (text: string) => !text.includes('\u0000');
const NUL_MESSAGE = 'must not contain NUL (U+0000) characters';

export const ErrorBody = z
  .object({
    error: z.object({
      code: z.string().describe('stable, machine-readable: not_found, validation_error, ...'),
      message: z.string().describe('for people: what went wrong and what to do'),
    }),
  })
  .meta({
    id: 'Error',
    examples: [{ error: { code: 'not_found', message: 'no cron job with id 7d0c…' } }],
  });

// Documented as date-time; the values are always Date#toISOString() output.
const timestamp = z.string().meta({ format: 'date-time', description: 'RFC 3339 timestamp (UTC)' });
const uuid = z.string().meta({ format: 'uuid' });

const labelFilter = z
  .union([z.string().max(320), z.array(z.string().max(320)).max(16)])
  .optional()
  .describe('`key=value` (that label) or `key` (has the label); repeat to require all');

export const JobListQuery = PageQuery.extend({ label: labelFilter });

const runStatus = z.enum(RUN_STATUSES);

export const JobRunsQuery = PageQuery.extend({
  status: runStatus.optional().describe('only runs in this status'),
});

export const RunListQuery = PageQuery.extend({
  status: runStatus.optional().describe('only runs in this status'),
  error_kind: z.enum(ERROR_KINDS).optional().describe('only failed runs of this kind'),
  origin: z.enum(RUN_ORIGINS).optional().describe('only runs of this origin'),
  job_id: z.string().max(100).optional().describe('only runs of this job'),
  label: labelFilter,
  from: z.iso
    .datetime({ offset: true })
    .optional()
    .describe('only occurrences scheduled at or after this time'),
  to: z.iso
    .datetime({ offset: true })
    .optional()
    .describe('only occurrences scheduled before this time'),
});

// The job's fields come from the job field table (src/jobs/fields.ts).
export const JobCreateBody = z.strictObject(jobCreateShape()).meta({ id: 'CronJobCreate' });

export const JobPatchBody = z
  .strictObject(jobPatchShape())
  .partial()
  .refine((patch) => Object.keys(patch).length > 0, 'give at least one field to change')
  .meta({ id: 'CronJobPatch', description: 'at least one field', minProperties: 1 });

export const Job = z.object(jobOutputShape()).meta({ id: 'CronJob', examples: [JOB_EXAMPLE] });

export const Run = z
  .object({
    id: uuid,
    cron_job_id: uuid,
    scheduled_at: timestamp,
    started_at: timestamp,
    finished_at: timestamp.nullable(),
    status: runStatus,
    result: z
      .string()
      .nullable()
      .describe(
        'the answer: in lists its first 4,096 characters (see result_complete); GET /v1/runs/{id} has the whole text',
      ),
    error: z.string().nullable(),
    error_kind: z
      .enum(ERROR_KINDS)
      .nullable()
      .describe('why a failed run failed (docs/scheduler.md); null unless status is failed'),
    attempts: z
      .number()
      .int()
      .min(0)
      .describe('model requests made by the current attempt; grows while a running run retries'),
    attempt: z
      .number()
      .int()
      .min(1)
      .describe(
        "which attempt of the occurrence this is (1 first); the job's retry policy or POST /v1/runs/{id}/retry adds one",
      ),
    duration_ms: z.number().int().min(0).nullable(),
    pod_id: z.string().nullable().describe('the pod running or that ran it; null while queued'),
    not_before: timestamp
      .nullable()
      .describe('a queued run (a retry after its backoff, a backfill) starts no earlier than this'),
    created_at: timestamp,
    origin: z
      .enum(RUN_ORIGINS)
      .describe(
        'why it ran: the schedule, a "run now" (manual), a catch-up after an outage or a backfill',
      ),
    result_bytes: z
      .number()
      .int()
      .min(0)
      .nullable()
      .describe('size of the whole stored answer in UTF-8 bytes'),
    result_complete: z.boolean().describe('`result` here is the whole stored answer'),
    model_requests: z
      .number()
      .int()
      .min(0)
      .describe(
        'requests the current attempt sent to the model server (the number `attempts` holds), named apart from `attempt`',
      ),
    start_lag_ms: z
      .number()
      .int()
      .nullable()
      .describe(
        'how late the occurrence started: its first attempt’s claim minus scheduled_at; the waits between attempts are not in it; null while the first attempt waits in the queue',
      ),
    retry_wait_ms: z
      .number()
      .int()
      .min(0)
      .describe(
        'the time between attempts (the retry back-off, or until a retry by hand), summed over the attempts that started; 0 for a first attempt',
      ),
    prompt_tokens: z
      .number()
      .int()
      .min(0)
      .nullable()
      .describe('prompt tokens over the run’s model calls and attempts; null: no call recorded'),
    cached_tokens: z.number().int().min(0).nullable().describe('of prompt_tokens, cached'),
    completion_tokens: z.number().int().min(0).nullable(),
    cost_micros: z
      .number()
      .int()
      .min(0)
      .nullable()
      .describe(
        'cost in micro-dollars (1e-6 USD) at the operator’s prices; null: no call, or a model without a price (unknown)',
      ),
  })
  .meta({
    id: 'Run',
    examples: [
      {
        id: '3f6e2a1c-8b4d-4e7f-9a2b-5c6d7e8f9a0b',
        cron_job_id: '7d0c5b8e-3f2a-4c1d-9e8b-1a2b3c4d5e6f',
        scheduled_at: '2026-03-02T08:00:00.000Z',
        started_at: '2026-03-02T08:00:00.012Z',
        finished_at: '2026-03-02T08:00:04.530Z',
        status: 'failed',
        result: null,
        error: 'timeout: run exceeded SCHEDULER_EXEC_TIMEOUT (5m)',
        error_kind: 'timeout',
        attempts: 1,
        attempt: 1,
        duration_ms: 4518,
        pod_id: 'hermesx-7f9c-1',
        not_before: null,
        created_at: '2026-03-02T08:00:00.010Z',
        origin: 'scheduled',
        result_bytes: null,
        result_complete: true,
        model_requests: 1,
        start_lag_ms: 12,
        retry_wait_ms: 0,
        prompt_tokens: 182,
        cached_tokens: 0,
        completion_tokens: 64,
        cost_micros: 1095,
      },
    ],
  });

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

export const JobPage = pageOf(Job, 'CronJobPage');
export const RunPage = pageOf(Run, 'RunPage');

export const RunListItem = Run.extend({
  job_name: z.string(),
  labels: z.record(z.string(), z.string()).describe('the job’s labels'),
}).meta({ id: 'RunListItem' });

export const RunListPage = pageOf(RunListItem, 'RunListPage');

export const CancelAccepted = z
  .object({ run_id: uuid, cron_job_id: uuid, status: z.literal('cancelling') })
  .meta({ id: 'CancelAccepted' });

export const PreviewBody = z
  .strictObject({
    schedule: z.string().max(1000),
    timezone: z.string().max(200).optional(),
    count: z.number().int().min(1).max(100).optional().describe('how many fire times (default 10)'),
    from: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('start after this time (default now)'),
  })
  .meta({ id: 'SchedulePreviewRequest' });

export const Preview = z
  .object({ schedule: z.string(), timezone: z.string(), next: z.array(timestamp) })
  .meta({ id: 'SchedulePreview' });

export const Trigger = z
  .object({ job_id: uuid, scheduled_at: timestamp })
  .meta({ id: 'TriggerAccepted' });

const tenantQuotas = {
  max_cron_jobs: z.number().int().min(0).max(1_000_000),
  min_schedule_interval_seconds: z.number().int().min(0).max(31_536_000),
  rate_limit_rpm: z.number().int().min(1).max(1_000_000),
};
const maxConcurrentRuns = z
  .number()
  .int()
  .min(0)
  .max(1_000_000)
  .nullable()
  .describe('runs of this tenant in flight at once across all replicas; null or 0: unlimited');
const auditRetentionDays = z
  .number()
  .int()
  .min(1)
  .max(3650)
  .describe('days an audit log entry is kept; older ones are removed');

const runRetentionDays = z
  .number()
  .int()
  .min(1)
  .max(3650)
  .describe('days a run stays in the history (by its scheduled time); older ones are removed');

const resultBytesQuota = z
  .number()
  .int()
  .min(0)
  .max(2 ** 50)
  .nullable()
  .describe(
    "bytes of run answers over 8 KiB the tenant's runs may keep in the object store; a longer answer past it fails its run (result_quota) with its first 4,096 characters kept. null: the server's TENANT_RESULT_BYTES_QUOTA; 0: unlimited",
  );

export const TenantCreateBody = z
  .strictObject({
    name: z.string().trim().min(1).max(200).refine(withoutNul, NUL_MESSAGE),
    max_cron_jobs: tenantQuotas.max_cron_jobs.optional().describe('default 50'),
    min_schedule_interval_seconds: tenantQuotas.min_schedule_interval_seconds
      .optional()
      .describe('default 60'),
    rate_limit_rpm: tenantQuotas.rate_limit_rpm.optional().describe('default 600'),
    max_concurrent_runs: maxConcurrentRuns.optional().describe('default 10'),
    run_retention_days: runRetentionDays.optional().describe('default 30'),
    audit_retention_days: auditRetentionDays.optional().describe('default 365'),
    result_bytes_quota: resultBytesQuota.optional().describe('default null'),
  })
  .meta({ id: 'TenantCreate' });

export const TenantPatchBody = TenantCreateBody.partial()
  .refine((patch) => Object.keys(patch).length > 0, 'give at least one field to change')
  .meta({ id: 'TenantPatch', description: 'at least one field', minProperties: 1 });

export const Tenant = z
  .object({
    id: uuid,
    name: z.string(),
    ...tenantQuotas,
    max_concurrent_runs: maxConcurrentRuns,
    run_retention_days: runRetentionDays,
    audit_retention_days: auditRetentionDays,
    result_bytes_quota: resultBytesQuota,
    result_bytes_stored: z
      .number()
      .int()
      .describe("bytes of the tenant's run answers in the object store now"),
    result_bytes_quota_in_force: z
      .number()
      .int()
      .describe(
        'the quota of stored result bytes that applies now (its own, else the default); 0: unlimited',
      ),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({
    id: 'Tenant',
    examples: [
      {
        id: '5b1e9c3a-2d4f-4a6b-8c9d-0e1f2a3b4c5d',
        name: 'acme',
        max_cron_jobs: 50,
        min_schedule_interval_seconds: 60,
        rate_limit_rpm: 600,
        max_concurrent_runs: 10,
        run_retention_days: 30,
        audit_retention_days: 365,
        result_bytes_quota: null,
        result_bytes_stored: 52428800,
        result_bytes_quota_in_force: 1073741824,
        created_at: '2026-03-01T09:00:00.000Z',
        updated_at: '2026-03-01T09:00:00.000Z',
      },
    ],
  });

export const TenantList = z.object({ data: z.array(Tenant) }).meta({ id: 'TenantList' });

/** A key's scopes: a non-empty subset of SCOPES, each once. */
export const ScopeList = z
  .array(z.enum(SCOPES))
  .min(1)
  .max(SCOPES.length)
  .refine((list) => new Set(list).size === list.length, 'each scope once');

// z.guid(), not z.uuid(): the default tenant 00000000-…-000000000001 is no RFC 9562 UUID.
export const ApiKeyCreateBody = z
  .strictObject({
    tenant_id: z.guid(),
    name: z.string().trim().min(1).max(200).refine(withoutNul, NUL_MESSAGE),
    expires_at: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('must be in the future; omit for a key that does not expire'),
    scopes: ScopeList.optional().describe(
      'what the key may do; omit for every scope the creator holds (the admin: every scope)',
    ),
  })
  .meta({ id: 'ApiKeyCreate' });

/** A tenant's own key: the tenant is the caller's. */
export const TenantApiKeyCreateBody = ApiKeyCreateBody.omit({ tenant_id: true }).meta({
  id: 'TenantApiKeyCreate',
});

export const ApiKey = z
  .object({
    id: uuid,
    tenant_id: uuid,
    name: z.string(),
    key_prefix: z.string().describe('the first characters of the key, to recognise it'),
    expires_at: timestamp.nullable(),
    revoked_at: timestamp.nullable(),
    created_at: timestamp,
    scopes: z
      .array(z.enum(SCOPES))
      .describe('what the key may do (a key made before scopes existed holds every scope)'),
    last_used_at: timestamp
      .nullable()
      .describe('when the key last authenticated, to the minute; null: never'),
  })
  .meta({ id: 'ApiKey' });

export const ApiKeyCreated = ApiKey.extend({
  key: z.string().describe('the raw key; shown only in this response'),
}).meta({ id: 'ApiKeyCreated' });

export const ApiKeyList = z.object({ data: z.array(ApiKey) }).meta({ id: 'ApiKeyList' });

export const ApiKeyListQuery = z.strictObject({
  tenant_id: z.guid().optional().describe('only this tenant’s keys'),
});

/** A 204: no body at all (not a JSON null). */
export const NoContent = z.undefined().describe('done; no body');
