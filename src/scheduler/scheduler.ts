import { formatDurationMs } from '../duration.js';
import { RunAborted } from './execute.js';
import { Fifo } from './fifo.js';
import { fireOccurrence } from './fire.js';
import { fireDueOccurrences } from './due.js';
import { drainWaiting } from './waiting.js';
import { startLoop, type Loop } from './loop.js';
import { OccurrenceQueue } from './queue.js';
import {
  cleanupStaleRuns,
  failOwnLeftoverRuns,
  failRunsOfDeadPods,
  publishLiveness,
} from './recover.js';
import { errorMessage, type SchedulerContext, type SchedulerDeps } from './state.js';
import { syncAll, syncJobs } from './sync.js';

// setTimeout cannot wait longer than 2^31-1 ms; far-away jobs are simply re-checked.
const MAX_TIMER_MS = 3_600_000;
const AVAILABILITY_CHECK_MS = 2000;
const ABORT_SETTLE_MS = 10_000;

type State = 'waiting' | 'running' | 'stopping' | 'stopped';

/**
 * A pod's scheduler. Waits for Redis, then loads every enabled job, keeps their next occurrences
 * in one queue behind one timer, fires each occurrence through lock and claim, and keeps itself
 * true through polls, notifications, liveness and recovery. Pauses while Redis is unavailable.
 */
export class Scheduler {
  private readonly ctx: SchedulerContext;
  private state: State = 'waiting';
  private timer: unknown;
  private loops: Loop[] = [];
  private liveness: Loop | undefined;
  private firstActivation = true;
  private warnedUnavailable = false;
  private syncChain: Promise<void> = Promise.resolve();
  private changedIds = new Set<string>();

  constructor(deps: SchedulerDeps) {
    this.ctx = {
      ...deps,
      jobs: new Map(),
      invalidJobs: new Map(),
      queue: new OccurrenceQueue(),
      inFlight: new Map(),
      busySlots: 0,
      steals: [],
      peers: [deps.settings.podId],
      pending: new Fifo(),
      needsCatchUp: false,
      active: false,
      rearm: () => this.rearm(),
      onSlotFreed: () => drainWaiting(this.ctx),
      onRedisError: (err) => this.pause(err),
    };
  }

  get running(): boolean {
    return this.state === 'running';
  }

  start(): void {
    const { clock, log, settings } = this.ctx;
    const loop = (name: string, intervalMs: number, body: () => Promise<void>, immediate = false) =>
      this.loops.push(startLoop({ name, intervalMs, clock, log, body, immediate }));
    loop(
      'availability',
      Math.min(settings.pollIntervalMs, AVAILABILITY_CHECK_MS),
      () => this.checkAvailability(),
      true,
    );
    loop('poll', settings.pollIntervalMs, () => this.whenRunning(() => this.poll()));
    // Also while paused or stopping with runs in flight: other pods fail the runs of a pod whose
    // liveness key is gone, so a draining pod must keep proving it is alive.
    this.liveness = startLoop({
      name: 'liveness',
      intervalMs: settings.livenessIntervalMs,
      clock,
      log,
      body: async () => {
        const schedules = this.state === 'running';
        if (schedules || this.ctx.inFlight.size > 0) await publishLiveness(this.ctx, schedules);
      },
    });
    loop('recovery', settings.recoveryIntervalMs, () =>
      this.whenRunning(async () => void (await failRunsOfDeadPods(this.ctx))),
    );
  }

  /** Jobs named by notifications changed: reload just those (serialised with other syncs). */
  jobsChanged(ids: readonly string[]): void {
    if (this.state !== 'running') return;
    for (const id of ids) this.changedIds.add(id);
    this.serialise(async () => {
      const batch = [...this.changedIds];
      this.changedIds.clear();
      if (batch.length > 0 && this.state === 'running') await syncJobs(this.ctx, batch);
    }, 'job notification sync');
  }

  /** "Run now": one extra occurrence of the job at the given nominal time (pods race as usual). */
  trigger(jobId: string, scheduledAtMs: number): void {
    if (this.state !== 'running') return;
    const occurrence = { jobId, scheduledAtMs, kind: 'manual' as const };
    if (this.ctx.jobs.has(jobId)) {
      void fireOccurrence(this.ctx, occurrence);
      return;
    }
    // A job created a moment ago may not have been loaded yet: load it first.
    this.serialise(async () => {
      await syncJobs(this.ctx, [jobId]);
      void fireOccurrence(this.ctx, occurrence);
    }, 'run-now sync');
  }

  /** A full re-sync now (notifications may have been lost, e.g. after a reconnect). */
  resync(): void {
    if (this.state === 'running') this.serialise(() => syncAll(this.ctx, false), 'resync');
  }

