// One occurrence on this pod, top to bottom: lock -> claim -> call the agent -> record -> release.
// The dispatcher gives it a slot and an AbortController and consumes the result; nothing here
// reaches back into the scheduler.
import { formatDurationMs } from '../duration.js';
import type { Logger } from '../log.js';
import type { SchedulerEvents, SkipReason } from './events.js';
import type { SchedulerMetrics } from './metrics.js';
import { errorMessage, type LoadedJob, type Occurrence } from './occurrence.js';
import type {
  AgentRunner,
  ClaimAnswer,
  ClaimedRun,
  Clock,
  ErrorKind,
  JobStore,
  LockHolder,
  LockStore,
  RunContext,
  RunOutcome,
  RunReply,
} from './ports.js';
import type { SchedulerSettings } from './settings.js';

export interface PipelineDeps {
  store: JobStore;
  locks: LockStore;
  runner: AgentRunner;
  clock: Clock;
  log: Logger;
  metrics: SchedulerMetrics;
  settings: SchedulerSettings;
  events: SchedulerEvents;
  /** The job as this pod holds it now; undefined once it was removed. */
  lookup(jobId: string): LoadedJob | undefined;
}

/** The slot the dispatcher lent. */
export interface Slot {
  /** The lock and the claim are this pod's: the occurrence will run here. */
  claimed(): void;
  /** Freed as soon as the agent has answered (idempotent). */
  release(): void;
}

export type RunResult =
  | { kind: 'skipped'; reason: SkipReason; holder?: LockHolder | null }
  | { kind: 'ran'; runId: string; outcome: RunOutcome; recorded: boolean };

/** Why a run was aborted; its message becomes the run's error text. */
export class RunAborted extends Error {
  override name = 'RunAborted';
  constructor(
    readonly kind: 'timeout' | 'shutdown',
    message: string,
  ) {
    super(message);
  }
}

export const SHUTDOWN_ERROR = 'interrupted by shutdown';
const MAX_RESULT_CHARS = 4096;
const MAX_ERROR_CHARS = 1024;
const RECORD_RETRY_DELAYS_MS = [250, 1000, 3000];

export async function runOccurrence(
  deps: PipelineDeps,
  occurrence: Occurrence,
  controller: AbortController,
  slot: Slot,
): Promise<RunResult> {
  const loaded = deps.lookup(occurrence.jobId);
  if (!loaded) return occurrence.adopted ? dropAdopted(deps, occurrence) : skip('not_loaded');
  let token: string | null = null;
  if (!occurrence.adopted) {
    const lock = await takeLock(deps, occurrence);
    if (lock.kind === 'skipped') return lock;
    token = lock.token;
  }
  // The lock stays a "done" marker unless the occurrence may still need running.
  let doneAtMs: number | null = occurrence.scheduledAtMs;
  try {
    const claim = occurrence.adopted
      ? ({ kind: 'claimed', run: occurrence.adopted } as const)
      : await claimOccurrence(deps, occurrence);
    if (claim.kind !== 'claimed') {
      if (claim.kind !== 'taken') doneAtMs = null;
      return skip(claim.kind === 'db_error' ? 'db_error' : claim.kind);
    }
    const { runId } = claim.run;
    slot.claimed();
    deps.events.emit('claimed', {
      jobId: occurrence.jobId,
      runId,
      scheduledAtMs: occurrence.scheduledAtMs,
    });
    const call = await callAgent(deps, loaded, occurrence, claim.run, controller);
    slot.release();
    if (call === 'handed_back') {
      doneAtMs = null;
      return skip('handed_back');
    }
    return await record(deps, occurrence, runId, call);
  } finally {
    if (token !== null) await releaseQuietly(deps, occurrence.jobId, token, doneAtMs);
  }
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
): Promise<{ kind: 'locked'; token: string } | (RunResult & { kind: 'skipped' })> {
  const { jobId, scheduledAtMs } = occurrence;
  const ttlMs = deps.settings.lockTtlMs;
  try {
    let lock = await deps.locks.acquire(jobId, scheduledAtMs, ttlMs);
    if (!lock.acquired && (await holderIsGone(deps, lock.holder, scheduledAtMs))) {
      await deps.locks.releaseHeldBy(jobId, lock.holder?.podId ?? '');
      lock = await deps.locks.acquire(jobId, scheduledAtMs, ttlMs);
    }
    if (lock.acquired) return { kind: 'locked', token: lock.token };
    deps.metrics.lockSkips.inc();
    return { kind: 'skipped', reason: 'lock_held', holder: lock.holder };
  } catch {
    return { kind: 'skipped', reason: 'redis_error' };
  }
}

