// Partition maintenance: the hourly upkeep of the run history (day partitions created ahead,
// old ones dropped, shorter retentions trimmed), at once when scheduling starts.
import { startLoop, type Loop } from '../../services/loop.js';
import { maintainRunHistory, RUN_HISTORY_INTERVAL_MS } from '../run-history.js';
import type { SchedulerDeps } from '../settings.js';
import type { Service } from '../../services/service.js';
import type { Lifecycle } from './lifecycle.js';

export class HistoryUpkeep implements Service {
  readonly name = 'run history';
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
      round: async () => {
        if (running()) await maintainRunHistory(this.deps, running);
      },
    });
  }

  stop(): Promise<void> {
    return this.loop?.stop() ?? Promise.resolve();
  }

  /** Runs a round now. */
  kick(): void {
    this.loop?.kick();
  }
}
