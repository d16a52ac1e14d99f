import type {
  ActiveRun,
  AdoptedRun,
  AttemptRecord,
  RunHistoryUpkeep,
  RunOrigin,
  RunOutcome,
  UsageCall,
} from '../domain/run.js';
import type { ClaimAnswer, RecordAnswer } from '../scheduler/ports.js';
import type { ErrorKind } from '../domain/vocabulary.js';
import type { Pool } from './pool.js';

// The scheduler's statements on cron_job_runs, one function each. Each goes through a SECURITY
// DEFINER function of migrations/functions/ (the SQL in force), because the scheduler works across tenants.

export async function failRuns(
  pool: Pool,
  runIds: readonly string[],
  reason: string,
  kind: ErrorKind,
): Promise<{ runId: string; jobId: string; requeued: boolean }[]> {
  const { rows } = await pool.query<{ run_id: string; cron_job_id: string; requeued: boolean }>(
    'SELECT run_id, cron_job_id, requeued FROM scheduler_fail($1, $2, $3)',
    [runIds, reason, kind],
  );
  return rows.map((row) => ({
    runId: row.run_id,
    jobId: row.cron_job_id,
    requeued: row.requeued,
  }));
}

export async function listActiveRuns(pool: Pool): Promise<ActiveRun[]> {
  const { rows } = await pool.query<{
    run_id: string;
    cron_job_id: string;
    pod_id: string;
    status: 'claimed' | 'running';
  }>('SELECT run_id, cron_job_id, pod_id, status FROM scheduler_active_runs()');
  return rows.map((row) => ({
    runId: row.run_id,
    jobId: row.cron_job_id,
    podId: row.pod_id,
    status: row.status,
  }));
}

export async function cleanupStaleRuns(pool: Pool, lockTtlMs: number): Promise<number> {
  const { rows } = await pool.query<{ count: number }>(
    'SELECT scheduler_cleanup_stale_runs($1) AS count',
    [Math.ceil(lockTtlMs / 1000)],
  );
  return rows[0]?.count ?? 0;
}

export interface ClaimRequest {
  jobId: string;
  scheduledAt: Date;
  /** The job's next_run_at once this occurrence is claimed; null leaves it as it is. */
  nextRunAt?: Date | null;
  /** Claimed straight into 'running' with this origin (the request leaves at once). */
  sendAs?: RunOrigin | undefined;
}

interface ClaimRow {
  cron_job_id: string;
  scheduled_at: Date;
  run_id: string | null;
  name: string | null;
  prompt: string | null;
  refused: 'capped' | null;
  timeout_ms: number | null;
  model: string | null;
  skills: string[] | null;
  previous_result: boolean | null;
  context_version: string | null;
  output_schema: Record<string, unknown> | null;
  models: string[] | null;
  notify_agent: boolean | null;
  monthly_budget_micros: string | null;
  monthly_budget_tokens: string | null;
  daily_budget_micros: string | null;
  max_run_tokens: number | null;
}

/** Claims many occurrences in one statement; per request: claimed, capped or taken. */
export async function claimRuns(
  pool: Pool,
  claims: readonly ClaimRequest[],
  podId: string,
): Promise<ClaimAnswer[]> {
  const { rows } = await pool.query<ClaimRow>(
    `SELECT cron_job_id, scheduled_at, run_id, name, prompt, refused, timeout_ms, model, skills,
            previous_result, context_version, output_schema, models, notify_agent,
            monthly_budget_micros, monthly_budget_tokens, daily_budget_micros, max_run_tokens
       FROM scheduler_claim($1, $2, $3, $4, $5)`,
    [
      claims.map((c) => c.jobId),
      claims.map((c) => c.scheduledAt),
      claims.map((c) => c.nextRunAt ?? null),
      podId,
      claims.map((c) => c.sendAs ?? null),
    ],
  );
  const answers = new Map<string, ClaimAnswer>();
  for (const row of rows) {
    const key = `${row.cron_job_id}|${row.scheduled_at.getTime()}`;
    if (row.refused === 'capped') answers.set(key, { kind: 'capped' });
    else if (row.run_id !== null) {
      answers.set(key, {
        kind: 'claimed',
        run: {
          runId: row.run_id,
          name: row.name ?? '',
          prompt: row.prompt ?? '',
          timeoutMs: row.timeout_ms,
          model: row.model,
          ...(row.context_version === null
            ? {}
            : {
                agent: {
                  skills: row.skills ?? [],
                  previousResult: row.previous_result === true,
                  tenantVersion: row.context_version,
                  answer: {
                    outputSchema: row.output_schema,
                    models: row.models,
                    notifyAgent: row.notify_agent === true,
                  },
                  limits: {
                    monthlyMicros: numberOrNull(row.monthly_budget_micros),
                    monthlyTokens: numberOrNull(row.monthly_budget_tokens),
                    jobDailyMicros: numberOrNull(row.daily_budget_micros),
                    runTokens: row.max_run_tokens,
                  },
                },
              }),
        },
      });
    }
  }
  // The same occurrence asked twice in one batch was inserted once: only the first asker gets it.
  return claims.map((c) => {
    const key = `${c.jobId}|${c.scheduledAt.getTime()}`;
    const answer = answers.get(key) ?? { kind: 'taken' };
    if (answer.kind !== 'claimed') return answer;
    answers.delete(key);
    return c.sendAs ? { kind: 'claimed', run: { ...answer.run, sent: true } } : answer;
  });
}

