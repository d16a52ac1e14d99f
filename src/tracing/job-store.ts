// The scheduler's claims and records, traced by wrapping its JobStore port (src/main.ts), so the
// scheduler core knows nothing of tracing. A claim opens the run's trace with a `claim` span of
// the time the claim took (batched with others or not, as the run saw it); the record adds
// `run.record` and ends the root with the run's status.
import type { JobStore } from '../scheduler/ports.js';
import type { RunOrigin } from '../domain/run.js';
import type { RunTraces } from './run-traces.js';

/** The store itself when tracing is off: not even a clock read is added to a claim. */
export function traceJobStore(store: JobStore, runs: RunTraces): JobStore {
  if (!runs.enabled) return store;
  return {
    ...store,
    claimRun: async (jobId, scheduledAt, podId, nextRunAt, sendAs) => {
      const startMs = Date.now();
      const answer = await store.claimRun(jobId, scheduledAt, podId, nextRunAt, sendAs);
      if (answer.kind === 'claimed') {
        runs.claimed(
          answer.run.runId,
          startMs,
          Date.now(),
          claimAttributes(jobId, scheduledAt, sendAs),
        );
      }
      return answer;
    },
    claimWaiting: async (jobId, scheduledAt, podId, nextRunAt) => {
      const startMs = Date.now();
      const answer = await store.claimWaiting(jobId, scheduledAt, podId, nextRunAt);
      if (answer.kind === 'claimed') {
        runs.claimed(answer.run.runId, startMs, Date.now(), claimAttributes(jobId, scheduledAt));
      }
      return answer;
    },
    takeQueuedRuns: async (podId, limit) => {
      const startMs = Date.now();
      const taken = await store.takeQueuedRuns(podId, limit);
      const endMs = Date.now();
      for (const run of taken) {
        runs.claimed(run.runId, startMs, endMs, {
          ...claimAttributes(run.jobId, run.scheduledAt, undefined, run.attempt),
          'hermesx.tenant.id': run.tenantId,
          'hermesx.run.claimed_from': 'queue',
        });
      }
      return taken;
    },
    adoptRuns: async (toAdopt, podId) => {
      const startMs = Date.now();
      const adopted = await store.adoptRuns(toAdopt, podId);
      const endMs = Date.now();
      for (const run of adopted) {
        runs.claimed(run.runId, startMs, endMs, {
          ...claimAttributes(run.jobId, run.scheduledAt, undefined, run.attempt),
          'hermesx.tenant.id': run.tenantId,
          'hermesx.run.claimed_from': 'vanished_pod',
        });
      }
      return adopted;
    },
    markSent: (runId, podId, origin, scheduledAt) => {
      if (origin) runs.note(runId, { 'hermesx.run.origin': origin });
      return store.markSent(runId, podId, origin, scheduledAt);
    },
    finishRun: async (runId, outcome, podId, scheduledAt) => {
      const answer = await runs.record(runId, () =>
        store.finishRun(runId, outcome, podId, scheduledAt),
      );
      const status = outcome.success ? 'success' : answer === 'requeued' ? 'retrying' : 'failed';
      runs.finish(runId, {
        status: answer === false ? 'lost' : status,
        errorKind: outcome.errorKind,
        modelRequests: outcome.attempts,
      });
      return answer;
    },
    failRuns: async (runIds, reason, kind) => {
      const failed = await store.failRuns(runIds, reason, kind);
      for (const run of failed) {
        runs.finish(run.runId, { status: run.requeued ? 'retrying' : 'failed', errorKind: kind });
      }
      return failed;
    },
    requeueRuns: async (runIds, podId, delayMs) => {
      const requeued = await store.requeueRuns(runIds, podId, delayMs);
      for (const runId of requeued) runs.finish(runId, { status: 'handed_back' });
      return requeued;
    },
    unsendRuns: async (runIds, podId) => {
      const handed = await store.unsendRuns(runIds, podId);
      for (const runId of handed) runs.finish(runId, { status: 'handed_back' });
      return handed;
    },
  };
}

/**
 * A claim inserts the occurrence's row, so its attempt is the first; a queued run (a retry, a
 * retry by hand) or an adopted one says which attempt it is (cron_job_runs.attempt).
 */
function claimAttributes(jobId: string, scheduledAt: Date, origin?: RunOrigin, attempt = 1) {
  return {
    'hermesx.job.id': jobId,
    'hermesx.run.scheduled_at': scheduledAt.toISOString(),
    'hermesx.run.attempt': attempt,
    ...(origin ? { 'hermesx.run.origin': origin } : {}),
  };
}
