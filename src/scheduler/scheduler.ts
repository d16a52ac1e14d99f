import { formatDurationMs } from '../duration.js';
import { Dispatcher } from './dispatcher.js';
import { SchedulerEvents } from './events.js';
import { startLoop, type Loop } from './loop.js';
import { errorMessage, type Occurrence } from './occurrence.js';
import { ownerOf } from './owners.js';
import {
  cleanupStaleRuns,
  publishLiveness,
  recoverOwnLeftovers,
  recoverRuns,
  type RecoveryDeps,
} from './recover.js';
import { RunAborted, SHUTDOWN_ERROR } from './pipeline.js';
import { runOccurrence } from './run-occurrence.js';
import type { SchedulerDeps } from './settings.js';
import { syncAll, syncJobs, type SyncDeps } from './sync.js';
import { Timeline } from './timeline.js';

// setTimeout cannot wait longer than 2^31-1 ms; far-away jobs are simply re-checked.
const MAX_TIMER_MS = 3_600_000;
const AVAILABILITY_CHECK_MS = 2000;
const ABORT_SETTLE_MS = 10_000;

type State = 'waiting' | 'running' | 'stopping' | 'stopped';

/**
 * A pod's scheduler: its lifecycle. Waits for Redis, then loads every enabled job into the
 * Timeline, and at each tick offers the due occurrences to the Dispatcher (its own jobs first,
 * other owners' to take over if they leave them). Polls, notifications, liveness and recovery
 * keep it true; it pauses while Redis is unavailable. Results come back as events.
 */
export class Scheduler {
  readonly events: SchedulerEvents;
  private readonly timeline: Timeline;
  private readonly dispatcher: Dispatcher;
  private readonly syncDeps: SyncDeps;
  private readonly recovery: RecoveryDeps;
  private state: State = 'waiting';
  private timer: unknown;
  private loops: Loop[] = [];
  private liveness: Loop | undefined;
  private firstActivation = true;
  private warnedUnavailable = false;
  /** An occurrence may have been lost (database or Redis trouble): the next sync catches up. */
  private needsCatchUp = false;
  /** Live scheduling pods (this one included), as last read from Redis: who owns which job. */
  private peers: string[];
  private syncChain: Promise<void> = Promise.resolve();
  private changedIds = new Set<string>();
  /** The run each job has in flight on this pod (from the claim to its record), for cancels. */
  private readonly runOfJob = new Map<string, string>();

  constructor(private readonly deps: SchedulerDeps) {
    this.events = deps.events ?? new SchedulerEvents();
    this.events.on('claimed', ({ jobId, runId }) => this.runOfJob.set(jobId, runId));
    this.events.on('recorded', ({ jobId }) => this.runOfJob.delete(jobId));
    this.events.on('skipped', ({ jobId }) => this.runOfJob.delete(jobId));
    this.peers = [deps.settings.podId];
    this.timeline = new Timeline(deps.log, deps.metrics);
    this.syncDeps = {
      store: deps.store,
      clock: deps.clock,
      metrics: deps.metrics,
      timeline: this.timeline,
      catchupWindowMs: deps.settings.catchupWindowMs,
    };
    this.recovery = { ...deps, events: this.events };
    const pipeline = {
      ...deps,
      events: this.events,
      lookup: (id: string) => this.timeline.get(id),
    };
    this.dispatcher = new Dispatcher({
      settings: deps.settings,
      clock: deps.clock,
      metrics: deps.metrics,
      events: this.events,
      run: (occurrence, controller, slot) => runOccurrence(pipeline, occurrence, controller, slot),
    });
    this.events.on('skipped', ({ reason }) => {
      if (reason === 'redis_error') this.pause(new Error('redis failed under a lock operation'));
      // The database's record tells, at the next sync, whether any pod ran these.
      if (reason === 'db_error' || reason === 'passed_over') this.needsCatchUp = true;
    });
  }

  get running(): boolean {
    return this.state === 'running';
  }

