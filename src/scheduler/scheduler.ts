import { formatDurationMs } from '../duration.js';
import { Dispatcher } from './dispatcher.js';
import { SchedulerEvents } from './events.js';
import { startLoop, type Loop } from './loop.js';
import { takeQueuedRuns } from './queued-runs.js';
import { errorMessage, type Occurrence } from './occurrence.js';
import { ownerOf } from './owners.js';
import {
  cleanupStaleRuns,
  publishLiveness,
  recoverOwnLeftovers,
  recoverRuns,
  type RecoveryDeps,
} from './recover.js';
import {
  planBatch,
  PLAN_BATCH,
  readJobs,
  readWindow,
  type WindowDeps,
  type WindowRead,
} from './due-window.js';
import { RunAborted, SHUTDOWN_ERROR } from './pipeline.js';
import { maintainRunHistory, RUN_HISTORY_INTERVAL_MS } from './run-history.js';
import { runOccurrence } from './run-occurrence.js';
import { ScheduleCache } from './schedule-cache.js';
import {
  DEFAULT_LOOKAHEAD_MS,
  DEFAULT_PLAN_INTERVAL_MS,
  DEFAULT_QUEUED_INTERVAL_MS,
  DEFAULT_WINDOW_READ_INTERVAL_MS,
  type SchedulerDeps,
} from './settings.js';
import { Timeline } from './timeline.js';

// setTimeout cannot wait longer than 2^31-1 ms; far-away jobs are simply re-checked.
const MAX_TIMER_MS = 3_600_000;
const AVAILABILITY_CHECK_MS = 2000;
const ABORT_SETTLE_MS = 10_000;
// A notification naming more jobs than this (a bulk import) wakes the sweep and the window read
// instead of loading each job by id.
const MAX_NOTIFIED_IDS = 1000;
// The planning sweep gives the event loop back after this much work in one go.
const PLAN_BUDGET_MS = 300;

type State = 'waiting' | 'running' | 'stopping' | 'stopped';

/**
 * A pod's scheduler: its lifecycle. Waits for Redis, then reads the due window (jobs whose
 * next_run_at falls within the look-ahead) into the Timeline every second, and at each tick
 * offers the due occurrences to the Dispatcher (its own jobs first, other owners' to take over if
 * they leave them). The planning sweep gives jobs without next_run_at one; notifications,
 * liveness and recovery keep it true; it pauses while Redis is unavailable. Results come back as
 * events.
 */
export class Scheduler {
  readonly events: SchedulerEvents;
  private readonly timeline: Timeline;
  private readonly dispatcher: Dispatcher;
  private readonly windowDeps: WindowDeps;
  private readonly recovery: RecoveryDeps;
  private state: State = 'waiting';
  private timer: unknown;
  private loops: Loop[] = [];
  private windowLoop: Loop | undefined;
  private planLoop: Loop | undefined;
  private historyLoop: Loop | undefined;
  private liveness: Loop | undefined;
  private firstActivation = true;
  private warnedUnavailable = false;
  /** An occurrence may have been lost (database or Redis trouble): the next read catches up. */
  private needsCatchUp = false;
  /** Live scheduling pods (this one included), as last read from Redis: who owns which job. */
  private peers: string[];
  private syncChain: Promise<void> = Promise.resolve();
  private changedIds = new Set<string>();
  /** The runs in flight on this pod (from the claim to the record), by job and time, for cancels. */
  private readonly runOfOccurrence = new Map<string, string>();