/**
 * A "run" lock nobody will release: this pod's own (a release that failed in a Redis blip; this
 * pod runs a job once at a time, so it holds nothing now), or, for an earlier occurrence, a pod
 * whose liveness key is gone. Left alone, either would block the job for the whole lock TTL.
 */
async function holderIsGone(
  deps: PipelineDeps,
  holder: LockHolder | null,
  scheduledAtMs: number,
): Promise<boolean> {
  if (holder?.state !== 'run') return false;
  if (holder.podId === deps.settings.podId) return true;
  if (holder.scheduledAtMs >= scheduledAtMs) return false;
  const live = await deps.locks.livePods([holder.podId]);
  return !live.has(holder.podId);
}

async function claimOccurrence(
  deps: PipelineDeps,
  occurrence: Occurrence,
): Promise<ClaimAnswer | { kind: 'db_error' }> {
  try {
    const answer = await deps.store.claimRun(
      occurrence.jobId,
      new Date(occurrence.scheduledAtMs),
      deps.settings.podId,
    );
    if (answer.kind === 'taken') deps.metrics.lockSkips.inc();
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

interface AgentCall {
  outcome: RunOutcome;
  startedMs: number;
  finishedMs: number;
}

/**
 * Calls the agent under the exec timeout. Nothing is recorded as sent until the runner is about
 * to send: a run that never sent anything (shutdown, or no longer this pod's) is handed back,
 * for another pod to adopt, instead of failing an occurrence the model never saw.
 */
async function callAgent(
  deps: PipelineDeps,
  loaded: LoadedJob,
  occurrence: Occurrence,
  run: ClaimedRun,
  controller: AbortController,
): Promise<AgentCall | 'handed_back'> {
  const { clock, metrics, settings } = deps;
  const startedMs = clock.now();
  if (occurrence.kind === 'scheduled') {
    metrics.fireLag.observe(Math.max(0, startedMs - occurrence.scheduledAtMs) / 1000);
  } else if (occurrence.kind === 'catchup') metrics.caughtUp.inc();
  const timeout = clock.setTimeout(() => {
    const limit = formatDurationMs(settings.execTimeoutMs);
    controller.abort(
      new RunAborted('timeout', `timeout: run exceeded SCHEDULER_EXEC_TIMEOUT (${limit})`),
    );
  }, settings.execTimeoutMs);
  let attempts = 0;
  let sent = false;
  let marking: Promise<unknown> | undefined;
  const { signal } = controller;
  const context: RunContext = {
    signal,
    deadlineMs: startedMs + settings.execTimeoutMs,
    beforeSend: async () => {
      if (!sent) {
        marking ??= deps.store.markSent(run.runId, settings.podId);
        const ours = await marking.catch((err: unknown) => {
          throw new Error(`cannot record that the run started: ${errorMessage(err)}`);
        });
        if (!ours) throw new Error('the run was taken over by another pod');
        sent = true;
      }
      if (signal.aborted) throw signal.reason;
      attempts += 1;
    },
  };
  const request = {
    jobId: occurrence.jobId,
    tenantId: occurrence.tenantId,
    name: run.name,
    prompt: run.prompt,
    timezone: loaded.schedule.timezone,
    scheduledAt: new Date(occurrence.scheduledAtMs),
  };
  const reply = await runUntilAborted(() => deps.runner(request, context), signal);
  clock.clearTimeout(timeout);
  // A mark still on its way decides whether anything may have been sent.
  await marking?.then((ours) => (sent = ours === true)).catch(() => {});
  const shutdown = signal.reason instanceof RunAborted && signal.reason.kind === 'shutdown';
  if (!sent && (marking !== undefined || shutdown)) return 'handed_back';
  return { outcome: toOutcome(reply, attempts), startedMs, finishedMs: clock.now() };
}

type Settled = RunReply | { ok: false; errorKind: ErrorKind; error: string; thrown: true };

/** The runner's reply, or its failure; an abort wins even when the runner ignores its signal. */
async function runUntilAborted(
  run: () => Promise<RunReply>,
  signal: AbortSignal,
): Promise<Settled> {
  let onAbort: () => void = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason as Error);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([run(), aborted]);
  } catch (err) {
    if (signal.aborted) {
      const reason: unknown = signal.reason;
      const kind = reason instanceof RunAborted ? reason.kind : 'agent_error';
      return { ok: false, errorKind: kind, error: errorMessage(reason), thrown: true };
    }
    return {
      ok: false,
      errorKind: 'agent_error',
      error: errorMessage(err) || 'run failed',
      thrown: true,
    };
  } finally {
    signal.removeEventListener('abort', onAbort);
    aborted.catch(() => {});
  }
}

