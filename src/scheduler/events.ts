import { EventEmitter } from 'node:events';
import type { ErrorKind } from './ports.js';

/** Why an occurrence did not run on this pod. */
export type SkipReason =
  /** The job is no longer loaded (deleted, disabled, schedule now invalid). */
  | 'not_loaded'
  /** Another pod holds the job's lock (running it, or done with it). */
  | 'lock_held'
  /** Claimed already (by any pod), or the job is gone, disabled or still in flight. */
  | 'taken'
  /** The tenant is at its max_concurrent_runs; the occurrence waits and is tried again. */
  | 'capped'
  /** The previous run of the job is still in flight on this pod. */
  | 'overlap'
  /** Waited for a slot until overtaken by the job's next occurrence or the catch-up window. */
  | 'expired'
  /** Another owner's, passed over while this pod was full: most likely its owner ran it. */
  | 'passed_over'
  /** Claimed, but handed back before any model request left (shutdown, or adopted elsewhere). */
  | 'handed_back'
  | 'redis_error'
  | 'db_error';

export interface SchedulerEventMap {
  claimed: [{ jobId: string; runId: string; scheduledAtMs: number }];
  recorded: [
    {
      jobId: string;
      runId: string;
      scheduledAtMs: number;
      status: 'success' | 'failed';
      errorKind: ErrorKind | null;
      recorded: boolean;
    },
  ];
  skipped: [{ jobId: string; scheduledAtMs: number; reason: SkipReason }];
  recovered: [
    { runId: string; jobId: string; action: 'failed' | 'adopted' | 'requeued'; reason: string },
  ];
}

/** The scheduler's named events, for observers (tests, metrics): nothing in the scheduler listens. */
export class SchedulerEvents extends EventEmitter<SchedulerEventMap> {}
