import { formatDurationMs } from '../duration.js';
import type { ClaimedRun, RunOutcome } from './ports.js';
import { errorMessage, type LoadedJob, type Occurrence, type SchedulerContext } from './state.js';

/** Why a run was aborted; its message becomes the run's error text. */
export class RunAborted extends Error {
  override name = 'RunAborted';
}

const RECORD_RETRY_DELAYS_MS = [250, 1000, 3000];

/** Runs a claimed occurrence through the agent runner and records the outcome. */
export async function executeRun(
  ctx: SchedulerContext,
  loaded: LoadedJob,
  occurrence: Occurrence,
  claimed: ClaimedRun,
  controller: AbortController,
  onAgentDone: () => void,
): Promise<void> {
  const { job } = loaded;
  const { runId } = claimed;
  const startedMs = ctx.clock.now();
  if (occurrence.kind === 'scheduled') {
    ctx.metrics.fireLag.observe(Math.max(0, startedMs - occurrence.scheduledAtMs) / 1000);
  } else if (occurrence.kind === 'catchup') {
    ctx.metrics.caughtUp.inc();
  }
  const timeout = ctx.clock.setTimeout(() => {
    const limit = formatDurationMs(ctx.settings.execTimeoutMs);
    controller.abort(new RunAborted(`timeout: run exceeded SCHEDULER_EXEC_TIMEOUT (${limit})`));
  }, ctx.settings.execTimeoutMs);
  const request = {
    jobId: job.id,
    tenantId: job.tenantId,
    name: claimed.name,
    prompt: claimed.prompt,
    timezone: loaded.schedule.timezone,
    scheduledAt: new Date(occurrence.scheduledAtMs),
  };
  const outcome = await runUntilAborted(
    () => ctx.runner(request, controller.signal),
    controller.signal,
  );
  ctx.clock.clearTimeout(timeout);
  onAgentDone();

  const finishedMs = ctx.clock.now();
  const current = ctx.jobs.get(job.id) ?? loaded;
  const nextRunAt = current.schedule.nextAfter(new Date(finishedMs));
  const recorded = await recordOutcome(ctx, runId, outcome, nextRunAt);
  const status = outcome.success ? 'success' : 'failed';
  ctx.metrics.runs.inc({ status });
  ctx.log.info(
    {
      job_id: job.id,
      tenant_id: job.tenantId,
      run_id: runId,
      scheduled_at: new Date(occurrence.scheduledAtMs).toISOString(),
      status,
      duration_ms: finishedMs - startedMs,
      pod: ctx.settings.podId,
      ...(outcome.error ? { error: outcome.error } : {}),
      ...(recorded ? {} : { recorded: false }),
    },
    'cron job executed',
  );
}

/** The runner's reply, or its failure; an abort wins even when the runner ignores its signal. */
async function runUntilAborted(
  run: () => Promise<string>,
  signal: AbortSignal,
): Promise<RunOutcome> {
  let onAbort: () => void = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason as Error);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const result = await Promise.race([run(), aborted]);
    return { success: true, result, error: null };
  } catch (err) {
    const reason = signal.aborted ? errorMessage(signal.reason) : errorMessage(err);
    return { success: false, result: null, error: reason || 'run failed' };
  } finally {
    signal.removeEventListener('abort', onAbort);
    aborted.catch(() => {});
  }
}

/** Writes the outcome, retrying through short database blips; false if it could not. */
async function recordOutcome(
  ctx: SchedulerContext,
  runId: string,
  outcome: RunOutcome,
  nextRunAt: Date | null,
): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await ctx.store.finishRun(runId, outcome, nextRunAt);
    } catch (err) {
      const delayMs = RECORD_RETRY_DELAYS_MS[attempt];
      if (delayMs === undefined) {
        ctx.log.error(
          { run_id: runId, error: errorMessage(err) },
          'cannot record run; recovery will mark it failed',
        );
        return false;
      }
      ctx.log.warn({ run_id: runId, error: errorMessage(err) }, 'cannot record run, retrying');
      await new Promise<void>((resolve) => ctx.clock.setTimeout(resolve, delayMs));
    }
  }
}
