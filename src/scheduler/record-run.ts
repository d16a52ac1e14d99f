// Recording a run's outcome: one batched statement with the job's statistics, retried through
// short database blips, then the log line, the metrics and the "recorded" event.
import { errorMessage, type Occurrence } from './occurrence.js';
import type { RunOutcome } from './ports.js';
import type { AgentCall } from './call-agent.js';
import type { PipelineDeps, RunResult } from './pipeline.js';

const RECORD_RETRY_DELAYS_MS = [250, 1000, 3000];

export async function recordRun(
  deps: PipelineDeps,
  occurrence: Occurrence,
  runId: string,
  call: AgentCall,
): Promise<RunResult> {
  const { outcome } = call;
  const recorded = await recordOutcome(deps, runId, outcome);
  const status = outcome.success ? 'success' : 'failed';
  const durationMs = call.finishedMs - call.startedMs;
  deps.metrics.runs.inc({ status, error_kind: outcome.errorKind ?? 'none' });
  deps.metrics.runDuration.observe({ status }, durationMs / 1000);
  const line = {
    job_id: occurrence.jobId,
    tenant_id: occurrence.tenantId,
    run_id: runId,
    scheduled_at: new Date(occurrence.scheduledAtMs).toISOString(),
    status,
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

/** Writes the outcome, retrying through short database blips; false if it could not. */
async function recordOutcome(
  deps: PipelineDeps,
  runId: string,
  outcome: RunOutcome,
): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await deps.store.finishRun(runId, outcome, deps.settings.podId);
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
