// The agent call of a claimed occurrence: under the exec timeout, with the run marked "running"
// just before its first model request leaves the process.
import { formatDurationMs } from '../duration.js';
import { cutUtf8 } from '../domain/result-text.js';
import { errorMessage, type LoadedJob, type Occurrence } from './occurrence.js';
import type { AttemptRecord, ClaimedRun, RunOrigin, RunOutcome } from '../domain/run.js';
import type { ErrorKind } from '../domain/vocabulary.js';
import type { RunContext, RunReply, RunReplyDetail } from './ports.js';
import { RunAborted, type PipelineDeps } from './pipeline.js';

const MAX_ERROR_CHARS = 1024;
/** RUN_RESULT_MAX_BYTES when the settings do not say. */
export const DEFAULT_RESULT_MAX_BYTES = 1024 * 1024;

export interface AgentCall {
  outcome: RunOutcome;
  startedMs: number;
  finishedMs: number;
}

/**
 * Calls the agent under the exec timeout. Nothing is recorded as sent until the runner is about
 * to send: a run that never sent anything (shutdown, or no longer this pod's) is handed back,
 * for another pod to adopt, instead of failing an occurrence the model never saw.
 */
export async function callAgent(
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
  // A job's own timeout only shortens the exec timeout, so the lock TTL rule still holds.
  const jobTimeoutMs = run.timeoutMs ?? Infinity;
  const execTimeoutMs = Math.min(jobTimeoutMs, settings.execTimeoutMs);
  const timeout = clock.setTimeout(() => {
    const limit = formatDurationMs(execTimeoutMs);
    const which =
      jobTimeoutMs < settings.execTimeoutMs ? "the job's timeout" : 'SCHEDULER_EXEC_TIMEOUT';
    controller.abort(new RunAborted('timeout', `timeout: run exceeded ${which} (${limit})`));
  }, execTimeoutMs);
  let attempts = 0;
  // Claimed straight into 'running': the database already says the request may have left.
  let sent = run.sent === true;
  let marking: Promise<unknown> | undefined;
  const attemptLog = new AttemptLog(clock);
  const reported: RunReplyDetail = {};
  const { signal } = controller;
  const context: RunContext = {
    signal,
    deadlineMs: startedMs + execTimeoutMs,
    beforeSend: async () => {
      if (!sent) {
        marking ??= deps.store.markSent(
          run.runId,
          settings.podId,
          originOf(loaded, occurrence),
          new Date(occurrence.scheduledAtMs),
        );
        const ours = await marking.catch((err: unknown) => {
          throw new Error(`cannot record that the run started: ${errorMessage(err)}`);
        });
        if (!ours) throw new Error('the run was taken over by another pod');
        sent = true;
      }
      if (signal.aborted) throw signal.reason;
      attempts += 1;
      attemptLog.begin();
      // A retry (or the next agent step) shows while the run is still running.
      if (attempts > 1) noteProgress(deps, run.runId, attempts, attemptLog.records());
    },
    onRetry: (cause) => attemptLog.end(`retried_${cause}`),
    report: (part) => {
      const { askModel, fallback, ...rest } = part;
      if (fallback !== undefined) attemptLog.end(`fallback_${fallback}`);
      if (askModel !== undefined) attemptLog.model = askModel;
      Object.assign(reported, rest);
    },
  };
  const request = {
    jobId: occurrence.jobId,
    tenantId: occurrence.tenantId,
    name: run.name,
    prompt: run.prompt,
    timezone: loaded.schedule.timezone,
    scheduledAt: new Date(occurrence.scheduledAtMs),
    model: run.model ?? undefined,
    runId: run.runId,
    agent: run.agent,
  };
  const reply = await runUntilAborted(() => deps.runner(request, context), signal);
  clock.clearTimeout(timeout);
  // A mark still on its way decides whether anything may have been sent.
  await marking?.then((ours) => (sent = ours === true)).catch(() => {});
  const shutdown = signal.reason instanceof RunAborted && signal.reason.kind === 'shutdown';
  if (!sent && (marking !== undefined || shutdown)) return 'handed_back';
  attemptLog.end(reply.ok ? 'success' : reply.errorKind);
  const maxBytes = settings.runResultMaxBytes ?? DEFAULT_RESULT_MAX_BYTES;
  const outcome = toOutcome(reply, attempts, maxBytes);
  outcome.detail = {
    // What the runner meant to send counts only once something was sent.
    promptSent: attempts > 0 ? (reported.promptSent ?? null) : null,
    model: reported.model ?? null,
    usage: reported.usage ?? null,
    attemptLog: attemptLog.records(),
    calls: reported.calls ?? [],
    budgetResetsAt: reported.budgetResetsAt ?? null,
  };
  return { outcome, startedMs, finishedMs: clock.now() };
}

