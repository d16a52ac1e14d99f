// Recovery: runs no pod will finish (stale ones past the lock TTL, those of vanished pods, this
// pod's own leftovers) and the queued runs due now (retries, backfills). What it adopts or
// takes goes to the dispatcher, to wait its turn like any occurrence.
import { attachJobs, type AttachDeps } from '../attach-jobs.js';
import type { Dispatcher } from '../dispatcher.js';
import { startLoop, type Loop } from '../../services/loop.js';
import type { Occurrence } from '../occurrence.js';
import { takeQueuedRuns } from '../queued-runs.js';
import {
  cleanupStaleRuns,
  recoverOwnLeftovers,
  recoverRuns,
  type RecoveryDeps,
} from '../recover.js';
import { DEFAULT_QUEUED_INTERVAL_MS, type SchedulerDeps } from '../settings.js';
import type { Service } from '../../services/service.js';
import type { Lifecycle } from './lifecycle.js';

export interface RecoveryRoom {
  deps: SchedulerDeps;
  recovery: RecoveryDeps;
  jobs: AttachDeps;
  lifecycle: Lifecycle;
  dispatcher: Dispatcher;
}

export class Recovery implements Service {
  readonly name = 'recovery';
  private loops: Loop[] = [];
  private firstActivation = true;

  constructor(private readonly room: RecoveryRoom) {}

  start(): void {
    const { clock, log, settings } = this.room.deps;
    const { dispatcher, recovery } = this.room;
    const holds = (jobId: string) => dispatcher.holds(jobId);
    const loop = (name: string, intervalMs: number, round: () => Promise<void>) =>
      this.loops.push(
        startLoop({
          name,
          intervalMs,
          clock,
          log,
          round: async () => {
            if (this.room.lifecycle.state === 'running') await round();
          },
        }),
      );
    loop(
      'stale runs',
      settings.pollIntervalMs,
      async () => void (await cleanupStaleRuns(recovery)),
    );
    loop('queued runs', settings.queuedIntervalMs ?? DEFAULT_QUEUED_INTERVAL_MS, async () => {
      const { freeSlots, waiting } = dispatcher.snapshot();
      const room = freeSlots - waiting;
      dispatcher.offer(await this.withJobs(await takeQueuedRuns(recovery, room, holds)));
    });
    loop('recovery', settings.recoveryIntervalMs, async () => {
      dispatcher.offer(await this.withJobs(await recoverRuns(recovery, holds)));
    });
  }

  async stop(): Promise<void> {
    await Promise.all(this.loops.splice(0).map((loop) => loop.stop()));
  }

  /**
   * Runs an earlier process with this pod's id left (a restarted container keeps its name), to
   * run: only at the first activation, before this process has claimed anything.
   */
  async leftovers(): Promise<Occurrence[]> {
    if (!this.firstActivation) return [];
    const found = await this.withJobs(await recoverOwnLeftovers(this.room.recovery));
    this.firstActivation = false;
    return found;
  }

  private withJobs(occurrences: Occurrence[]): Promise<Occurrence[]> {
    return attachJobs(this.room.jobs, occurrences);
  }
}
