import {
  countJobs,
  insertJob,
  listJobs as listJobRows,
  notifyCancel,
  notifyTrigger,
  recordManualTrigger,
  selectJob,
  softDeleteJob,
  updateJob as updateJobRow,
} from '../db/jobs.js';
import {
  JOB_SELECT,
  PLAIN_FIELDS,
  WRITTEN_COLUMNS,
  type JobRow,
  type JobWrite,
  type PlainInput,
} from './field-lists.js';
import { selectChannelIds } from '../db/channel-ids.js';
import { withTenant, type Pool, type PoolClient } from '../db/pool.js';
import { listRunsOfJob } from '../db/run-history.js';
import { selectTenant } from '../db/tenants.js';
import {
  checkModel,
  ControlError,
  controlColumns,
  DEFAULT_CONTROL_SETTINGS,
  parseLabelFilters,
  prepareControls,
  type ControlSettings,
  type JobControlsInput,
} from './controls.js';
import type { ObjectStore } from '../storage/object-store.js';
import { minIntervalMs, parseSchedule, type ParsedSchedule } from '../schedule/schedule.js';
import {
  decodeCursor,
  encodeCursor,
  toJobView,
  toRunView,
  type JobView,
  type RunView,
} from './view.js';

// The job rules: the only place that validates and changes jobs. The REST routes and the agent's
// cronjob tool both call these, always scoped to one tenant (withTenant, so RLS applies).

/** A rule was broken; `code` is stable, `message` is for people (and models) to act on. */
export class CommandError extends Error {
  override name = 'CommandError';
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    /** For a refusal that passes with time (sent as Retry-After). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

export interface CommandDeps {
  pool: Pool;
  now: () => Date;
  /** The limits of the per-job controls (default: a 5m exec timeout, no model choice). */
  controls?: ControlSettings;
  /** Where long run results are (a deleted job's stay while its runs do). */
  objects?: ObjectStore | undefined;
  /**
   * Spends one of the job's pauses/resumes for this minute (JOB_TOGGLES_PER_MINUTE): null when
   * allowed, else seconds until the next one. Not given: unbounded (a run disabling its own job).
   */
  spendToggle?: ((tenantId: string, jobId: string) => Promise<number | null>) | undefined;
}

export interface TriggerDeps extends CommandDeps {
  /** Whether this replica's scheduler runs: a trigger is only heard by running schedulers. */
  schedulerRunning: () => boolean;
  /**
   * Spends one of the tenant's manual runs (a budget per tenant, not per job, so deleting and
   * re-creating jobs does not escape it): null when allowed, else seconds until the next one.
   */
  spendManualRun?: (tenantId: string) => Promise<number | null>;
}

export interface JobInput extends JobControlsInput, PlainInput {
  name: string;
  schedule: string;
  timezone?: string | undefined;
  prompt: string;
  enabled?: boolean | undefined;
  /** Skills whose text each run preloads (names; a missing one is reported to the run). */
  skills?: string[] | undefined;
  /** previous_result: each run sees the previous successful run's result. */
  context?: { previous_result?: boolean | undefined } | undefined;
}

export type JobPatch = Partial<JobInput>;

const settingsOf = (deps: CommandDeps) => deps.controls ?? DEFAULT_CONTROL_SETTINGS;

/** The controls' rules and the plain fields' checks, their errors as CommandErrors. */
function applyControls(
  deps: CommandDeps,
  input: JobControlsInput & PlainInput,
  prepared: PreparedFields,
  current: JobRow | undefined,
): Omit<JobWrite, 'skills' | 'context_previous_result'> {
  try {
    const controls = prepareControls(
      input,
      prepared.enabled,
      current,
      deps.now(),
      settingsOf(deps),
    );
    // A jitter as long as the gap between two occurrences would let one overtake the next.
    const { gapMs } = prepared;
    if (controls.jitterMs !== null && gapMs !== null && controls.jitterMs >= gapMs) {
      throw new ControlError(
        `jitter must be shorter than the ${gapMs / 1000}s between two occurrences`,
        422,
        'jitter_too_long',
      );
    }
    return { ...prepared.fields, ...controlColumns(controls), ...plainColumns(input, current) };
  } catch (err) {
    throw asCommandError(err);
  }
}