function toOutcome(reply: Settled, attempts: number): RunOutcome {
  if (reply.ok) {
    return {
      success: true,
      result: boundText(reply.text, MAX_RESULT_CHARS),
      error: null,
      errorKind: null,
      attempts,
    };
  }
  return {
    success: false,
    result: null,
    error: boundText(reply.error || 'run failed', MAX_ERROR_CHARS),
    errorKind: reply.errorKind,
    attempts,
  };
}

/**
 * Text PostgreSQL can store, cut before it leaves the process: U+0000 is the one character a
 * text column cannot hold (it would fail the whole batched statement, other tenants' runs with it).
 */
export function boundText(text: string, maxChars: number): string {
  const clean = text.includes('\u0000') ? text.replaceAll('\u0000', '\uFFFD') : text;
  return clean.length > maxChars ? clean.slice(0, maxChars) : clean;
}

async function record(
  deps: PipelineDeps,
  occurrence: Occurrence,
  runId: string,
  call: AgentCall,
): Promise<RunResult> {
  const { outcome } = call;
  const loaded = deps.lookup(occurrence.jobId);
  const nextRunAt = loaded?.schedule.nextAfter(new Date(call.finishedMs)) ?? null;
  const recorded = await recordOutcome(deps, runId, outcome, nextRunAt);
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
  nextRunAt: Date | null,
): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await deps.store.finishRun(runId, outcome, nextRunAt, deps.settings.podId);
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

/** An adopted run whose job this pod no longer holds (disabled or deleted meanwhile). */
async function dropAdopted(deps: PipelineDeps, occurrence: Occurrence): Promise<RunResult> {
  const runId = occurrence.adopted?.runId as string;
  await deps.store
    .failRuns([runId], 'pod crash before the run started; the job is no longer enabled', 'pod_lost')
    .catch(() => {});
  return skip('not_loaded');
}

/** Releases by token; `doneAtMs` marks the occurrence done so other pods skip it cheaply. */
async function releaseQuietly(
  deps: PipelineDeps,
  jobId: string,
  token: string,
  doneAtMs: number | null,
): Promise<void> {
  try {
    await deps.locks.release(jobId, token, doneAtMs);
  } catch (err) {
    // The lock expires by itself after its TTL; nothing else depends on this release.
    deps.log.warn({ job_id: jobId, error: errorMessage(err) }, 'cannot release lock');
  }
}
