// Recording a run's outcome: one batched statement with the job's statistics, retried through
// short database blips, then the log line, the metrics and the "recorded" event.
import { cutUtf8, RESULT_INLINE_BYTES, shortResult } from '../domain/result-text.js';
import { errorMessage, type Occurrence } from './occurrence.js';
import type { RecordAnswer, RefusedResult } from './ports.js';
import type { RunOutcome } from '../domain/run.js';
import type { AgentCall } from './call-agent.js';
import type { PipelineDeps, RunResult } from './pipeline.js';
import { tenantErrorText } from './tenant-error.js';

const RECORD_RETRY_DELAYS_MS = [250, 1000, 3000];

export async function recordRun(
  deps: PipelineDeps,
  occurrence: Occurrence,
  runId: string,
  call: AgentCall,
): Promise<RunResult> {
  const outcome = await placeAnswer(deps, occurrence, runId, call.outcome);
  // Stored for the tenant: a generic text per kind; the details stay in the log line below.
  const stored = outcome.success
    ? outcome
    : { ...outcome, error: tenantErrorText(outcome.errorKind, runId, outcome.error ?? '') };
  const answer = await recordOutcome(deps, runId, stored, new Date(occurrence.scheduledAtMs));
  const recorded = answer !== false;
  if (!recorded && outcome.resultObjectKey) {
    // Recovery failed the run meanwhile (or it was never recorded): its object has no row.
    await deps.results?.remove(outcome.resultObjectKey).catch(() => {});
  }
  const status = outcome.success ? 'success' : 'failed';
  const durationMs = call.finishedMs - call.startedMs;
  deps.metrics.runs.inc({ status, error_kind: outcome.errorKind ?? 'none' });
  deps.metrics.runDuration.observe({ status }, durationMs / 1000);
  const line = {
    job_id: occurrence.jobId,
    tenant_id: occurrence.tenantId,
    run_id: runId,
    scheduled_at: new Date(occurrence.scheduledAtMs).toISOString(),
    // A failed attempt its job retries: the run waits in the queue for its next attempt.
    status: answer === 'requeued' ? 'queued' : status,
    duration_ms: durationMs,
    pod: deps.settings.podId,
    attempts: outcome.attempts,
    ...(outcome.success ? {} : { error_kind: outcome.errorKind, error: outcome.error }),
    ...(recorded ? {} : { recorded: false }),
  };
  if (outcome.success) deps.log.info(line, 'cron job executed');
  else deps.log.warn(line, 'cron job executed');
  deps.events.emit('recorded', {
    jobId: occurrence.jobId,
    runId,
    scheduledAtMs: occurrence.scheduledAtMs,
    status,
    errorKind: outcome.errorKind,
    recorded,
  });
  return { kind: 'ran', runId, outcome, recorded };
}

/**
 * The answer where it will live before the run is recorded: inline up to 8 KiB, else in the
 * object store first (so no recorded run points at a missing object). An answer the store
 * refuses fails the run (result_not_stored) with its short form kept, one its tenant's quota of
 * stored bytes has no room for fails it too (result_quota); without a store (unit tests), a long
 * answer is cut to its short form.
 */
async function placeAnswer(
  deps: PipelineDeps,
  occurrence: Occurrence,
  runId: string,
  outcome: RunOutcome,
): Promise<RunOutcome> {
  const text = outcome.result;
  if (text === null) return outcome;
  const bytes = Buffer.byteLength(text, 'utf8');
  if (!deps.results) {
    const column = bytes <= RESULT_INLINE_BYTES ? text : shortResult(text);
    return {
      ...outcome,
      result: column,
      resultBytes: Buffer.byteLength(column, 'utf8'),
      resultTruncated: (outcome.resultTruncated ?? false) || column.length < text.length,
    };
  }
  const ids = { tenantId: occurrence.tenantId, jobId: occurrence.jobId, runId };
  try {
    const placed = await deps.results.place(ids, text);
    if ('refused' in placed) return overQuota(outcome, text, placed);
    return {
      ...outcome,
      result: placed.column,
      resultObjectKey: placed.objectKey,
      resultBytes: placed.bytes,
    };
  } catch (err) {
    deps.log.error(
      {
        run_id: runId,
        job_id: occurrence.jobId,
        tenant_id: occurrence.tenantId,
        bytes,
        error: errorMessage(err),
      },
      'cannot store run result',
    );
    const column = shortResult(text);
    return {
      ...outcome,
      success: false,
      result: column,
      resultBytes: Buffer.byteLength(column, 'utf8'),
      resultTruncated: true,
      errorKind: 'result_not_stored',
      error: cutUtf8(
        `the answer (${bytes} bytes) could not be stored: ${errorMessage(err)}; its first ${column.length} characters are kept`,
        1024,
      ),
    };
  }
}

/**
 * A long answer its tenant's quota of stored bytes had no room for: the run fails
 * (result_quota) with the short form kept, and says which quota and how to change it.
 */
function overQuota(outcome: RunOutcome, text: string, refused: RefusedResult): RunOutcome {
  const column = shortResult(text);
  return {
    ...outcome,
    success: false,
    result: column,
    resultBytes: Buffer.byteLength(column, 'utf8'),
    resultTruncated: true,
    errorKind: 'result_quota',
    error: cutUtf8(
      `the answer (${refused.bytes} bytes) was not stored: this tenant's stored run results ` +
        `(${refused.usedBytes} bytes) would pass its quota of ${refused.quotaBytes} bytes ` +
        `(the tenant's result_bytes_quota, else TENANT_RESULT_BYTES_QUOTA); its first ` +
        `${column.length} characters are kept. Stored results are freed as runs leave the ` +
        `history (run_retention_days).`,
      1024,
    ),
  };
}

/** Writes the outcome, retrying through short database blips; false if it could not. */
async function recordOutcome(
  deps: PipelineDeps,
  runId: string,
  outcome: RunOutcome,
  scheduledAt: Date,
): Promise<RecordAnswer> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await deps.store.finishRun(runId, outcome, deps.settings.podId, scheduledAt);
    } catch (err) {
      const delayMs = RECORD_RETRY_DELAYS_MS[attempt];
      if (delayMs === undefined) {
        deps.log.error(
          { run_id: runId, error: errorMessage(err) },
          'cannot record run; recovery will mark it failed',
        );
        return false;
      }
      deps.log.warn({ run_id: runId, error: errorMessage(err) }, 'cannot record run, retrying');
      await new Promise<void>((resolve) => deps.clock.setTimeout(resolve, delayMs));
    }
  }
}
