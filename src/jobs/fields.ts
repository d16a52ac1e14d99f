// One row per field of a job: where it is stored, how the API shows it, what a request may give,
// whether the agent's cronjob tool offers it, and what the scheduler hears of it. The database
// column lists (field-lists.ts), the view (view.ts), the HTTP schemas (http/schemas.ts) and the
// tool's parameters (agent/tools/cronjob.ts) are built from it; test/unit/job-fields-schema.test.ts
// holds it against the NOTIFY trigger and the due window's RETURNS in test/schema.sql.
import { z } from 'zod';
import { formatDurationMs } from '../duration.js';
import { ERROR_KINDS, OVERLAP_POLICIES } from '../domain/vocabulary.js';
import { column, field, hidden, type ToolParam } from './field.js';
import { checkOutputSchema, OUTPUT_SCHEMA_MAX_BYTES } from './output-schema.js';

export type PausedBy = 'user' | 'system';
export type StoppedBy = 'max_runs' | 'pause_after_failures' | 'budget';

// Documented as date-time; the values are always Date#toISOString() output.
const timestamp = z.string().meta({ format: 'date-time', description: 'RFC 3339 timestamp (UTC)' });
const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);
const duration = (ms: number | null): string | null => (ms === null ? null : formatDurationMs(ms));
/** PostgreSQL text cannot hold U+0000: such text is refused as invalid, not failed on insert. */
const withoutNul = (text: string) => !text.includes('\u0000');

const nullableText = (description: string): ToolParam['json'] => ({
  type: ['string', 'null'],
  description,
});

/** A per-job run control (docs/api.md): optional on create, null clears it on PATCH. */
const control = <S extends z.ZodType>(schema: S) => ({ create: schema.optional(), patch: schema });

const DESCRIPTION_INPUT = z
  .string()
  .max(2000)
  .refine(withoutNul, 'must not contain NUL (U+0000) characters')
  .nullable()
  .describe('free text for people: what the job is for, who owns it (at most 2,000 characters)');

/** When a job's run is worth a message (docs/channels.md). */
export const NOTIFY_WHEN = ['always', 'failed', 'recovered', 'changed', 'agent'] as const;
export interface NotifyRule {
  channel: string;
  when: (typeof NOTIFY_WHEN)[number];
  template?: string | null;
}

const NOTIFY_INPUT = z
  .array(
    z.strictObject({
      channel: z.uuid().describe('a notification channel id (GET /v1/channels)'),
      when: z
        .enum(NOTIFY_WHEN)
        .describe(
          'always; failed; recovered (first success after failures); changed (the answer differs from the previous success); agent (the run decides: notify tool or [SILENT])',
        ),
      template: z
        .string()
        .max(4000)
        .refine(withoutNul, 'must not contain NUL (U+0000) characters')
        .nullable()
        .optional()
        .describe('the message: {{answer}} {{job_name}} {{time}} {{status}} {{link}} {{error}}'),
    }),
  )
  .max(10)
  .nullable()
  .describe("who hears of the job's runs and when (at most 10 rules); null: the tenant's defaults");
const MCP_SERVERS_INPUT = z
  .array(z.string().regex(/^[a-z0-9][a-z0-9_-]{0,23}$/, 'an MCP server name'))
  .max(16)
  .refine((names) => new Set(names).size === names.length, 'names must not repeat')
  .describe(
    "names of the tenant's MCP servers (/v1/mcp-servers) whose tools each run is offered, at most 16; empty (the default): none",
  );

const RETRY_INPUT = z
  .strictObject({
    max_attempts: z.number().int().min(1).max(10).describe('attempts in all, the first included'),
    backoff: z
      .string()
      .max(40)
      .describe(
        'Go duration, 1s to 1h: the wait before the second attempt, doubled for each next one (at most 1h)',
      ),
    after_side_effects: z
      .boolean()
      .optional()
      .describe(
        'retry even after a tool call with side effects (a non-GET http_request, a cronjob change); default false',
      ),
  })
  .nullable()
  .describe(
    'run a failed attempt again when its kind is safe to retry (model_unreachable, model_throttled, model_error, timeout, pod_lost); null: never',
  );

