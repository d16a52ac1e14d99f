import type { Logger } from '../log.js';
import type { ParsedSchedule } from '../jobs/schedule.js';
import type { SchedulerMetrics } from './metrics.js';
import type { AgentRunner, Clock, JobStore, LockStore, StoredJob } from './ports.js';
import type { Fifo } from './fifo.js';
import type { OccurrenceQueue } from './queue.js';
import type { StealList } from './waiting.js';

export interface SchedulerSettings {
  podId: string;
  pollIntervalMs: number;
  execTimeoutMs: number;
  lockTtlMs: number;
  maxConcurrentRuns: number;
  catchupWindowMs: number;
  /** How often this pod proves it is alive, and how long the proof lasts. */
  livenessIntervalMs: number;
  livenessTtlMs: number;
  /** How often runs of dead pods are looked for. */
  recoveryIntervalMs: number;
}

export interface SchedulerDeps {
  store: JobStore;
  locks: LockStore;
  runner: AgentRunner;
  clock: Clock;
  log: Logger;
  metrics: SchedulerMetrics;
  settings: SchedulerSettings;
}

export interface LoadedJob {
  job: StoredJob;
  schedule: ParsedSchedule;
}

/** scheduled: from the timeline; catchup: missed while out of service; manual: "run now". */
export type OccurrenceKind = 'scheduled' | 'catchup' | 'manual';

export interface Occurrence {
  jobId: string;
  scheduledAtMs: number;
  kind: OccurrenceKind;
}

export interface InFlightRun {
  scheduledAtMs: number;
  runId: string | null;
  controller: AbortController;
  done: Promise<void>;
}

/** Everything a pod's scheduler knows; shared by the sync, fire, execute and recover steps. */
export interface SchedulerContext extends SchedulerDeps {
  jobs: Map<string, LoadedJob>;
  queue: OccurrenceQueue;
  /** Jobs whose stored schedule does not parse, by updatedAt, so each is reported once. */
  invalidJobs: Map<string, number>;
  /** Runs (or attempts) in progress on this pod, by job: a job never runs twice at once. */
  inFlight: Map<string, InFlightRun>;
  /**
   * Occurrences holding one of the pod's SCHEDULER_MAX_CONCURRENT_RUNS slots: from the lock
   * attempt until the agent has answered (recording the outcome does not hold a slot).
   */
  busySlots: number;
  /** Occurrences set aside while this pod was full, oldest first. */
  pending: Fifo<Occurrence>;
  /** Other pods' occurrences this pod may take over when it has room. */
  steals: StealList[];
  /** Live scheduling pods (this one included), as last read from Redis: who owns which job. */
  peers: string[];
  /** Set when an occurrence may have been lost (database or Redis trouble): the next sync catches up. */
  needsCatchUp: boolean;
  /** False while paused (Redis unavailable) or stopping: nothing new fires. */
  active: boolean;
  /** Re-arms the single timer after the queue changed. */
  rearm(): void;
  /** A slot came free: waiting occurrences may go. */
  onSlotFreed(): void;
  /** Called when Redis fails under a lock operation. */
  onRedisError(err: unknown): void;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