  start(): void {
    const { clock, log, settings } = this.deps;
    const loop = (name: string, intervalMs: number, body: () => Promise<void>, immediate = false) =>
      this.loops.push(startLoop({ name, intervalMs, clock, log, body, immediate }));
    loop(
      'availability',
      Math.min(settings.pollIntervalMs, AVAILABILITY_CHECK_MS),
      () => this.checkAvailability(),
      true,
    );
    loop('poll', settings.pollIntervalMs, () => this.whenRunning(() => this.poll()));
    // Also while paused or stopping with runs in flight: other pods recover the runs of a pod
    // whose liveness key is gone, so a draining pod must keep proving it is alive.
    this.liveness = startLoop({
      name: 'liveness',
      intervalMs: settings.livenessIntervalMs,
      clock,
      log,
      body: async () => {
        const schedules = this.state === 'running';
        if (schedules || this.dispatcher.snapshot().inFlight > 0) await this.publish(schedules);
      },
    });
    loop('recovery', settings.recoveryIntervalMs, () =>
      this.whenRunning(async () => {
        const holds = (jobId: string) => this.dispatcher.holds(jobId);
        this.dispatcher.offer(await recoverRuns(this.recovery, holds));
      }),
    );
  }

  /** Jobs named by notifications changed: reload just those (serialised with other syncs). */
  jobsChanged(ids: readonly string[]): void {
    if (this.state !== 'running') return;
    for (const id of ids) this.changedIds.add(id);
    this.serialise(async () => {
      const batch = [...this.changedIds];
      this.changedIds.clear();
      if (batch.length > 0 && this.state === 'running') {
        this.afterSync(await syncJobs(this.syncDeps, batch));
      }
    }, 'job notification sync');
  }

  /** "Run now": one extra occurrence of the job at the given nominal time (pods race as usual). */
  trigger(jobId: string, scheduledAtMs: number): void {
    if (this.state !== 'running') return;
    const offer = () => {
      const loaded = this.timeline.get(jobId);
      if (!loaded) return;
      const tenantId = loaded.job.tenantId;
      this.dispatcher.offer([{ jobId, tenantId, scheduledAtMs, kind: 'manual' }]);
    };
    if (this.timeline.get(jobId)) return offer();
    // A job created a moment ago may not have been loaded yet: load it first.
    this.serialise(async () => {
      this.afterSync(await syncJobs(this.syncDeps, [jobId]));
      offer();
    }, 'run-now sync');
  }

  /** POST /v1/runs/{id}/cancel reached this pod: stop that run if it is this pod's. */
  cancelRun(jobId: string, runId: string): void {
    if (this.runOfJob.get(jobId) !== runId) return;
    this.dispatcher.abort(jobId, new RunAborted('cancelled', 'cancelled: stopped by request'));
  }

  /** A full re-sync now (notifications may have been lost, e.g. after a reconnect). */
  resync(): void {
    if (this.state !== 'running') return;
    this.serialise(async () => this.afterSync(await syncAll(this.syncDeps, false)), 'resync');
  }

  /** Stops firing, lets in-flight runs finish within graceMs, then aborts and records the rest. */
  async stop(graceMs: number): Promise<void> {
    if (this.state === 'stopping' || this.state === 'stopped') return;
    this.state = 'stopping';
    this.deactivate();
    // Leave the peers at once, so the others stop leaving this pod's jobs to it.
    await this.publish(false).catch(() => {});
    for (const loop of this.loops) loop.stop();
    const inFlight = this.dispatcher.snapshot().inFlight;
    if (inFlight > 0) {
      this.deps.log.info({ in_flight: inFlight }, 'scheduler draining');
      if (!(await this.dispatcher.waitIdle(graceMs))) {
        this.dispatcher.abortAll(new RunAborted('shutdown', SHUTDOWN_ERROR));
        await this.dispatcher.waitIdle(ABORT_SETTLE_MS);
      }
    }
    this.liveness?.stop();
    await this.syncChain;
    this.state = 'stopped';
    this.deps.log.info('scheduler stopped');
  }

  private async publish(schedules: boolean): Promise<void> {
    this.peers = await publishLiveness(this.recovery, schedules);
  }

  private async checkAvailability(): Promise<void> {
    if (this.state !== 'waiting' && this.state !== 'running') return;
    const ok = await this.deps.locks.ping();
    if (this.state === 'running') {
      if (!ok) this.pause(new Error('redis ping failed'));
      return;
    }
    if (!ok) {
      if (!this.warnedUnavailable) this.deps.log.warn('scheduler disabled: redis unavailable');
      this.warnedUnavailable = true;
      return;
    }
    await this.activate();
  }

