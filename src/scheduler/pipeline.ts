// What the steps of an occurrence share: their dependencies, the slot they hold, their result.
import type { SchedulerEvents, SkipReason } from './events.js';
import type { WaitingStage } from './life-cycle.js';
import type { LoadedJob } from './occurrence.js';
import type { LockHolder } from './ports.js';
import type { RunOutcome } from '../domain/run.js';
import type { PermitAnswer } from './send-permits.js';
import type { SchedulerDeps } from './settings.js';

/** The scheduler's dependencies, its events, and a view of the jobs it holds. */
export interface PipelineDeps extends SchedulerDeps {
  events: SchedulerEvents;
  /** The job as this pod holds it now; undefined once it was removed. */
  lookup(jobId: string): LoadedJob | undefined;
  /** This pod has that occurrence of the job in flight (absent: it runs a job once at a time). */
  inFlightHere?(jobId: string, scheduledAtMs: number): boolean;
  /** Calls `wake` when a run of the job ends on this pod; returns the way to stop waiting. */
  whenRunEnds?(jobId: string, wake: () => void): () => void;
}

/** The slot the dispatcher lent. */
export interface Slot {
  /** Where the occurrence waited for it: this pod's queue, or another owner's take-over list. */
  readonly from: WaitingStage;
  /** The lock and the claim are this pod's: the occurrence will run here, as that run. */
  claimed(runId: string): void;
  /**
   * Waits for one of the pod's model slots, held until `release`: the lock and the claim were
   * taken before it, so it is held for the agent's call only.
   */
  send(signal: AbortSignal): Promise<PermitAnswer>;
  /** Freed as soon as the agent has answered (idempotent), with the model slot. */
  release(): void;
}

export type RunResult =
  | { kind: 'skipped'; reason: SkipReason; holder?: LockHolder | null }
  | { kind: 'ran'; runId: string; outcome: RunOutcome; recorded: boolean };

/** Why a run was aborted; its message becomes the run's error text. */
export class RunAborted extends Error {
  override name = 'RunAborted';
  constructor(
    readonly kind: 'timeout' | 'shutdown' | 'cancelled',
    message: string,
  ) {
    super(message);
  }
}

export const SHUTDOWN_ERROR = 'interrupted by shutdown';
