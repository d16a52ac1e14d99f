// One occurrence on this pod, top to bottom: lock -> claim -> call the agent -> record -> release.
// Which of those it does, in which order, and what it leaves behind is the life cycle's
// (life-cycle.ts: `step`); this file performs the effects it names and feeds their answers back.
// The dispatcher gives it a slot and an AbortController and consumes the result; nothing here
// reaches back into the scheduler.
import { callAgent, originOf, type AgentCall } from './call-agent.js';
import type { SkipReason } from './events.js';
import {
  abandon,
  startOccurrence,
  step,
  type Effect,
  type LifeEvent,
  type Transition,
} from './life-cycle.js';
import { errorMessage, type LoadedJob, type Occurrence } from './occurrence.js';
import { lifeInputOf } from './overlap.js';
import type { ClaimAnswer, LockHolder } from './ports.js';
import type { ClaimedRun, RunOrigin } from '../domain/run.js';
import type { PipelineDeps, RunResult, Slot } from './pipeline.js';
import { handBack, tryQueuedRunLock } from './queued-runs.js';
import { recordRun } from './record-run.js';
import { waitForModelSlot } from './wait-for-slot.js';
import { cancelEarlier, claimWaiting, waitForLock } from './wait-turn.js';

export async function runOccurrence(
  deps: PipelineDeps,
  occurrence: Occurrence,
  controller: AbortController,
  slot: Slot,
): Promise<RunResult> {
  const loaded = occurrence.job ?? deps.lookup(occurrence.jobId);
  const here: Here = { deps, occurrence, loaded, controller, slot, run: occurrence.adopted };
  let move: Transition = startOccurrence(
    lifeInputOf(occurrence, loaded),
    loaded !== undefined,
    slot.from,
  );
  try {
    for (;;) {
      const event = await performAll(here, move.effects);
      if (move.state.stage === 'ended' || event === undefined) break;
      move = step(move.state, event);
    }
  } finally {
    // An effect that threw leaves the slot and the lock to free, as the life cycle says.
    await performAll(here, abandon(move.state));
  }
  if (!here.result) throw new Error(`occurrence ended in ${move.state.stage} without a result`);
  return here.result;
}

/** One occurrence being performed: its context and what its effects have learnt. */
interface Here {
  deps: PipelineDeps;
  occurrence: Occurrence;
  loaded: LoadedJob | undefined;
  controller: AbortController;
  slot: Slot;
  /** Its run, once claimed (from the start for adopted and queued runs). */
  run: ClaimedRun | undefined;
  call?: AgentCall;
  result?: RunResult;
}

/** Performs the effects in order; the answer of the last one that answers is the next event. */
async function performAll(here: Here, effects: readonly Effect[]): Promise<LifeEvent | undefined> {
  let event: LifeEvent | undefined;
  for (const effect of effects) event = (await perform(here, effect)) ?? event;
  return event;
}

