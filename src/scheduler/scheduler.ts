import { SchedulerEvents } from './events.js';
import { errorMessage, type Occurrence } from './occurrence.js';
import { RunAborted, SHUTDOWN_ERROR, type RunResult } from './pipeline.js';
import { buildRooms, type Rooms } from './services/rooms.js';
import type { Service } from '../services/service.js';
import type { Lifecycle } from './services/lifecycle.js';
import type { SchedulerDeps } from './settings.js';

const ABORT_SETTLE_MS = 10_000;
/**
 * A run-now stamped this long before the connection was seen lost may still have been unheard
 * (the request's clock, its commit after the stamp, the loss noticed late). Older ones were
 * heard: one without a run was skipped (overlap) and stays so.
 */
const TRIGGER_HEARD_MARGIN_MS = 10_000;
const CANCELS_RETRY_MAX_MS = 30_000;

/**
 * A pod's scheduler: the supervisor of its services. It owns the lifecycle (waiting for Redis,
 * running, stopping, stopped), starts and stops the services in order, and is where every
 * occurrence's result comes back (from the dispatcher): a Redis failure pauses scheduling, a
 * database failure or an occurrence passed over makes the next read catch up. Its events only
 * tell observers what happened.
 */
export class Scheduler implements Service {
  readonly name = 'scheduler';
  readonly events: SchedulerEvents;
  private readonly lifecycle: Lifecycle = { state: 'waiting' };
  private readonly rooms: Rooms;
  /** In start order; liveness last, as it outlives the others in stop(). */
  private readonly services: Service[];
  /** The next read of the cancels requested, after one failed. */
  private cancelsRetry: unknown;

  constructor(private readonly deps: SchedulerDeps) {
    this.events = deps.events ?? new SchedulerEvents();
    this.rooms = buildRooms(deps, this.events, this.lifecycle, {
      settled: (occurrence, result) => this.settled(occurrence, result),
      deactivate: () => this.deactivate(),
    });
    const { availability, reader, history, recovery, liveness } = this.rooms;
    this.services = [availability, reader, history, recovery, liveness];
  }

  get running(): boolean {
    return this.lifecycle.state === 'running';
  }

  start(): void {
    for (const service of this.services) service.start();
  }

  /** Jobs named by notifications changed: re-read just those (serialised with the reads). */
  jobsChanged(ids: readonly string[]): void {
    this.rooms.reader.jobsChanged(ids);
  }

  /** "Run now": one extra occurrence of the job at the given nominal time (pods race as usual). */
  trigger(jobId: string, scheduledAtMs: number): void {
    this.rooms.reader.runNow(jobId, scheduledAtMs);
  }

  /**
   * POST /v1/runs/{id}/cancel, or a later occurrence of a cancel_other job (`why` "overlap"),
   * reached this pod: stop that run if it is this pod's.
   */
  cancelRun(jobId: string, runId: string, why?: string): void {
    const reason =
      why === 'overlap'
        ? 'cancelled: superseded by a later occurrence (overlap cancel_other)'
        : 'cancelled: stopped by request';
    this.rooms.dispatcher.abortRun(jobId, runId, new RunAborted('cancelled', reason));
  }

  /** Re-reads the window now (notifications may have been lost, e.g. after a reconnect). */
  resync(): void {
    this.rooms.reader.resync();
  }

  /**
   * The listener connection is back: what was sent since lostAtMs is lost. Re-reads the window
   * (job changes), offers the run-now requests of that time no pod ran, and stops the runs here
   * asked to stop.
   */
  reconnected(lostAtMs: number): void {
    this.resync();
    this.rooms.reader.runMissedTriggers(lostAtMs - TRIGGER_HEARD_MARGIN_MS);
    void this.stopCancelledRuns();
  }

  /**
   * Cancels of this pod's runs in flight, read from the database (cancel_requested_at); a read
   * that fails is tried again after a back-off (1 s, 2 s, … 30 s) until the pod stops.
   */
  private async stopCancelledRuns(failures = 0): Promise<void> {
    this.deps.clock.clearTimeout(this.cancelsRetry);
    this.cancelsRetry = undefined;
    const runIds = this.rooms.dispatcher.runIds();
    if (runIds.length === 0) return;
    try {
      const cancelled = await this.deps.store.cancelsRequested(runIds);
      for (const { jobId, runId } of cancelled) this.cancelRun(jobId, runId);
    } catch (err) {
      const { state } = this.lifecycle;
      if (state === 'stopping' || state === 'stopped') return;
      const delayMs = Math.min(1000 * 2 ** failures, CANCELS_RETRY_MAX_MS);
      this.deps.log.warn(
        { error: errorMessage(err), retry_in_ms: delayMs },
        'cannot read the cancels requested',
      );
      this.cancelsRetry = this.deps.clock.setTimeout(
        () => void this.stopCancelledRuns(failures + 1),
        delayMs,
      );
    }
  }

  /** Stops firing, lets in-flight runs finish within graceMs, then aborts and records the rest. */
  async stop(graceMs: number): Promise<void> {
    const { lifecycle } = this;
    const { dispatcher, liveness, reader } = this.rooms;
    if (lifecycle.state === 'stopping' || lifecycle.state === 'stopped') return;
    lifecycle.state = 'stopping';
    this.deps.clock.clearTimeout(this.cancelsRetry);
    this.deactivate();
    // Claimed runs still waiting for a model slot hand their claims back instead of sending.
    dispatcher.stopSending();
    // Leave the peers at once, so the others stop leaving this pod's jobs to it.
    await liveness.publish(false).catch(() => {});
    // Liveness goes on while runs drain: other pods recover the runs of a pod whose key is gone.
    // Their rounds under way are not waited for, but for the reads (reader.idle, below).
    for (const service of this.services) if (service !== liveness) void service.stop(graceMs);
    const inFlight = dispatcher.snapshot().inFlight;
    if (inFlight > 0) {
      this.deps.log.info({ in_flight: inFlight }, 'scheduler draining');
      if (!(await dispatcher.waitIdle(graceMs))) {
        dispatcher.abortAll(new RunAborted('shutdown', SHUTDOWN_ERROR));
        await dispatcher.waitIdle(ABORT_SETTLE_MS);
      }
    }
    void liveness.stop();
    await reader.idle();
    lifecycle.state = 'stopped';
    this.deps.log.info('scheduler stopped');
  }

  /** The one return channel: what became of each occurrence the dispatcher was given. */
  private settled(occurrence: Occurrence, result: RunResult): void {
    if (result.kind === 'ran') {
      this.rooms.runEnds.ended(occurrence.jobId);
      return;
    }
    if (result.reason === 'redis_error') {
      this.rooms.availability.pause(new Error('redis failed under a lock operation'));
    }
    // The database's record tells, at the next read, whether any pod ran these.
    if (result.reason === 'db_error' || result.reason === 'passed_over') {
      this.rooms.reader.markCatchUp();
    }
  }

  /** Stops firing and forgets what was due; runs in flight go on. */
  private deactivate(): void {
    void this.rooms.ticker.stop();
    this.rooms.timeline.clear();
    this.rooms.dispatcher.deactivate();
    // Occurrences due while paused are caught up from the database's record on activation.
    this.rooms.reader.markCatchUp();
  }
}
