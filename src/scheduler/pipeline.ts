// What the steps of an occurrence share: their dependencies, the slot they hold, their result.
import type { Logger } from '../log.js';
import type { SchedulerEvents, SkipReason } from './events.js';
import type { SchedulerMetrics } from './metrics.js';
import type { LoadedJob } from './occurrence.js';
import type { AgentRunner, Clock, JobStore, LockHolder, LockStore, RunOutcome } from './ports.js';
import type { SchedulerSettings } from './settings.js';

export interface PipelineDeps {
  store: JobStore;
  locks: LockStore;
  runner: AgentRunner;
  clock: Clock;
  log: Logger;
  metrics: SchedulerMetrics;
  settings: SchedulerSettings;
  events: SchedulerEvents;
  /** The job as this pod holds it now; undefined once it was removed. */
  lookup(jobId: string): LoadedJob | undefined;
}

/** The slot the dispatcher lent. */
export interface Slot {
  /** The lock and the claim are this pod's: the occurrence will run here. */
  claimed(): void;
  /** Freed as soon as the agent has answered (idempotent). */
  release(): void;
}

export type RunResult =
  | { kind: 'skipped'; reason: SkipReason; holder?: LockHolder | null }
  | { kind: 'ran'; runId: string; outcome: RunOutcome; recorded: boolean };

/** Why a run was aborted; its message becomes the run's error text. */
export class RunAborted extends Error {
  override name = 'RunAborted';
  constructor(
    readonly kind: 'timeout' | 'shutdown',
    message: string,
  ) {
    super(message);
  }
}

export const SHUTDOWN_ERROR = 'interrupted by shutdown';