  constructor(private readonly deps: SchedulerDeps) {
    this.events = deps.events ?? new SchedulerEvents();
    const key = (jobId: string, ms: number) => `${jobId}|${ms}`;
    this.events.on('claimed', ({ jobId, runId, scheduledAtMs }) =>
      this.runOfOccurrence.set(key(jobId, scheduledAtMs), runId),
    );
    this.events.on('recorded', ({ jobId, scheduledAtMs }) =>
      this.runOfOccurrence.delete(key(jobId, scheduledAtMs)),
    );
    this.events.on('skipped', ({ jobId, scheduledAtMs }) =>
      this.runOfOccurrence.delete(key(jobId, scheduledAtMs)),
    );
    this.peers = [deps.settings.podId];
    const schedules = new ScheduleCache();
    this.timeline = new Timeline(deps.log, deps.metrics, schedules);
    this.windowDeps = {
      store: deps.store,
      clock: deps.clock,
      log: deps.log,
      metrics: deps.metrics,
      timeline: this.timeline,
      schedules,
      catchupWindowMs: deps.settings.catchupWindowMs,
      lookaheadMs: deps.settings.lookaheadMs ?? DEFAULT_LOOKAHEAD_MS,
    };
    this.recovery = { ...deps, events: this.events };
    const pipeline = {
      ...deps,
      events: this.events,
      lookup: (id: string) => this.timeline.get(id),
      inFlightHere: (id: string, ms: number) => this.dispatcher.inFlightAt(id, ms),
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
      // The database's record tells, at the next read, whether any pod ran these.
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
    this.windowLoop = startLoop({
      name: 'due window',
      intervalMs: settings.windowReadIntervalMs ?? DEFAULT_WINDOW_READ_INTERVAL_MS,
      clock,
      log,
      body: () => this.whenRunning(() => this.readWindowNow()),
    });
    this.planLoop = startLoop({
      name: 'planning sweep',
      intervalMs: settings.planIntervalMs ?? DEFAULT_PLAN_INTERVAL_MS,
      clock,
      log,
      body: () => this.whenRunning(() => this.sweep()),
    });
    this.loops.push(this.windowLoop, this.planLoop);
    this.historyLoop = startLoop({
      name: 'run history',
      intervalMs: RUN_HISTORY_INTERVAL_MS,
      clock,
      log,
      body: () =>
        this.whenRunning(() => maintainRunHistory(this.deps, () => this.state === 'running')),
    });
    this.loops.push(this.historyLoop);
    loop('stale runs', settings.pollIntervalMs, () =>
      this.whenRunning(async () => void (await cleanupStaleRuns(this.recovery))),
    );
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
    loop('queued runs', settings.queuedIntervalMs ?? DEFAULT_QUEUED_INTERVAL_MS, () =>
      this.whenRunning(async () => {
        const { busySlots, waiting } = this.dispatcher.snapshot();
        const room = settings.maxConcurrentRuns - busySlots - waiting;
        const holds = (jobId: string) => this.dispatcher.holds(jobId);
        this.dispatcher.offer(
          await this.withJobs(await takeQueuedRuns(this.recovery, room, holds)),
        );
      }),
    );
    loop('recovery', settings.recoveryIntervalMs, () =>
      this.whenRunning(async () => {
        const holds = (jobId: string) => this.dispatcher.holds(jobId);
        this.dispatcher.offer(await this.withJobs(await recoverRuns(this.recovery, holds)));
      }),
    );
  }

  /** Jobs named by notifications changed: re-read just those (serialised with the reads). */
  jobsChanged(ids: readonly string[]): void {
    if (this.state !== 'running') return;
    if (ids.length > MAX_NOTIFIED_IDS) {
      this.planLoop?.kick();
      this.windowLoop?.kick();
      return;
    }
    for (const id of ids) this.changedIds.add(id);
    this.serialise(async () => {
      const batch = [...this.changedIds];
      this.changedIds.clear();
      if (batch.length === 0 || this.state !== 'running') return;
      // Written by SQL without next_run_at, or re-planned by an edit: plan them now.
      await planBatch(this.windowDeps, batch);
      this.afterRead(await readJobs(this.windowDeps, batch));
    }, 'job notification read');
  }

  /** "Run now": one extra occurrence of the job at the given nominal time (pods race as usual). */
  trigger(jobId: string, scheduledAtMs: number): void {
    if (this.state !== 'running') return;
    this.serialise(async () => {
      const [occurrence] = await this.withJobs([
        { jobId, tenantId: '', scheduledAtMs, kind: 'manual' },
      ]);
      if (!occurrence?.job) return;
      this.dispatcher.offer([{ ...occurrence, tenantId: occurrence.job.job.tenantId }]);
    }, 'run-now read');
  }

  /**
   * POST /v1/runs/{id}/cancel, or a later occurrence of a cancel_other job (`why` "overlap"),
   * reached this pod: stop that run if it is this pod's.
   */
  cancelRun(jobId: string, runId: string, why?: string): void {
    const prefix = `${jobId}|`;
    for (const [key, id] of this.runOfOccurrence) {
      if (id !== runId || !key.startsWith(prefix)) continue;
      const reason =
        why === 'overlap'
          ? 'cancelled: superseded by a later occurrence (overlap cancel_other)'
          : 'cancelled: stopped by request';
      this.dispatcher.abort(
        jobId,
        new RunAborted('cancelled', reason),
        Number(key.slice(prefix.length)),
      );
    }
  }

  /** Re-reads the window now (notifications may have been lost, e.g. after a reconnect). */
  resync(): void {
    if (this.state !== 'running') return;
    this.windowLoop?.kick();
    this.planLoop?.kick();
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
    const leftovers = this.firstActivation
      ? await this.withJobs(await recoverOwnLeftovers(this.recovery))
      : [];
    this.firstActivation = false;
    // stop() may have been called while this waited: it must not be undone.
    if (this.state !== 'waiting') return;
    this.dispatcher.activate();
    let read: WindowRead;
    try {
      this.timeline.clear();
      // One batch of planning first, so jobs written a moment ago are in the first read.
      await planBatch(this.windowDeps, null);
      read = await this.serialiseStrict(() => readWindow(this.windowDeps));
    } catch (err) {
      this.dispatcher.deactivate();
      throw err;
    }
    if (this.state !== 'waiting') return;
    this.needsCatchUp = false;
    this.state = 'running';
    this.warnedUnavailable = false;
    this.afterRead(read);
    this.dispatcher.offer(leftovers);
    this.planLoop?.kick();
    this.historyLoop?.kick();
    await this.joinPeers();
    this.deps.log.info(
      {
        poll_interval: formatDurationMs(this.deps.settings.pollIntervalMs),
        lookahead: formatDurationMs(this.windowDeps.lookaheadMs),
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
    this.timeline.clear();
    this.dispatcher.deactivate();
    // Occurrences due while paused are caught up from the database's record on activation.
    this.needsCatchUp = true;
  }

  /** One read of the due window; after trouble, planned from the database's record alone. */
  private async readWindowNow(): Promise<void> {
    const catchUp = this.needsCatchUp;
    this.needsCatchUp = false;
    try {
      this.afterRead(
        await this.serialiseStrict(() => {
          if (catchUp) this.timeline.forgetFired();
          return readWindow(this.windowDeps);
        }),
      );
    } catch (err) {
      this.needsCatchUp ||= catchUp;
      throw err;
    }
  }

  /** Plans jobs without next_run_at, batch after batch, for a bounded time. */
  private async sweep(): Promise<void> {
    const startedMs = this.deps.clock.now();
    let planned = 0;
    for (;;) {
      const count = await planBatch(this.windowDeps, null);
      planned += count;
      if (count < PLAN_BATCH || this.state !== 'running') break;
      if (this.deps.clock.now() - startedMs >= PLAN_BUDGET_MS) {
        this.planLoop?.kick();
        break;
      }
    }
    if (planned > 0) this.windowLoop?.kick();
  }

  /** The timeline changed: re-arm the timer, offer the catch-ups, move skipped jobs on. */
  private afterRead(read: WindowRead): void {
    if (this.state !== 'running') return;
    this.rearm();
    this.dispatcher.offer(read.catchUps);
    for (const skip of read.skipped) {
      const next = skip.nextMs === null ? null : new Date(skip.nextMs);
      this.deps.store.advanceJob(skip.jobId, new Date(skip.pastAtMs), next).catch((err) => {
        this.deps.log.warn(
          { job_id: skip.jobId, error: errorMessage(err) },
          'cannot move next_run_at past missed occurrences; the next read retries',
        );
      });
    }
  }

  /** Attaches the jobs (as they are now) to occurrences that came without (adopted, run-now). */
  private async withJobs(occurrences: Occurrence[]): Promise<Occurrence[]> {
    const missing = occurrences.filter((o) => !o.job && !this.timeline.get(o.jobId));
    const loaded = new Map<string, Occurrence['job']>();
    if (missing.length > 0) {
      for (const job of await this.deps.store.loadJobs([...new Set(missing.map((o) => o.jobId))])) {
        const schedule = this.windowDeps.schedules.parse(job.schedule, job.timezone, job.endsAt);
        if (typeof schedule !== 'string') loaded.set(job.id, { job, schedule });
      }
    }
    return occurrences.map((o) => {
      const job = o.job ?? this.timeline.get(o.jobId) ?? loaded.get(o.jobId);
      return job ? { ...o, job } : o;
    });
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