  private async activate(): Promise<void> {
    // Alive (for the recovery of runs), but not a peer until it schedules: the others would leave
    // its share of the jobs to a pod that cannot run them.
    await this.publish(false);
    const leftovers = this.firstActivation ? await recoverOwnLeftovers(this.recovery) : [];
    this.firstActivation = false;
    // stop() may have been called while this waited: it must not be undone.
    if (this.state !== 'waiting') return;
    this.dispatcher.activate();
    let catchUps: Occurrence[];
    try {
      catchUps = await this.serialiseStrict(() => syncAll(this.syncDeps, true));
    } catch (err) {
      this.dispatcher.deactivate();
      throw err;
    }
    if (this.state !== 'waiting') return;
    this.needsCatchUp = false;
    this.state = 'running';
    this.warnedUnavailable = false;
    this.afterSync([...leftovers, ...catchUps]);
    await this.joinPeers();
    this.deps.log.info(
      {
        poll_interval: formatDurationMs(this.deps.settings.pollIntervalMs),
        jobs: this.timeline.size,
        pod: this.deps.settings.podId,
      },
      'scheduler started',
    );
  }

  /** Registers as a peer now that it schedules (the liveness loop keeps it registered). */
  private async joinPeers(): Promise<void> {
    try {
      await this.publish(true);
      // stop() may have left the peers while this was on its way.
      if (this.state !== 'running') await this.publish(false);
    } catch (err) {
      this.deps.log.warn(
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
    this.deps.log.warn({ error: errorMessage(err) }, 'scheduler disabled: redis unavailable');
  }

  private deactivate(): void {
    if (this.timer !== undefined) this.deps.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.timeline.clearQueue();
    this.dispatcher.deactivate();
    // Occurrences due while paused are caught up from the database's record on activation.
    this.needsCatchUp = true;
  }

  private async poll(): Promise<void> {
    await cleanupStaleRuns(this.recovery);
    const catchUp = this.needsCatchUp;
    this.needsCatchUp = false;
    try {
      this.afterSync(await this.serialiseStrict(() => syncAll(this.syncDeps, catchUp)));
    } catch (err) {
      this.needsCatchUp ||= catchUp;
      throw err;
    }
  }

  /** The timeline changed: re-arm the timer and offer the occurrences to catch up. */
  private afterSync(catchUps: Occurrence[]): void {
    if (this.state !== 'running') return;
    this.rearm();
    this.dispatcher.offer(catchUps);
  }

  private async whenRunning(body: () => Promise<void>): Promise<void> {
    if (this.state === 'running') await body();
  }

  private serialise(body: () => Promise<void>, what: string): void {
    this.syncChain = this.syncChain.then(body).catch((err: unknown) => {
      this.deps.log.warn(
        { error: errorMessage(err), task: what },
        'sync failed; the next poll retries',
      );
    });
  }

  private serialiseStrict<T>(body: () => Promise<T>): Promise<T> {
    const result = this.syncChain.then(body);
    this.syncChain = result.then(
      () => {},
      () => {},
    );
    return result;
  }

  private rearm(): void {
    const { clock } = this.deps;
    if (this.timer !== undefined) clock.clearTimeout(this.timer);
    this.timer = undefined;
    if (this.state !== 'running') return;
    const dueMs = this.timeline.peekDueMs();
    if (dueMs === undefined) return;
    const delayMs = Math.min(Math.max(0, dueMs - clock.now()), MAX_TIMER_MS);
    this.timer = clock.setTimeout(() => this.onTimer(), delayMs);
  }

  /** The timer went off: this pod's own due occurrences go to the dispatcher, the others wait. */
  private onTimer(): void {
    this.timer = undefined;
    const self = this.deps.settings.podId;
    const own: Occurrence[] = [];
    const others = new Map<string, Occurrence[]>();
    for (const occurrence of this.timeline.takeDue(this.deps.clock.now())) {
      const owner = ownerOf(occurrence.jobId, this.peers, self);
      if (owner === self) own.push(occurrence);
      else {
        const items = others.get(owner);
        if (items) items.push(occurrence);
        else others.set(owner, [occurrence]);
      }
    }
    this.dispatcher.offer(own);
    for (const [owner, items] of others) this.dispatcher.offerStealable(owner, items);
    this.rearm();
  }
}
