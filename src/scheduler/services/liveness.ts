// Liveness: this pod proves it is alive (other pods recover the runs of a pod whose proof has
// expired) and, while it schedules, learns who its peers are (who owns which job). The loop goes
// on while the pod is paused or draining with runs in flight, so its runs are not taken from it.
import type { Dispatcher } from '../dispatcher.js';
import { startLoop, type Loop } from '../../services/loop.js';
import { errorMessage } from '../occurrence.js';
import { publishLiveness, type RecoveryDeps } from '../recover.js';
import type { SchedulerDeps } from '../settings.js';
import type { Service } from '../../services/service.js';
import type { Lifecycle } from './lifecycle.js';

export interface LivenessDeps {
  deps: SchedulerDeps;
  recovery: RecoveryDeps;
  lifecycle: Lifecycle;
  dispatcher: Dispatcher;
}

export class Liveness implements Service {
  readonly name = 'liveness';
  private loop: Loop | undefined;
  /** Live scheduling pods (this one included), as last read from Redis. */
  private livePeers: string[];

  constructor(private readonly room: LivenessDeps) {
    this.livePeers = [room.deps.settings.podId];
  }

  get peers(): readonly string[] {
    return this.livePeers;
  }

  start(): void {
    const { clock, log, settings } = this.room.deps;
    this.loop = startLoop({
      name: 'liveness',
      intervalMs: settings.livenessIntervalMs,
      clock,
      log,
      round: async () => {
        const schedules = this.room.lifecycle.state === 'running';
        if (schedules || this.room.dispatcher.snapshot().inFlight > 0)
          await this.publish(schedules);
      },
    });
  }

  stop(): Promise<void> {
    return this.loop?.stop() ?? Promise.resolve();
  }

  /** Publishes this pod's proof, as a peer (it schedules) or not. */
  async publish(schedules: boolean): Promise<void> {
    this.livePeers = await publishLiveness(this.room.recovery, schedules);
  }

  /** Registers as a peer now that it schedules (the loop keeps it registered). */
  async join(): Promise<void> {
    try {
      await this.publish(true);
      // stop() may have left the peers while this was on its way.
      if (this.room.lifecycle.state !== 'running') await this.publish(false);
    } catch (err) {
      this.room.deps.log.warn(
        { error: errorMessage(err) },
        'cannot join the peers yet; the liveness loop retries',
      );
    }
  }
}
