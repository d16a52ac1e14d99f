// A claimed occurrence waits for one of the pod's model slots (slots.ts) before its agent is
// called. If the pod stops meanwhile, nothing was sent, so the claim is handed back for another
// pod to adopt instead of being recorded as a run that may have reached the model.
import type { ClaimedRun } from '../domain/run.js';
import { errorMessage } from './occurrence.js';
import { RunAborted, SHUTDOWN_ERROR, type PipelineDeps, type Slot } from './pipeline.js';

/**
 * 'send' once the slot is this run's, or after an abort for another reason than a stop (a cancel,
 * the timeout: the call records it without sending). 'handed_back' when the pod stops: a run
 * claimed straight into 'running' goes back to 'claimed' first (scheduler_unsend); if that fails,
 * the run is aborted as interrupted by the shutdown, and recorded so, with nothing sent.
 */
export async function waitForModelSlot(
  deps: PipelineDeps,
  jobId: string,
  run: ClaimedRun,
  controller: AbortController,
  slot: Slot,
): Promise<'send' | 'handed_back'> {
  const answer = await slot.send(controller.signal);
  const { reason } = controller.signal as { reason: unknown };
  const shutdown = reason instanceof RunAborted && reason.kind === 'shutdown';
  if (answer === 'granted' || (answer === 'aborted' && !shutdown)) return 'send';
  if (run.sent !== true) return 'handed_back';
  const handed = await deps.store
    .unsendRuns([run.runId], deps.settings.podId)
    .catch((err: unknown) => {
      deps.log.warn(
        { run_id: run.runId, job_id: jobId, error: errorMessage(err) },
        'cannot hand back a run that was never sent; it is recorded interrupted',
      );
      return [];
    });
  if (handed.length > 0) return 'handed_back';
  controller.abort(new RunAborted('shutdown', SHUTDOWN_ERROR));
  return 'send';
}