/** The plain fields (FieldInput.plain): as given, checked by their schema; absent: as they are. */
function plainColumns(input: PlainInput, current: JobRow | undefined) {
  const columns: Record<string, unknown> = {};
  for (const { key, column, check } of PLAIN_FIELDS) {
    const value = (input as Record<string, unknown>)[key];
    if (value === undefined) {
      columns[column] = asColumnValue(
        column,
        (current as Record<string, unknown> | undefined)?.[column] ?? null,
      );
      continue;
    }
    const checked = check.safeParse(value);
    if (!checked.success) {
      throw new ControlError(`${key}: ${checked.error.issues[0]?.message ?? 'invalid'}`);
    }
    columns[column] = asColumnValue(column, checked.data);
  }
  return columns as Pick<JobWrite, (typeof PLAIN_FIELDS)[number]['column']>;
}

/** A job's notify rules name channels of its tenant (docs/channels.md). */
async function checkNotifyChannels(
  client: PoolClient,
  rules: readonly { channel: string }[] | null | undefined,
): Promise<void> {
  if (!rules || rules.length === 0) return;
  const ids = [...new Set(rules.map((rule) => rule.channel))];
  const found = await selectChannelIds(client, ids);
  const missing = ids.find((id) => !found.has(id));
  if (missing !== undefined) {
    throw new CommandError(
      'channel_not_found',
      `notify: no notification channel with id ${missing} (GET /v1/channels)`,
      422,
    );
  }
}

/** The plain fields stored as jsonb whose value is a list (the others' lists are text[]). */
const JSON_LIST_COLUMNS: ReadonlySet<string> = new Set(['notify_rules']);

/**
 * A list goes to a jsonb column as JSON text: pg writes a JavaScript array as a PostgreSQL
 * array, which is right for text[] columns (models, mcp_servers) and wrong for jsonb.
 */
function asColumnValue(column: string, value: unknown): unknown {
  return Array.isArray(value) && JSON_LIST_COLUMNS.has(column) ? JSON.stringify(value) : value;
}

function asCommandError(err: unknown): unknown {
  return err instanceof ControlError ? new CommandError(err.code, err.message, err.status) : err;
}

async function requireModel(deps: CommandDeps, model: string | null | undefined): Promise<void> {
  await checkModel(model, settingsOf(deps)).catch((err: unknown) => {
    throw asCommandError(err);
  });
}

const endsAtOf = (input: JobControlsInput, current: JobRow | undefined): Date | null => {
  if (input.ends_at === undefined) return current?.ends_at ?? null;
  const date = input.ends_at === null ? null : new Date(input.ends_at);
  return date !== null && Number.isNaN(date.getTime()) ? null : date;
};

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

export const LIMITS = {
  nameChars: 200,
  promptBytes: 16 * 1024,
  pageDefault: 20,
  pageMax: 100,
  skillsPerJob: 8,
};

const SKILL_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;

