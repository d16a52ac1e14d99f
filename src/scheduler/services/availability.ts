// Availability: pings Redis every two seconds. While it answers the pod schedules (activate:
// leftovers recovered, the first read of the due window, a peer again); when it stops answering
// (or a lock operation failed) the pod pauses until it answers again.
import { formatDurationMs } from '../../duration.js';
import type { Dispatcher } from '../dispatcher.js';
import type { WindowRead } from '../due-window.js';
import { startLoop, type Loop } from '../../services/loop.js';
import { errorMessage } from '../occurrence.js';
import type { SchedulerDeps } from '../settings.js';
import type { Timeline } from '../timeline.js';
import type { HistoryUpkeep } from './history.js';
import type { Liveness } from './liveness.js';
import type { Recovery } from './recovery.js';
import type { Service } from '../../services/service.js';
import type { Lifecycle } from './lifecycle.js';
import type { WindowReader } from './window-reader.js';

const AVAILABILITY_CHECK_MS = 2000;

export interface AvailabilityRoom {
  deps: SchedulerDeps;
  lookaheadMs: number;
  lifecycle: Lifecycle;
  timeline: Timeline;
  dispatcher: Dispatcher;
  liveness: Liveness;
  reader: WindowReader;
  recovery: Recovery;
  history: HistoryUpkeep;
  /** Stops firing and forgets what was due (the supervisor's, shared with stop()). */
  deactivate(): void;
}

export class Availability implements Service {
  readonly name = 'availability';
  private loop: Loop | undefined;
  private warnedUnavailable = false;

  constructor(private readonly room: AvailabilityRoom) {}

  start(): void {
    const { clock, log, settings } = this.room.deps;
    this.loop = startLoop({
      name: 'availability',
      intervalMs: Math.min(settings.pollIntervalMs, AVAILABILITY_CHECK_MS),
      clock,
      log,
      round: () => this.check(),
      immediate: true,
    });
  }

  stop(): Promise<void> {
    return this.loop?.stop() ?? Promise.resolve();
  }

  /** Redis failed the pod: scheduling pauses until a ping answers again. */
  pause(err: unknown): void {
    const { lifecycle } = this.room;
    if (lifecycle.state !== 'running') return;
    lifecycle.state = 'waiting';
    this.room.deactivate();
    this.warnedUnavailable = true;
    this.room.deps.log.warn({ error: errorMessage(err) }, 'scheduler disabled: redis unavailable');
  }

  private async check(): Promise<void> {
    const { lifecycle, deps } = this.room;
    if (lifecycle.state !== 'waiting' && lifecycle.state !== 'running') return;
    const ok = await deps.locks.ping();
    if (lifecycle.state === 'running') {
      if (!ok) this.pause(new Error('redis ping failed'));
      return;
    }
    if (!ok) {
      if (!this.warnedUnavailable) deps.log.warn('scheduler disabled: redis unavailable');
      this.warnedUnavailable = true;
      return;
    }
    await this.activate();
  }

  private async activate(): Promise<void> {
    const { lifecycle, dispatcher, liveness, reader } = this.room;
    // Alive (for the recovery of runs), but not a peer until it schedules: the others would leave
    // its share of the jobs to a pod that cannot run them.
    await liveness.publish(false);
    const leftovers = await this.room.recovery.leftovers();
    // stop() may have been called while this waited: it must not be undone.
    if (lifecycle.state !== 'waiting') return;
    dispatcher.activate();
    let read: WindowRead;
    try {
      read = await reader.readFirst();
    } catch (err) {
      dispatcher.deactivate();
      throw err;
    }
    if (lifecycle.state !== 'waiting') return;
    lifecycle.state = 'running';
    this.warnedUnavailable = false;
    reader.begin(read);
    dispatcher.offer(leftovers);
    reader.kickPlanning();
    this.room.history.kick();
    await liveness.join();
    const { settings, log } = this.room.deps;
    log.info(
      {
        poll_interval: formatDurationMs(settings.pollIntervalMs),
        lookahead: formatDurationMs(this.room.lookaheadMs),
        jobs: this.room.timeline.size,
        pod: settings.podId,
      },
      'scheduler started',
    );
  }
}