async function perform(here: Here, effect: Effect): Promise<LifeEvent | undefined> {
  const { deps, occurrence, controller, slot } = here;
  const { jobId, scheduledAtMs } = occurrence;
  switch (effect.type) {
    case 'take_lock':
      return effect.at === 'now'
        ? tryLockAtNow(deps, occurrence)
        : takeLock(deps, occurrence, effect.key);
    case 'claim': {
      const answer = await claimOccurrence(deps, occurrence, originOf(loadedOf(here), occurrence));
      if (answer.kind !== 'claimed') return { type: 'refused', reason: answer.kind };
      here.run = answer.run;
      return { type: 'claimed' };
    }
    case 'claim_waiting': {
      const answer = await claimWaiting(deps, occurrence);
      if (answer.kind !== 'claimed') return { type: 'refused', reason: answer.reason };
      here.run = answer.run;
      return { type: 'claimed' };
    }
    case 'announce':
      announceClaim(deps, occurrence, runOf(here).runId, slot);
      return undefined;
    case 'cancel_earlier':
      await cancelEarlier(deps, occurrence);
      return undefined;
    case 'wait_for_lock': {
      const turn = await waitForLock(deps, occurrence, runOf(here), controller);
      if (turn.kind === 'locked') return { type: 'locked', token: turn.token };
      if (turn.kind === 'skipped') return { type: 'refused', reason: turn.reason };
      here.result = turn;
      return { type: 'recorded', status: turn.outcome.success ? 'success' : 'failed' };
    }
    case 'send': {
      // The lock and the claim are taken: now one of the pod's model slots, for the call only.
      const turn = await waitForModelSlot(deps, jobId, runOf(here), controller, slot);
      if (turn === 'handed_back') return { type: 'refused', reason: 'handed_back' };
      const call = await callAgent(deps, loadedOf(here), occurrence, runOf(here), controller);
      if (call === 'handed_back') return { type: 'refused', reason: 'handed_back' };
      here.call = call;
      return { type: 'answered' };
    }
    case 'free_slot':
      slot.release();
      return undefined;
    case 'record': {
      if (!here.call) throw new Error('nothing to record: the agent was not called');
      const result = await recordRun(deps, occurrence, runOf(here).runId, here.call);
      here.result = result;
      const success = result.kind === 'ran' && result.outcome.success;
      return { type: 'recorded', status: success ? 'success' : 'failed' };
    }
    case 'release_lock': {
      const doneAtMs = effect.done ? scheduledAtMs : null;
      await releaseQuietly(deps, jobId, effect.token, doneAtMs, effect.key);
      return undefined;
    }
    case 'hand_back':
      await handBack(deps, [occurrence.adopted?.runId ?? '']);
      return undefined;
    case 'fail_claimed':
      await failClaimed(deps, occurrence);
      return undefined;
    case 'skip':
      here.result = skip(effect.reason, effect.holder);
      return undefined;
  }
}

function runOf(here: Here): ClaimedRun {
  if (!here.run) throw new Error('the occurrence has no claimed run');
  return here.run;
}

function loadedOf(here: Here): LoadedJob {
  if (!here.loaded) throw new Error('the job is not loaded');
  return here.loaded;
}

/** The occurrence will run here: the dispatcher's slot and the scheduler's events learn it. */
function announceClaim(
  deps: PipelineDeps,
  occurrence: Occurrence,
  runId: string,
  slot: Slot,
): void {
  slot.claimed(runId);
  deps.events.emit('claimed', {
    jobId: occurrence.jobId,
    runId,
    scheduledAtMs: occurrence.scheduledAtMs,
  });
}

const skip = (reason: SkipReason, holder?: LockHolder | null): RunResult => ({
  kind: 'skipped',
  reason,
  ...(holder === undefined ? {} : { holder }),
});

/** One try at the job's lock; a lock whose holder will never release it is freed first. */
async function takeLock(
  deps: PipelineDeps,
  occurrence: Occurrence,
  key: string | undefined,
): Promise<LifeEvent> {
  const { jobId, scheduledAtMs } = occurrence;
  const ttlMs = deps.settings.lockTtlMs;
  const options = key === undefined ? undefined : { key };
  try {
    let lock = await deps.locks.acquire(jobId, scheduledAtMs, ttlMs, options);
    // Only the job's own lock is freed this way (an occurrence's own is never another's).
    if (!lock.acquired && !key && (await holderIsGone(deps, jobId, lock.holder, scheduledAtMs))) {
      await deps.locks.releaseHeldBy(jobId, lock.holder?.podId ?? '');
      lock = await deps.locks.acquire(jobId, scheduledAtMs, ttlMs, options);
    }
    if (lock.acquired) return { type: 'locked', token: lock.token };
    deps.metrics.lockSkips.inc();
    return { type: 'lock_held', holder: lock.holder };
  } catch {
    return { type: 'refused', reason: 'redis_error' };
  }
}