export async function createJob(
  deps: CommandDeps,
  tenantId: string,
  input: JobInput,
  /** Runs in the job's transaction (the API stores its Idempotency-Key answer there). */
  beforeCommit?: (client: PoolClient, job: JobView) => Promise<void>,
): Promise<JobView> {
  // Schedule maths before the transaction: no connection or lock is held while it runs.
  const prepared = prepareFields(
    deps,
    {
      name: input.name,
      schedule: input.schedule,
      timezone: input.timezone,
      prompt: input.prompt,
      enabled: input.enabled ?? true,
    },
    endsAtOf(input, undefined),
  );
  const agent = checkAgentFields(input.skills ?? [], input.context?.previous_result ?? false);
  await requireModel(deps, input.model);
  for (const model of input.models ?? []) await requireModel(deps, model);
  const fields = applyControls(deps, input, prepared, undefined);
  return withTenant(deps.pool, tenantId, async (client) => {
    // Serialises creates of one tenant, so concurrent requests cannot overshoot the quota.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [tenantId]);
    const tenant = await requireTenant(client, tenantId);
    if ((await countJobs(client)) >= tenant.max_cron_jobs) {
      throw new CommandError(
        'quota_exceeded',
        `this tenant may have at most ${tenant.max_cron_jobs} cron jobs; delete one first`,
        409,
      );
    }
    checkInterval(prepared, tenant);
    await checkNotifyChannels(client, input.notify);
    const row = await insertJob<JobRow>(
      client,
      tenantId,
      ordered({ ...fields, ...agent }),
      JOB_SELECT,
    );
    const job = toJobView(row, deps.now());
    await beforeCommit?.(client, job);
    return job;
  });
}

export async function updateJob(
  deps: CommandDeps,
  tenantId: string,
  id: string,
  patch: JobPatch,
): Promise<JobView> {
  const merge = (current: JobRow) =>
    prepareFields(
      deps,
      {
        name: patch.name ?? current.name,
        schedule: patch.schedule ?? current.schedule,
        timezone: patch.timezone ?? current.timezone,
        prompt: patch.prompt ?? current.prompt,
        enabled: patch.enabled ?? current.enabled,
      },
      endsAtOf(patch, current),
    );
  await requireModel(deps, patch.model);
  for (const model of patch.models ?? []) await requireModel(deps, model);
  // The schedule maths runs before the transaction, on the job as it is now; if it changed in
  // between (a concurrent update), it runs again on the locked row.
  const before = await withTenant(deps.pool, tenantId, (client) => requireJob(client, id));
  let prepared = merge(before);
  return withTenant(deps.pool, tenantId, async (client) => {
    const current = await requireJob(client, id, true);
    const tenant = await requireTenant(client, tenantId);
    const same =
      current.schedule === before.schedule &&
      current.timezone === before.timezone &&
      current.enabled === before.enabled &&
      current.name === before.name &&
      current.prompt === before.prompt &&
      current.ends_at?.getTime() === before.ends_at?.getTime();
    if (!same) prepared = merge(current);
    checkInterval(prepared, tenant);
    if (patch.enabled !== undefined && patch.enabled !== current.enabled) {
      await spendToggle(deps, tenantId, id, patch.enabled);
    }
    const agent = checkAgentFields(
      patch.skills ?? current.skills,
      patch.context?.previous_result ?? current.context_previous_result,
    );
    const fields = applyControls(deps, patch, prepared, current);
    await checkNotifyChannels(client, patch.notify);
    const row = await updateJobRow<JobRow>(
      client,
      id,
      ordered({ ...fields, ...agent }),
      JOB_SELECT,
    );
    if (!row) throw notFound(id);
    return toJobView(row, deps.now());
  });
}

/** Pausing and resuming costs every pod a reschedule: bounded per job (429 toggle_budget). */
async function spendToggle(
  deps: CommandDeps,
  tenantId: string,
  jobId: string,
  enabled: boolean,
): Promise<void> {
  const waitSeconds = (await deps.spendToggle?.(tenantId, jobId)) ?? null;
  if (waitSeconds === null) return;
  throw new CommandError(
    'toggle_budget',
    `this job was paused or resumed too often in this minute (JOB_TOGGLES_PER_MINUTE); ${enabled ? 'resume' : 'pause'} it again in ${waitSeconds}s`,
    429,
    waitSeconds,
  );
}

export async function getJob(deps: CommandDeps, tenantId: string, id: string): Promise<JobView> {
  return withTenant(deps.pool, tenantId, async (client) =>
    toJobView(await requireJob(client, id), deps.now()),
  );
}