  /** Stops firing, lets in-flight runs finish within graceMs, then aborts and records the rest. */
  async stop(graceMs: number): Promise<void> {
    if (this.state === 'stopping' || this.state === 'stopped') return;
    this.state = 'stopping';
    this.deactivate();
    // Leave the peers at once, so the others stop leaving this pod's jobs to it.
    await publishLiveness(this.ctx, false).catch(() => {});
    for (const loop of this.loops) loop.stop();
    const runs = [...this.ctx.inFlight.values()];
    if (runs.length > 0) {
      this.ctx.log.info({ in_flight: runs.length }, 'scheduler draining');
      const settled = await this.waitForRuns(graceMs);
      if (!settled) {
        const reason = new RunAborted('interrupted by shutdown');
        for (const run of this.ctx.inFlight.values()) run.controller.abort(reason);
        await this.waitForRuns(ABORT_SETTLE_MS);
      }
    }
    this.liveness?.stop();
    await this.syncChain;
    this.state = 'stopped';
    this.ctx.log.info('scheduler stopped');
  }

  private async checkAvailability(): Promise<void> {
    if (this.state !== 'waiting' && this.state !== 'running') return;
    const ok = await this.ctx.locks.ping();
    if (this.state === 'running') {
      if (!ok) this.pause(new Error('redis ping failed'));
      return;
    }
    if (!ok) {
      if (!this.warnedUnavailable) this.ctx.log.warn('scheduler disabled: redis unavailable');
      this.warnedUnavailable = true;
      return;
    }
    await this.activate();
  }

  private async activate(): Promise<void> {
    const ctx = this.ctx;
    // Alive (for the recovery of runs), but not a peer until it schedules: the others would leave
    // its share of the jobs to a pod that cannot run them.
    await publishLiveness(ctx, false);
    if (this.firstActivation) await failOwnLeftoverRuns(ctx);
    this.firstActivation = false;
    // stop() may have been called while this waited: it must not be undone.
    if (this.state !== 'waiting') return;
    ctx.active = true;
    try {
      await this.serialiseStrict(() => syncAll(ctx, true));
    } catch (err) {
      ctx.active = false;
      throw err;
    }
    if (this.state !== 'waiting') return;
    ctx.needsCatchUp = false;
    this.state = 'running';
    this.warnedUnavailable = false;
    await this.joinPeers();
    ctx.log.info(
      {
        poll_interval: formatDurationMs(ctx.settings.pollIntervalMs),
        jobs: ctx.jobs.size,
        pod: ctx.settings.podId,
      },
      'scheduler started',
    );
  }

  /** Registers as a peer now that it schedules (the liveness loop keeps it registered). */
  private async joinPeers(): Promise<void> {
    try {
      await publishLiveness(this.ctx, true);
      // stop() may have left the peers while this was on its way.
      if (this.state !== 'running') await publishLiveness(this.ctx, false);
    } catch (err) {
      this.ctx.log.warn(
        { error: errorMessage(err) },
        'cannot join the peers yet; the liveness loop retries',
      );
    }
  }

  private pause(err: unknown): void {
    if (this.state !== 'running') return;
    this.state = 'waiting';
    this.deactivate();
    this.warnedUnavailable = true;
    this.ctx.log.warn({ error: errorMessage(err) }, 'scheduler disabled: redis unavailable');
  }

  private deactivate(): void {
    const ctx = this.ctx;
    ctx.active = false;
    if (this.timer !== undefined) ctx.clock.clearTimeout(this.timer);
    this.timer = undefined;
    ctx.queue.clear();
    ctx.pending.clear();
    ctx.steals = [];
    // Occurrences due while paused are caught up from the database's record on activation.
    ctx.needsCatchUp = true;
  }

  private async poll(): Promise<void> {
    const ctx = this.ctx;
    await cleanupStaleRuns(ctx);
    const catchUp = ctx.needsCatchUp;
    ctx.needsCatchUp = false;
    try {
      await this.serialiseStrict(() => syncAll(ctx, catchUp));
    } catch (err) {
      ctx.needsCatchUp ||= catchUp;
      throw err;
    }
  }

  private async whenRunning(body: () => Promise<void>): Promise<void> {
    if (this.state === 'running') await body();
  }

  private serialise(body: () => Promise<void>, what: string): void {
    this.syncChain = this.syncChain.then(body).catch((err: unknown) => {
      this.ctx.log.warn(
        { error: errorMessage(err), task: what },
        'sync failed; the next poll retries',
      );
    });
  }

  private serialiseStrict(body: () => Promise<void>): Promise<void> {
    const result = this.syncChain.then(body);
    this.syncChain = result.catch(() => {});
    return result;
  }

  private rearm(): void {
    const { clock, queue } = this.ctx;
    if (this.timer !== undefined) clock.clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.ctx.active) return;
    const dueMs = queue.peekDueMs();
    if (dueMs === undefined) return;
    const delayMs = Math.min(Math.max(0, dueMs - clock.now()), MAX_TIMER_MS);
    this.timer = clock.setTimeout(() => this.onTimer(), delayMs);
  }

  private onTimer(): void {
    this.timer = undefined;
    fireDueOccurrences(this.ctx, this.ctx.clock.now());
    this.rearm();
  }

  private async waitForRuns(timeoutMs: number): Promise<boolean> {
    const all = Promise.all([...this.ctx.inFlight.values()].map((run) => run.done));
    let timer: unknown;
    const timeout = new Promise<false>((resolve) => {
      timer = this.ctx.clock.setTimeout(() => resolve(false), timeoutMs);
    });
    const settled = await Promise.race([all.then(() => true as const), timeout]);
    this.ctx.clock.clearTimeout(timer);
    return settled;
  }
}
