// Partition maintenance: the hourly upkeep of the run history (day partitions created ahead,
// old ones dropped, shorter retentions trimmed), at once when scheduling starts.
import { startLoop, type Loop } from '../loop.js';
import { maintainRunHistory, RUN_HISTORY_INTERVAL_MS } from '../run-history.js';
import type { SchedulerDeps } from '../settings.js';
import type { Lifecycle, Service } from './service.js';

export class HistoryUpkeep implements Service {
  private loop: Loop | undefined;

  constructor(
    private readonly deps: SchedulerDeps,
    private readonly lifecycle: Lifecycle,
  ) {}

  start(): void {
    const running = () => this.lifecycle.state === 'running';
    this.loop = startLoop({
      name: 'run history',
      intervalMs: RUN_HISTORY_INTERVAL_MS,
      clock: this.deps.clock,
      log: this.deps.log,
      body: async () => {
        if (running()) await maintainRunHistory(this.deps, running);
      },
    });
  }

  stop(): void {
    this.loop?.stop();
  }

  /** Runs a round now. */
  kick(): void {
    this.loop?.kick();
  }
}