/**
 * Deletes the job: nothing fires afterwards, its run in flight is stopped (recorded cancelled),
 * and its runs stay in the history, with their result objects, until retention removes them.
 */
export async function deleteJob(deps: CommandDeps, tenantId: string, id: string): Promise<void> {
  await withTenant(deps.pool, tenantId, async (client) => {
    const deleted = isUuid(id) ? await softDeleteJob(client, id) : null;
    if (!deleted) throw notFound(id);
    // The notifications leave with the commit, after the job is gone for every pod.
    for (const runId of deleted.runIds) await notifyCancel(client, id, runId);
  });
}

export async function listJobs(
  deps: CommandDeps,
  tenantId: string,
  page: {
    limit?: number | undefined;
    cursor?: string | undefined;
    /** "key=value" or "key", all of them must hold. */
    label?: string | readonly string[] | undefined;
  },
): Promise<Page<JobView>> {
  const limit = checkLimit(page.limit);
  const before = checkCursor(page.cursor);
  const labels = checkLabelFilters(page.label);
  const rows = await withTenant(deps.pool, tenantId, (client) =>
    listJobRows<JobRow>(client, JOB_SELECT, limit + 1, before, labels),
  );
  return toPage(rows, limit, (row) => toJobView(row, deps.now()));
}

export async function listRuns(
  deps: CommandDeps,
  tenantId: string,
  jobId: string,
  page: { limit?: number | undefined; cursor?: string | undefined; status?: RunView['status'] },
): Promise<Page<RunView>> {
  const limit = checkLimit(page.limit);
  const before = checkCursor(page.cursor);
  const rows = await withTenant(deps.pool, tenantId, async (client) => {
    await requireJob(client, jobId);
    return listRunsOfJob(client, jobId, limit + 1, before, page.status ?? null);
  });
  return toPage(rows, limit, toRunView);
}

/**
 * Asks the pods to run the job once now; the run is recorded like any other. Manual runs of a
 * job are at least the tenant's minimum schedule interval apart, as scheduled ones are.
 */
export async function triggerJob(
  deps: TriggerDeps,
  tenantId: string,
  id: string,
): Promise<{ job_id: string; scheduled_at: string }> {
  if (!deps.schedulerRunning()) {
    throw new CommandError(
      'scheduler_unavailable',
      'the scheduler is waiting for Redis; try again shortly',
      503,
    );
  }
  return withTenant(deps.pool, tenantId, async (client) => {
    const job = await requireJob(client, id, true);
    if (!job.enabled) {
      throw new CommandError('job_disabled', 'the job is disabled; enable it to run it', 409);
    }
    if (job.ends_at !== null && job.ends_at.getTime() < deps.now().getTime()) {
      throw new CommandError('job_ended', `the job ended at ${job.ends_at.toISOString()}`, 409);
    }
    const tenant = await requireTenant(client, tenantId);
    const scheduledAt = deps.now();
    const cooldownSeconds = tenant.min_schedule_interval_seconds;
    const allowedAt = await recordManualTrigger(client, id, scheduledAt, cooldownSeconds);
    if (allowedAt) {
      const waitSeconds = Math.max(
        1,
        Math.ceil((allowedAt.getTime() - scheduledAt.getTime()) / 1000),
      );
      throw new CommandError(
        'trigger_too_soon',
        `this job was run by hand less than ${cooldownSeconds}s ago (the tenant's minimum interval); retry in ${waitSeconds}s`,
        429,
        waitSeconds,
      );
    }
    const waitForBudgetSeconds = (await deps.spendManualRun?.(tenantId)) ?? null;
    if (waitForBudgetSeconds !== null) {
      throw new CommandError(
        'manual_run_budget',
        `this tenant has used its manual runs for this minute; retry in ${waitForBudgetSeconds}s`,
        429,
        waitForBudgetSeconds,
      );
    }
    await notifyTrigger(client, id, scheduledAt);
    return { job_id: id, scheduled_at: scheduledAt.toISOString() };
  });
}