/**
 * Why the run runs. An adopted run's pod is gone before it said; a nominal time that is not an
 * occurrence of the schedule was a "run now", anything else counts as scheduled.
 */
export function originOf(loaded: LoadedJob, occurrence: Occurrence): RunOrigin | undefined {
  switch (occurrence.kind) {
    case 'queued':
      // Its first attempt (or the backfill) said why it runs; the row keeps it.
      return undefined;
    case 'scheduled':
      return 'scheduled';
    case 'catchup':
      return 'catch_up';
    case 'manual':
      return 'manual';
    case 'adopted': {
      const next = loaded.schedule.nextAfter(new Date(occurrence.scheduledAtMs - 1));
      return next?.getTime() === occurrence.scheduledAtMs ? 'scheduled' : 'manual';
    }
  }
}

/** Each model request of a run, in order; the last one open until its outcome is known. */
class AttemptLog {
  private readonly entries: {
    startedMs: number;
    endedMs: number | null;
    outcome: string | null;
    model: string | null;
  }[] = [];
  /** The model the next requests go to, as the runner said (null: it did not say). */
  model: string | null = null;
  constructor(private readonly clock: { now(): number }) {}

  begin(): void {
    this.end('answered');
    this.entries.push({
      startedMs: this.clock.now(),
      endedMs: null,
      outcome: null,
      model: this.model,
    });
  }

  /** Closes the open attempt, if any (a later call finds none open and does nothing). */
  end(outcome: string): void {
    const last = this.entries.at(-1);
    if (!last || last.outcome !== null) return;
    last.outcome = outcome;
    last.endedMs = this.clock.now();
  }

  records(): AttemptRecord[] {
    return this.entries.map((entry) => ({
      startedAt: new Date(entry.startedMs).toISOString(),
      durationMs: entry.endedMs === null ? null : entry.endedMs - entry.startedMs,
      outcome: entry.outcome,
      model: entry.model,
    }));
  }
}

/** Best effort: a run is not failed because its progress could not be shown. */
function noteProgress(
  deps: PipelineDeps,
  runId: string,
  attempts: number,
  log: AttemptRecord[],
): void {
  deps.store.noteProgress(runId, deps.settings.podId, attempts, log).catch((err: unknown) => {
    deps.log.warn({ run_id: runId, error: errorMessage(err) }, 'cannot record run progress');
  });
}

type Settled = RunReply | { ok: false; errorKind: ErrorKind; error: string; thrown: true };

/** The runner's reply, or its failure; an abort wins even when the runner ignores its signal. */
async function runUntilAborted(
  run: () => Promise<RunReply>,
  signal: AbortSignal,
): Promise<Settled> {
  // Aborted before it started (a cancel while it waited for a model slot): nothing is run.
  if (signal.aborted) return abortedReply(signal);
  let onAbort: () => void = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([run(), aborted]);
  } catch (err) {
    if (signal.aborted) return abortedReply(signal);
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

function abortedReply(signal: AbortSignal): Settled {
  const reason: unknown = signal.reason;
  const kind = reason instanceof RunAborted ? reason.kind : 'agent_error';
  return { ok: false, errorKind: kind, error: errorMessage(reason), thrown: true };
}

function toOutcome(reply: Settled, attempts: number, maxResultBytes: number): RunOutcome {
  if (reply.ok) {
    const clean = boundText(reply.text, Number.MAX_SAFE_INTEGER);
    const result = cutUtf8(clean, maxResultBytes);
    return {
      success: true,
      result,
      error: null,
      errorKind: null,
      attempts,
      resultTruncated: result.length < clean.length,
      ...(reply.output !== undefined ? { output: reply.output } : {}),
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