const OUTPUT_SCHEMA_INPUT = z
  .record(z.string(), z.unknown())
  .nullable()
  .superRefine((schema, ctx) => {
    const problem = schema === null ? null : checkOutputSchema(schema);
    if (problem) ctx.addIssue({ code: 'custom', message: `output_schema ${problem}` });
  })
  .describe(
    `a JSON Schema (draft 2020-12, at most ${OUTPUT_SCHEMA_MAX_BYTES} bytes) each run's answer must satisfy; the parsed answer is the run's output; null: free text`,
  );

const MODELS_INPUT = z
  .array(z.string().min(1).max(200))
  .max(8)
  .refine((names) => new Set(names).size === names.length, 'models must not repeat a model')
  .nullable()
  .describe(
    "the primary model, then fallbacks a call goes to when the one before is unreachable, answers 5xx, stays throttled or times out; each one of LLM_MODELS (unset: the model server's /models); null or []: the job's model, then the tenant's default_models",
  );

/**
 * The fields in the order the API shows them. `notify`: a change is part of the definition the
 * pods hear of at once (the NOTIFY trigger's column list, migration 320); `dueWindow`: the
 * scheduler's read of the due window returns it (scheduler_due_jobs).
 */
export const JOB_FIELDS = {
  id: field({
    columns: { id: column<string>() },
    output: z.string().meta({ format: 'uuid' }),
    example: '7d0c5b8e-3f2a-4c1d-9e8b-1a2b3c4d5e6f',
    show: (row) => row.id,
    notify: false,
    dueWindow: true,
  }),
  name: field({
    columns: { name: column<string>('written') },
    output: z.string(),
    example: 'Morning digest',
    show: (row) => row.name,
    input: {
      create: z.string().max(10_000).describe('1 to 200 characters once trimmed'),
      patch: z.string().max(10_000),
    },
    tool: {
      schema: z.string().optional(),
      json: { type: 'string', description: 'short job name' },
    },
    notify: true,
    dueWindow: false,
  }),
  schedule: field({
    columns: { schedule: column<string>('written') },
    output: z.string(),
    example: '0 9 * * 1-5',
    show: (row) => row.schedule,
    input: {
      create: z
        .string()
        .max(1000)
        .describe('5- or 6-field cron expression, @hourly-style nickname, or "every 15m"'),
      patch: z.string().max(1000),
    },
    tool: {
      schema: z.string().optional(),
      json: { type: 'string', description: 'cron expression, macro or @every interval' },
    },
    notify: true,
    dueWindow: true,
  }),
  timezone: field({
    columns: { timezone: column<string>('written') },
    output: z.string(),
    example: 'Europe/Paris',
    show: (row) => row.timezone,
    input: {
      create: z
        .string()
        .max(200)
        .optional()
        .describe('IANA zone such as Europe/Paris (default UTC)'),
      patch: z.string().max(200),
    },
    tool: {
      schema: z.string().optional(),
      json: { type: 'string', description: 'IANA time zone, default UTC' },
    },
    notify: true,
    dueWindow: true,
  }),
  prompt: field({
    columns: { prompt: column<string>('written') },
    output: z.string(),
    example: 'Summarise the open incidents.',
    show: (row) => row.prompt,
    input: {
      create: z.string().max(100_000).describe('what the agent does at each run; at most 16 KiB'),
      patch: z.string().max(100_000),
    },
    tool: {
      schema: z.string().optional(),
      json: { type: 'string', description: 'what to do at each run' },
    },
    notify: true,
    dueWindow: false,
  }),
  description: field({
    columns: { description: column<string | null>('written') },
    output: z.string().nullable().describe('the job’s description; null: none'),
    example: 'Posted in #ops before the stand-up.',
    show: (row) => row.description,
    input: { ...control(DESCRIPTION_INPUT), plain: true },
    tool: {
      schema: DESCRIPTION_INPUT.optional(),
      json: nullableText('free text for people about the job, at most 2,000 characters'),
    },
    notify: false,
    dueWindow: false,
  }),
  enabled: field({
    columns: { enabled: column<boolean>('written') },
    output: z.boolean(),
    example: true,
    show: (row) => row.enabled,
    input: { create: z.boolean().optional().describe('default true'), patch: z.boolean() },
    notify: true,
    dueWindow: false,
  }),
  // A job parked by the planning sweep (no occurrence, or a schedule that does not parse) has
  // next_run_at 'infinity': shown as null.
  next_run_at: field({
    columns: { next_run_at: column<Date | null>('written') },
    select: `nullif(next_run_at, 'infinity') AS next_run_at`,
    output: timestamp.nullable(),
    example: '2026-03-02T08:00:00.000Z',
    show: (row) => iso(row.next_run_at),
    notify: false,
    dueWindow: true,
  }),
  last_run_at: field({
    columns: { last_run_at: column<Date | null>() },
    output: timestamp.nullable(),
    example: null,
    show: (row) => iso(row.last_run_at),
    notify: false,
    dueWindow: false,
  }),
  last_run_success: field({
    columns: { last_run_success: column<boolean | null>() },
    output: z.boolean().nullable(),
    example: null,
    show: (row) => row.last_run_success,
    notify: false,
    dueWindow: false,
  }),
  last_run_error: field({
    columns: { last_run_error: column<string | null>() },
    output: z.string().nullable(),
    example: null,
    show: (row) => row.last_run_error,
    notify: false,
    dueWindow: false,
  }),
  last_run_error_kind: field({
    columns: { last_run_error_kind: column<(typeof ERROR_KINDS)[number] | null>() },
    output: z.enum(ERROR_KINDS).nullable(),
    example: null,
    show: (row) => row.last_run_error_kind,
    notify: false,
    dueWindow: false,
  }),
  run_count: field({
    // bigint: node-postgres reads it as text.
    columns: { run_count: column<string>() },
    output: z.number().int().min(0),
    example: 0,
    show: (row) => Number(row.run_count),
    notify: false,
    dueWindow: false,
  }),
  created_at: field({
    columns: { created_at: column<Date>() },
    output: timestamp,
    example: '2026-03-01T10:00:00.000Z',
    show: (row) => row.created_at.toISOString(),
    notify: false,
    dueWindow: false,
  }),
  updated_at: field({
    columns: { updated_at: column<Date>() },
    output: timestamp,
    example: '2026-03-01T10:00:00.000Z',
    show: (row) => row.updated_at.toISOString(),
    notify: false,
    dueWindow: true,
  }),
  labels: field({
    columns: { labels: column<Record<string, string>>('written') },
    output: z.record(z.string(), z.string()),
    example: { team: 'ops' },
    show: (row) => row.labels,
    input: control(
      z
        .record(z.string().max(63), z.string().max(255))
        .describe('up to 16 string pairs; keys are letters, digits and . _ / -'),
    ),
    tool: {
      schema: z.record(z.string(), z.string()).optional(),
      json: {
        type: 'object',
        additionalProperties: { type: 'string' },
        description: 'up to 16 string pairs',
      },
    },
    notify: false,
    dueWindow: false,
  }),
  // The tool's disable action takes a reason of its own (not a field of create or update).
  paused_reason: field({
    columns: { paused_reason: column<string | null>('written') },
    output: z.string().nullable(),
    example: null,
    show: (row) => row.paused_reason,
    input: control(
      z.string().max(500).nullable().describe('why the job is paused; only with enabled: false'),
    ),
    notify: false,
    dueWindow: false,
  }),
  paused_at: field({
    columns: { paused_at: column<Date | null>('written') },
    output: timestamp.nullable().describe('when the job was paused; null while enabled'),
    example: null,
    show: (row) => iso(row.paused_at),
    notify: false,
    dueWindow: false,
  }),
  paused_by: field({
    columns: { paused_by: column<PausedBy | null>('written') },
    output: z.enum(['user', 'system']).nullable(),
    example: null,
    show: (row) => row.paused_by,
    notify: false,
    dueWindow: false,
  }),
  pause_after_failures: field({
    columns: { pause_after_failures: column<number | null>('written') },
    output: z.number().int().nullable(),
    example: 3,
    show: (row) => row.pause_after_failures,
    input: control(
      z
        .number()
        .int()
        .min(1)
        .max(1000)
        .nullable()
        .describe('pause the job (paused_by system) after this many failed occurrences in a row'),
    ),
    tool: {
      schema: z.number().int().nullable().optional(),
      json: { type: ['integer', 'null'] },
    },
    notify: false,
    dueWindow: false,
  }),
  consecutive_failures: field({
    columns: { consecutive_failures: column<number>('written') },
    output: z.number().int().min(0).describe('failed occurrences in a row'),
    example: 0,
    show: (row) => row.consecutive_failures,
    notify: false,
    dueWindow: false,
  }),
  ends_at: field({
    columns: { ends_at: column<Date | null>('written') },
    output: timestamp.nullable(),
    example: null,
    show: (row) => iso(row.ends_at),
    input: control(
      z.iso.datetime({ offset: true }).nullable().describe('no occurrence after this time'),
    ),
    tool: { schema: z.string().nullable().optional(), json: nullableText('RFC 3339 time') },
    notify: true,
    dueWindow: true,
  }),
  max_runs: field({
    // bigint: node-postgres reads it as text.
    columns: { max_runs: column<string | null>('written') },
    output: z.number().int().nullable(),
    example: null,
    show: (row) => (row.max_runs === null ? null : Number(row.max_runs)),
    input: control(
      z
        .number()
        .int()
        .min(1)
        .max(1_000_000_000)
        .nullable()
        .describe('the job disables itself once it has run this many times (every run counts)'),
    ),
    tool: {
      schema: z.number().int().nullable().optional(),
      json: { type: ['integer', 'null'] },
    },
    notify: false,
    dueWindow: false,
  }),
  // Budgets (docs/usage.md): enforced before each model call of the job's runs.
  max_run_tokens: field({
    columns: { max_run_tokens: column<number | null>('written') },
    output: z.number().int().nullable(),
    example: null,
    show: (row) => row.max_run_tokens,
    input: {
      ...control(
        z
          .number()
          .int()
          .min(1)
          .max(100_000_000)
          .nullable()
          .describe(
            'tokens (prompt + completion) one run may use over all its model calls; a call that could pass it is not sent and the run fails budget_exhausted',
          ),
      ),
      plain: true,
    },
    tool: { schema: z.number().int().nullable().optional(), json: { type: ['integer', 'null'] } },
    notify: false,
    dueWindow: false,
  }),
  daily_budget_micros: field({
    // bigint: node-postgres reads it as text.
    columns: { daily_budget_micros: column<string | null>('written') },
    output: z.number().int().nullable(),
    example: null,
    show: (row) => (row.daily_budget_micros === null ? null : Number(row.daily_budget_micros)),
    input: {
      ...control(
        z
          .number()
          .int()
          .min(0)
          .max(1e15)
          .nullable()
          .describe(
            'micro-dollars the job may spend per UTC day; spent, its runs fail budget_exhausted and the job pauses until the next UTC day',
          ),
      ),
      plain: true,
    },
    tool: { schema: z.number().int().nullable().optional(), json: { type: ['integer', 'null'] } },
    notify: false,
    dueWindow: false,
  }),
  /** The limit that stopped the job: max_runs, pause_after_failures, budget, or ends_at once passed. */
  stopped_by: field({
    columns: { stopped_by: column<StoppedBy | null>('written'), ends_at: column<Date | null>() },
    output: z
      .enum(['max_runs', 'pause_after_failures', 'budget', 'ends_at'])
      .nullable()
      .describe('the limit that stopped the job, if one did'),
    example: null,
    show: (row, now) =>
      row.stopped_by ??
      (row.ends_at !== null && row.ends_at.getTime() < now.getTime() ? 'ends_at' : null),
    notify: false,
    dueWindow: false,
  }),
  timeout: field({
    columns: { timeout_ms: column<number | null>('written') },
    output: z.string().nullable().describe('the job’s own timeout; null: SCHEDULER_EXEC_TIMEOUT'),
    example: '30s',
    show: (row) => duration(row.timeout_ms),
    input: control(
      z
        .string()
        .max(40)
        .nullable()
        .describe(
          'Go duration, 1s to SCHEDULER_EXEC_TIMEOUT: a run still going then fails `timeout`',
        ),
    ),
    tool: {
      schema: z.string().nullable().optional(),
      json: nullableText('Go duration, e.g. "30s"'),
    },
    notify: false,
    dueWindow: false,
  }),
  model: field({
    columns: { model: column<string | null>('written') },
    output: z.string().nullable().describe('the job’s model; null: the default'),
    example: null,
    show: (row) => row.model,
    input: control(
      z
        .string()
        .max(200)
        .nullable()
        .describe("one of LLM_MODELS (unset: the model server's /models); null: the default"),
    ),
    tool: { schema: z.string().nullable().optional(), json: nullableText('model for this job') },
    notify: false,
    dueWindow: false,
  }),
  /** Fallback models: a model call goes down the list (src/agent/model-fallback.ts). */
  models: field({
    columns: { models: column<string[] | null>('written') },
    output: z.array(z.string()).describe('primary model, then fallbacks; []: none of its own'),
    example: [],
    show: (row) => row.models ?? [],
    input: { ...control(MODELS_INPUT), plain: true },
    tool: {
      schema: z.array(z.string()).nullable().optional(),
      json: {
        type: ['array', 'null'],
        items: { type: 'string' },
        description: 'primary model then fallback models (create, update)',
      },
    },
    notify: false,
    dueWindow: false,
  }),
  /** The shape of each run's answer (src/agent/structured-answer.ts). */
  output_schema: field({
    columns: { output_schema: column<Record<string, unknown> | null>('written') },
    output: z
      .record(z.string(), z.unknown())
      .nullable()
      .describe('the JSON Schema each answer must satisfy; null: free text'),
    example: null,
    show: (row) => row.output_schema,
    input: { ...control(OUTPUT_SCHEMA_INPUT), plain: true },
    tool: {
      schema: z.record(z.string(), z.unknown()).nullable().optional(),
      json: {
        type: ['object', 'null'],
        description: 'JSON Schema (draft 2020-12) every run answer must satisfy; null: free text',
      },
    },
    notify: false,
    dueWindow: false,
  }),
  /** Each occurrence starts up to this long after its nominal time (scheduled_at stays nominal). */
  jitter: field({
    columns: { jitter_ms: column<number | null>('written') },
    output: z.string().nullable().describe('the job’s jitter; null: none'),
    example: null,
    show: (row) => duration(row.jitter_ms),
    input: control(
      z
        .string()
        .max(40)
        .nullable()
        .describe(
          'Go duration, 1s to 1h and shorter than the schedule’s gap: each occurrence starts at a deterministic offset in [0, jitter] after its nominal time',
        ),
    ),
    tool: {
      schema: z.string().nullable().optional(),
      json: nullableText('Go duration: spread the start'),
    },
    notify: true,
    dueWindow: true,
  }),
  /** What an occurrence does while the job's previous run is in flight. */
  overlap: field({
    columns: { overlap: column<(typeof OVERLAP_POLICIES)[number]>('written') },
    output: z
      .enum(OVERLAP_POLICIES)
      .describe('what an occurrence does while the previous run is in flight'),
    example: 'skip',
    show: (row) => row.overlap ?? 'skip',
    input: control(
      z
        .enum(OVERLAP_POLICIES)
        .nullable()
        .describe(
          'when an occurrence comes while the previous run is in flight: skip (default), buffer_one (run once right after it), allow_all (run side by side), cancel_other (stop it, recorded cancelled, and run); run-now follows it too; null: skip',
        ),
    ),
    tool: {
      schema: z.enum(OVERLAP_POLICIES).nullable().optional(),
      json: {
        type: ['string', 'null'],
        enum: [...OVERLAP_POLICIES, null],
        description: 'when the previous run is still going',
      },
    },
    notify: true,
    dueWindow: true,
  }),
  /** Failed attempts of a safe kind are run again (null: never). */
  retry: field({
    columns: {
      retry_max_attempts: column<number | null>('written'),
      retry_backoff_ms: column<number | null>('written'),
      retry_after_side_effects: column<boolean>('written'),
    },
    output: z
      .object({
        max_attempts: z.number().int(),
        backoff: z.string(),
        after_side_effects: z.boolean(),
      })
      .nullable()
      .describe('the job’s retry policy; null: a failed attempt is the run’s outcome'),
    example: { max_attempts: 3, backoff: '30s', after_side_effects: false },
    show: (row) =>
      row.retry_max_attempts === null || row.retry_backoff_ms === null
        ? null
        : {
            max_attempts: row.retry_max_attempts,
            backoff: formatDurationMs(row.retry_backoff_ms),
            after_side_effects: row.retry_after_side_effects,
          },
    input: control(RETRY_INPUT),
    tool: {
      schema: z
        .strictObject({
          max_attempts: z.number().int(),
          backoff: z.string(),
          after_side_effects: z.boolean().optional(),
        })
        .nullable()
        .optional(),
      json: {
        type: ['object', 'null'],
        description: 'retry failed attempts of safe kinds; null: never',
        properties: {
          max_attempts: { type: 'integer', minimum: 1, maximum: 10 },
          backoff: { type: 'string', description: 'Go duration, doubled per attempt' },
          after_side_effects: { type: 'boolean' },
        },
        required: ['max_attempts', 'backoff'],
        additionalProperties: false,
      },
    },
    notify: false,
    dueWindow: false,
  }),
  /** The tenant's MCP servers (by name) whose tools the job's runs are offered (docs/mcp.md). */
  mcp_servers: field({
    columns: { mcp_servers: column<string[] | null>('written') },
    output: z.array(z.string()).describe('MCP servers whose tools each run is offered'),
    example: [],
    show: (row) => row.mcp_servers ?? [],
    input: { ...control(MCP_SERVERS_INPUT), plain: true },
    tool: {
      schema: MCP_SERVERS_INPUT.optional(),
      json: {
        type: 'array',
        items: { type: 'string' },
        description: "names of this tenant's MCP servers whose tools each run gets (default none)",
      },
    },
    notify: false,
    dueWindow: false,
  }),
  skills: field({
    columns: { skills: column<string[]>('written') },
    output: z.array(z.string()).describe('skills each run preloads'),
    example: [],
    show: (row) => row.skills,
    input: {
      create: z
        .array(z.string().max(64))
        .max(8)
        .optional()
        .describe('skills whose text each run preloads (at most 8)'),
      patch: z.array(z.string().max(64)).max(8),
    },
    tool: {
      schema: z.array(z.string()).optional(),
      json: {
        type: 'array',
        items: { type: 'string' },
        description: "names of this tenant's skills each run preloads (create, update)",
      },
    },
    notify: false,
    dueWindow: false,
  }),
  context: field({
    columns: { context_previous_result: column<boolean>('written') },
    output: z.object({
      previous_result: z.boolean().describe("each run sees the previous successful run's result"),
    }),
    example: { previous_result: false },
    show: (row) => ({ previous_result: row.context_previous_result }),
    input: {
      create: z
        .strictObject({
          previous_result: z
            .boolean()
            .optional()
            .describe("each run sees the previous successful run's result (4 KB at most)"),
        })
        .optional(),
      patch: z.strictObject({ previous_result: z.boolean().optional() }),
    },
    // The tool has it flat: previous_result.
    tool: {
      param: 'previous_result',
      schema: z.boolean().optional(),
      json: {
        type: 'boolean',
        description: "each run sees the previous successful run's result (create, update)",
      },
      toInput: (value) => (value === undefined ? undefined : { previous_result: value }),
    },
    notify: false,
    dueWindow: false,
  }),
  /** Which channels hear of the job's runs, and when (docs/channels.md); null: the tenant's defaults. */
  notify: field({
    columns: { notify_rules: column<NotifyRule[] | null>('written') },
    output: z
      .array(
        z.object({
          channel: z.string().meta({ format: 'uuid' }),
          when: z.enum(NOTIFY_WHEN),
          template: z.string().nullable(),
        }),
      )
      .nullable()
      .describe("the job's notify rules; null: the tenant's default rules apply"),
    example: [{ channel: '1c7e9a40-2b3d-4f5e-8a9b-0c1d2e3f4a5b', when: 'changed', template: null }],
    show: (row) =>
      row.notify_rules === null
        ? null
        : row.notify_rules.map((rule) => ({
            channel: rule.channel,
            when: rule.when,
            template: rule.template ?? null,
          })),
    input: { ...control(NOTIFY_INPUT), plain: true },
    tool: {
      schema: NOTIFY_INPUT.optional(),
      json: {
        type: ['array', 'null'],
        description:
          'notify rules: [{channel: <channel id>, when: always|failed|recovered|changed|agent, template?}]; null: the tenant defaults',
        items: {
          type: 'object',
          properties: {
            channel: { type: 'string' },
            when: { type: 'string', enum: [...NOTIFY_WHEN] },
            template: { type: 'string' },
          },
          required: ['channel', 'when'],
        },
      },
    },
    notify: false,
    dueWindow: false,
  }),
  // Not shown: which tenant, since when occurrences are due, whether it is deleted.
  tenant_id: hidden({ columns: { tenant_id: column<string>() }, notify: true, dueWindow: true }),
  due_from: hidden({ columns: { due_from: column<Date>() }, notify: false, dueWindow: true }),
  deleted_at: hidden({
    columns: { deleted_at: column<Date | null>() },
    notify: true,
    dueWindow: false,
  }),
};