/** A bigint column as pg returns it (text), as a number. */
function numberOrNull(value: string | null): number | null {
  return value === null ? null : Number(value);
}

export interface MarkRequest {
  runId: string;
  /** Undefined keeps the run's origin (an adopted run). */
  origin?: RunOrigin;
  /** The run's nominal time: its day's history only is searched (undefined: every day's). */
  scheduledAt?: Date;
}

/** claimed -> running for the runs still this pod's; true for each one it may now send. */
export async function markRunsSent(
  pool: Pool,
  marks: readonly MarkRequest[],
  podId: string,
): Promise<boolean[]> {
  const { rows } = await pool.query<{ id: string }>(
    'SELECT scheduler_mark_sent($1, $2, $3, $4) AS id',
    [
      marks.map((m) => m.runId),
      podId,
      marks.map((m) => m.origin ?? null),
      marks.map((m) => m.scheduledAt ?? null),
    ],
  );
  const sent = new Set(rows.map((row) => row.id));
  return marks.map((m) => sent.has(m.runId));
}

/** A running run's attempts so far (retries), shown while it runs. */
export async function noteRunProgress(
  pool: Pool,
  runId: string,
  podId: string,
  attempts: number,
  log: readonly AttemptRecord[],
): Promise<void> {
  await pool.query('SELECT scheduler_run_progress($1, $2, $3, $4)', [
    runId,
    podId,
    attempts,
    JSON.stringify(log.map(attemptJson)),
  ]);
}

function attemptJson(attempt: AttemptRecord) {
  return {
    started_at: attempt.startedAt,
    duration_ms: attempt.durationMs,
    outcome: attempt.outcome,
    model: attempt.model ?? null,
  };
}

/** The per-run extras scheduler_finish stores beside the outcome (p_details). */
function finishDetails(outcome: RunOutcome): string {
  const detail = outcome.detail;
  return JSON.stringify({
    result_object_key: outcome.resultObjectKey ?? null,
    result_bytes:
      outcome.resultBytes ??
      (outcome.result === null ? null : Buffer.byteLength(outcome.result, 'utf8')),
    result_truncated: outcome.resultTruncated ?? false,
    ...(outcome.output !== undefined ? { output: outcome.output } : {}),
    ...(detail
      ? {
          detail: {
            prompt_sent: detail.promptSent,
            model: detail.model,
            usage: detail.usage && {
              prompt_tokens: detail.usage.promptTokens,
              completion_tokens: detail.usage.completionTokens,
            },
            attempt_log: detail.attemptLog.map(attemptJson),
            calls: (detail.calls ?? []).map(callJson),
          },
          ...usageDetails(detail.calls ?? []),
          budget_resets_at: detail.budgetResetsAt ?? null,
        }
      : {}),
  });
}

function callJson(call: UsageCall) {
  return {
    model: call.model,
    prompt_tokens: call.promptTokens,
    cached_tokens: call.cachedTokens,
    completion_tokens: call.completionTokens,
    cost_micros: call.costMicros,
  };
}