/** A taken queued run's one try at the job's lock (at this pod's now). */
async function tryLockAtNow(deps: PipelineDeps, occurrence: Occurrence): Promise<LifeEvent> {
  try {
    const lock = await tryQueuedRunLock(deps, occurrence);
    if (lock.acquired) return { type: 'locked', token: lock.token };
    return { type: 'lock_held', holder: lock.holder };
  } catch {
    // Redis is down: the scheduler pauses; the claimed run is adopted once it is back.
    return { type: 'refused', reason: 'redis_error' };
  }
}

/**
 * A "run" lock nobody will release: this pod's own for an occurrence not in flight here (a
 * release that failed in a Redis blip), or, for an earlier occurrence, a pod whose liveness key
 * is gone. Left alone, either would block the job for the whole lock TTL.
 */
async function holderIsGone(
  deps: PipelineDeps,
  jobId: string,
  holder: LockHolder | null,
  scheduledAtMs: number,
): Promise<boolean> {
  if (holder?.state !== 'run') return false;
  if (holder.podId === deps.settings.podId) {
    return (
      holder.scheduledAtMs === scheduledAtMs ||
      !(deps.inFlightHere?.(jobId, holder.scheduledAtMs) ?? false)
    );
  }
  if (holder.scheduledAtMs >= scheduledAtMs) return false;
  const live = await deps.locks.livePods([holder.podId]);
  return !live.has(holder.podId);
}

/** Claims straight into 'running' (`sendAs`): this occurrence holds its slot and sends at once. */
async function claimOccurrence(
  deps: PipelineDeps,
  occurrence: Occurrence,
  sendAs: RunOrigin | undefined,
): Promise<ClaimAnswer | { kind: 'db_error' }> {
  try {
    const nextMs = occurrence.nextMs ?? null;
    const answer = await deps.store.claimRun(
      occurrence.jobId,
      new Date(occurrence.scheduledAtMs),
      deps.settings.podId,
      nextMs === null ? null : new Date(nextMs),
      sendAs,
    );
    if (answer.kind === 'taken') deps.metrics.lockSkips.inc();
    // The schedule has no occurrence after this one (ends_at): the claim could not say so (null
    // leaves next_run_at, as a "run now" must), so the job is parked explicitly.
    if (answer.kind === 'claimed' && occurrence.nextMs === null) {
      deps.store
        .advanceJob(occurrence.jobId, new Date(occurrence.scheduledAtMs), null)
        .catch((err: unknown) =>
          deps.log.warn(
            { job_id: occurrence.jobId, error: errorMessage(err) },
            'cannot park a job after its last occurrence (the due window will skip it)',
          ),
        );
    }
    return answer;
  } catch (err) {
    deps.log.error(
      {
        job_id: occurrence.jobId,
        scheduled_at: new Date(occurrence.scheduledAtMs).toISOString(),
        error: errorMessage(err),
      },
      'cannot claim occurrence: database unavailable',
    );
    return { kind: 'db_error' };
  }
}

/** An adopted or queued run whose job this pod no longer holds (disabled or deleted meanwhile). */
async function failClaimed(deps: PipelineDeps, occurrence: Occurrence): Promise<void> {
  const runId = occurrence.adopted?.runId as string;
  await deps.store
    .failRuns([runId], 'pod crash before the run started; the job is no longer enabled', 'pod_lost')
    .catch(() => {});
}

/** Releases by token; `doneAtMs` marks the occurrence done so other pods skip it cheaply. */
async function releaseQuietly(
  deps: PipelineDeps,
  jobId: string,
  token: string,
  doneAtMs: number | null,
  key: string | undefined,
): Promise<void> {
  try {
    await deps.locks.release(jobId, token, doneAtMs, key);
  } catch (err) {
    // The lock expires by itself after its TTL; nothing else depends on this release.
    deps.log.warn({ job_id: jobId, error: errorMessage(err) }, 'cannot release lock');
  }
}