// A preview lists occurrences within this many years of its start: 100 occurrences of 29 February
// would otherwise take 400 years of zone data, and seconds of CPU for a few concurrent requests.
export const PREVIEW_HORIZON_YEARS = 10;
const PREVIEW_HORIZON_MS = PREVIEW_HORIZON_YEARS * 365.25 * 86_400_000;
const PREVIEW_SLICE_MS = 2;

/** Validates a schedule and lists its next fire times (nothing is stored). */
export async function previewSchedule(
  input: {
    schedule: string;
    timezone?: string | undefined;
    count?: number | undefined;
    from?: Date | undefined;
  },
  now: Date,
): Promise<{ schedule: string; timezone: string; next: string[] }> {
  const parsed = checkSchedule(input.schedule, input.timezone);
  const count = input.count ?? 10;
  if (!Number.isInteger(count) || count < 1 || count > 100) {
    throw new CommandError('validation_error', 'count must be a whole number from 1 to 100', 400);
  }
  const from = input.from ?? now;
  const untilMs = from.getTime() + PREVIEW_HORIZON_MS;
  // Concurrent previews take turns with other requests: after each slice of work the event loop
  // may serve them (a cold zone costs a few milliseconds).
  const next: Date[] = [];
  let sliceStart = performance.now();
  for (let at = parsed.nextAfter(from); at !== null && at.getTime() <= untilMs;) {
    next.push(at);
    if (next.length === count) break;
    if (performance.now() - sliceStart > PREVIEW_SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
    at = parsed.nextAfter(at);
  }
  return {
    schedule: input.schedule,
    timezone: parsed.timezone,
    next: next.map((d) => d.toISOString()),
  };
}

interface PreparedFields {
  fields: Pick<JobWrite, 'name' | 'schedule' | 'timezone' | 'prompt' | 'enabled' | 'next_run_at'>;
  enabled: boolean;
  source: string;
  /** The closest two occurrences (null: fewer than two within the look-ahead). */
  gapMs: number | null;
}

/** Validates the fields and does the schedule maths; needs nothing from the database. */
function prepareFields(
  deps: CommandDeps,
  input: Pick<JobInput, 'name' | 'schedule' | 'prompt' | 'timezone'> & { enabled: boolean },
  endsAt: Date | null,
): PreparedFields {
  const name = input.name.trim();
  if (name.length === 0 || name.length > LIMITS.nameChars) {
    throw invalid(`name must be 1 to ${LIMITS.nameChars} characters`);
  }
  if (input.prompt.trim().length === 0) throw invalid('prompt must not be empty');
  // PostgreSQL text cannot hold U+0000; refused here rather than failing in the database.
  if (name.includes('\u0000') || input.prompt.includes('\u0000')) {
    throw invalid('name and prompt must not contain NUL (U+0000) characters');
  }
  if (Buffer.byteLength(input.prompt, 'utf8') > LIMITS.promptBytes) {
    throw invalid(`prompt must be at most ${LIMITS.promptBytes} bytes`);
  }
  const parsed = checkSchedule(input.schedule, input.timezone, endsAt);
  const now = deps.now();
  const fields = {
    name,
    schedule: input.schedule.trim(),
    // The zone the schedule really fires in: a CRON_TZ= prefix overrides the timezone field.
    timezone: parsed.timezone,
    prompt: input.prompt,
    enabled: input.enabled,
    next_run_at: input.enabled ? parsed.nextAfter(now) : null,
  };
  const unbounded = endsAt === null ? parsed : checkSchedule(input.schedule, input.timezone);
  return {
    fields,
    enabled: input.enabled,
    source: input.schedule,
    gapMs: minIntervalMs(unbounded, now),
  };
}

function checkAgentFields(
  skills: string[],
  previousResult: boolean,
): Pick<JobWrite, 'skills' | 'context_previous_result'> {
  if (skills.length > LIMITS.skillsPerJob) {
    throw invalid(`a job preloads at most ${LIMITS.skillsPerJob} skills`);
  }
  const bad = skills.find((skill) => !SKILL_NAME.test(skill));
  if (bad !== undefined) {
    throw invalid(
      `skills: ${JSON.stringify(bad.slice(0, 80))} is not a skill name (lower-case letters, digits, hyphens)`,
    );
  }
  return { skills: [...new Set(skills)], context_previous_result: previousResult };
}

/** The tenant's minimum interval, checked inside the transaction (the tenant row is read there). */
function checkInterval(
  prepared: PreparedFields,
  tenant: { min_schedule_interval_seconds: number },
): void {
  const { gapMs } = prepared;
  if (gapMs !== null && gapMs < tenant.min_schedule_interval_seconds * 1000) {
    throw new CommandError(
      'schedule_too_frequent',
      `"${prepared.source}" fires every ${gapMs / 1000}s at its closest; this tenant allows at most one run every ${tenant.min_schedule_interval_seconds}s`,
      422,
    );
  }
}

function checkSchedule(
  schedule: string,
  timezone: string | undefined,
  endsAt: Date | null = null,
): ParsedSchedule {
  const check = parseSchedule({ schedule, timezone, endsAt });
  if (!check.ok) throw new CommandError('invalid_schedule', check.message, 422);
  return check.schedule;
}

/** Every written column (the compiler checks there is no other), in the table's order. */
function ordered(write: JobWrite): Record<string, unknown> {
  return Object.fromEntries(WRITTEN_COLUMNS.map((column) => [column, write[column]]));
}

/** One page from limit + 1 rows: the extra row only says whether another page follows. */
export function toPage<Row extends { page_key: string; id: string }, View>(
  rows: Row[],
  limit: number,
  view: (row: Row) => View,
): Page<View> {
  const data = rows.slice(0, limit);
  const last = data[data.length - 1];
  return {
    data: data.map(view),
    next_cursor: rows.length > limit && last ? encodeCursor(last.page_key, last.id) : null,
  };
}

export function checkLabelFilters(label: string | readonly string[] | undefined) {
  const filters = label === undefined ? [] : typeof label === 'string' ? [label] : label;
  try {
    return parseLabelFilters(filters);
  } catch (err) {
    throw asCommandError(err);
  }
}

export function checkLimit(limit: number | undefined): number {
  const value = limit ?? LIMITS.pageDefault;
  if (!Number.isInteger(value) || value < 1 || value > LIMITS.pageMax) {
    throw invalid(`limit must be a whole number from 1 to ${LIMITS.pageMax}`);
  }
  return value;
}

export function checkCursor(cursor: string | undefined): { at: string; id: string } | null {
  if (cursor === undefined || cursor === '') return null;
  const decoded = decodeCursor(cursor);
  if (!decoded)
    throw new CommandError('invalid_cursor', 'cursor is not one this API returned', 400);
  return decoded;
}

async function requireJob(client: PoolClient, id: string, forUpdate = false) {
  const job = isUuid(id) ? await selectJob<JobRow>(client, id, JOB_SELECT, forUpdate) : undefined;
  if (!job) throw notFound(id);
  return job;
}

async function requireTenant(client: PoolClient, tenantId: string) {
  const tenant = await selectTenant(client, tenantId);
  if (!tenant || tenant.deleted_at)
    throw new CommandError('tenant_not_found', 'tenant not found', 404);
  return tenant;
}

const notFound = (id: string) => new CommandError('not_found', `no cron job with id ${id}`, 404);
const invalid = (message: string) => new CommandError('validation_error', message, 400);

export function isUuid(text: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text);
}