/** The run's totals and its ledger rows, for scheduler_finish (none: no model call). */
function usageDetails(calls: readonly UsageCall[]) {
  if (calls.length === 0) return {};
  const sum = (pick: (call: UsageCall) => number) =>
    calls.reduce((total, call) => total + pick(call), 0);
  const unknown = calls.some((call) => call.costMicros === null);
  return {
    usage: {
      prompt_tokens: sum((c) => c.promptTokens),
      cached_tokens: sum((c) => c.cachedTokens),
      completion_tokens: sum((c) => c.completionTokens),
      cost_micros: unknown ? null : sum((c) => c.costMicros ?? 0),
    },
    usage_calls: calls.map(callJson),
  };
}

export interface FinishRequest {
  runId: string;
  outcome: RunOutcome;
  /** The run's nominal time, when known: its partition. */
  scheduledAt?: Date | undefined;
}

/** Records many outcomes in one statement; false for each run that was no longer this pod's. */
export async function finishRuns(
  pool: Pool,
  items: readonly FinishRequest[],
  podId: string,
): Promise<RecordAnswer[]> {
  const { rows } = await pool.query<{ run_id: string; requeued: boolean }>(
    'SELECT run_id, requeued FROM scheduler_finish($1, $2, $3, $4, $5, $6, $7, $8, $9)',
    [
      items.map((i) => i.runId),
      items.map((i) => i.outcome.success),
      items.map((i) => i.outcome.result),
      items.map((i) => i.outcome.error),
      items.map((i) => i.outcome.errorKind),
      items.map((i) => i.outcome.attempts),
      podId,
      items.map((i) => finishDetails(i.outcome)),
      items.map((i) => i.scheduledAt ?? null),
    ],
  );
  const finished = new Map(rows.map((row) => [row.run_id, row.requeued]));
  return items.map((i) => {
    const requeued = finished.get(i.runId);
    return requeued === undefined ? false : requeued ? 'requeued' : 'recorded';
  });
}

/** A run a pod takes to run (adopted or queued), as the scheduler's functions return it. */
export interface TakenRunRow {
  run_id: string;
  cron_job_id: string;
  tenant_id: string;
  scheduled_at: Date;
  name: string;
  prompt: string;
  timeout_ms: number | null;
  model: string | null;
  attempt: number;
}

export const TAKEN_RUN_COLUMNS =
  'run_id, cron_job_id, tenant_id, scheduled_at, name, prompt, timeout_ms, model, attempt';

export function toAdoptedRun(row: TakenRunRow): AdoptedRun {
  return {
    runId: row.run_id,
    jobId: row.cron_job_id,
    tenantId: row.tenant_id,
    scheduledAt: row.scheduled_at,
    name: row.name,
    prompt: row.prompt,
    timeoutMs: row.timeout_ms,
    model: row.model,
    attempt: row.attempt,
  };
}

/** Takes over claimed runs from the pods named; returns the ones taken, with what running them needs. */
export async function adoptRuns(
  pool: Pool,
  runs: readonly { runId: string; fromPodId: string }[],
  podId: string,
): Promise<AdoptedRun[]> {
  const { rows } = await pool.query<TakenRunRow>(
    `SELECT ${TAKEN_RUN_COLUMNS} FROM scheduler_adopt($1, $2, $3)`,
    [runs.map((r) => r.runId), runs.map((r) => r.fromPodId), podId],
  );
  return rows.map(toAdoptedRun);
}

/**
 * Partitions ahead, partitions past retention dropped, short-retention rows deleted, deleted jobs
 * without runs purged (bounded).
 */
export async function maintainRunHistory(
  pool: Pool,
  daysAhead: number,
  deleteLimit: number,
): Promise<RunHistoryUpkeep> {
  const { rows } = await pool.query<{
    created: number;
    dropped: number;
    deleted: number;
    purged_tenant_ids: string[];
    purged_job_ids: string[];
  }>('SELECT * FROM scheduler_runs_maintain($1, $2)', [daysAhead, deleteLimit]);
  const row = rows[0];
  if (!row) return { created: 0, dropped: 0, deleted: 0, purgedJobs: [] };
  return {
    created: row.created,
    dropped: row.dropped,
    deleted: row.deleted,
    purgedJobs: row.purged_job_ids.map((jobId, i) => ({
      tenantId: row.purged_tenant_ids[i] as string,
      jobId,
    })),
  };
}
