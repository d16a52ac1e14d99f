// What the workloads need from a system under test (HermesX in ours.ts, BullMQ in bull.ts).
import type { JobSpec, RunRecord } from './analysis.js';
import type { Replica } from './usage.js';

export interface Progress {
  /** Runs started with a nominal time at or after the phase start. */
  runs: number;
  inFlight: Record<string, number>;
  /** Anything else worth a glance while it runs (e.g. what PostgreSQL is busy with). */
  note?: string;
}

export interface NewJobSample {
  createdMs: number;
  /** The first whole second at or after creation: when the first occurrence is due. */
  expectedFirstMs: number;
  firstNominalMs: number | null;
  lagMs: number | null;
  onTime: boolean;
}

export interface ScaleResult {
  jobs: number;
  /** Creating the jobs: bulk INSERT, or upsertJobScheduler calls. */
  createSeconds: number;
  /** HermesX: until every replica holds every job (notifications); BullMQ: n/a. */
  absorbSeconds: number | null;
  /** Full sync per replica at start with every job enabled (HermesX only). */
  syncSeconds: Record<string, number>;
  /** From spawn to scheduling, per replica, with every job in the database. */
  startSeconds: Record<string, number>;
  rssBytes: Record<string, number>;
  redisMemoryBytes: number;
  newJobs: NewJobSample[];
  /** What went wrong (a limit reached, a replica that died), in a few words each. */
  notes: string[];
}

export interface ScaleLimits {
  absorbMs: number;
  startMs: number;
}

/** What `--systems` names: HermesX, HermesX with budgets on every call (bench/budgets.ts), BullMQ. */
export type SystemName = 'hermesx' | 'hermesx-budget' | 'bullmq';

export interface System {
  /** Distinct per system measured: the results and the report say it. */
  name: SystemName;
  /** Which software it is: both HermesX systems are measured the same way. */
  kind: 'hermesx' | 'bullmq';
  label: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  replicas(): Replica[];
  /** Creates the jobs; resolves with the time from which every replica will fire them. */
  load(jobs: JobSpec[]): Promise<number>;
  unload(): Promise<void>;
  progress(sinceMs: number): Promise<Progress>;
  /** Runs whose nominal time is in [fromMs, toMs). */
  runs(fromMs: number, toMs: number): Promise<RunRecord[]>;
  /** Occurrences in flight on a replica (for the kill in W4). */
  inFlightOf(replicaId: string): Promise<string[]>;
  /** Whether these occurrences have been settled after their replica died (failed or re-run). */
  resolved(keys: string[], deadReplica: string): Promise<number>;
  /** SIGKILLs the last replica; resolves with its id. */
  killOne(): Promise<string>;
  /** Brings the replica count back up after killOne. */
  respawn(): Promise<void>;
  /** W3; the limits bound the wait for the notified jobs and for a cold start. */
  scale(jobs: JobSpec[], newJob: () => JobSpec, limits: ScaleLimits): Promise<ScaleResult>;
  /** Per-replica event-loop delay max (ms) since the previous call, when the system exposes it. */
  eventLoopMaxMs(): Promise<Record<string, number>>;
  /**
   * Runs so far per upper bound (seconds) of how long each held a model slot, summed over the
   * replicas (a Prometheus histogram's cumulative buckets); absent where the system has none.
   */
  slotHeldBuckets?(): Promise<Map<number, number>>;
}
