import type { Logger } from '../log.js';
import type { SchedulerEvents } from './events.js';
import type { SchedulerMetrics } from './metrics.js';
import type { AgentRunner, JobStore, LockStore, ResultStore } from './ports.js';
import type { Clock } from '../services/clock.js';

export interface SchedulerSettings {
  podId: string;
  pollIntervalMs: number;
  execTimeoutMs: number;
  lockTtlMs: number;
  /** Model slots: runs whose agent is called at once. */
  maxConcurrentRuns: number;
  /**
   * Occurrences that take their lock and claim while every model slot is busy, so a slot that
   * frees goes to a claimed run at once (SCHEDULER_CLAIM_AHEAD; absent: none).
   */
  claimAheadRuns?: number;
  catchupWindowMs: number;
  /** How often this pod proves it is alive, and how long the proof lasts. */
  livenessIntervalMs: number;
  livenessTtlMs: number;
  /** How often runs of dead pods are looked for. */
  recoveryIntervalMs: number;
  /** How far ahead the due window reaches (default 5 s). */
  lookaheadMs?: number;
  /** How often the due window is read (default 1 s). */
  windowReadIntervalMs?: number;
  /** How often the planning sweep looks for jobs without next_run_at (default 2 s). */
  planIntervalMs?: number;
  /** How often due queued runs (retries, backfills) are looked for (default 1 s). */
  queuedIntervalMs?: number;
  /** RUN_RESULT_MAX_BYTES: a longer answer is cut there (default 1 MiB). */
  runResultMaxBytes?: number;
}

export const DEFAULT_LOOKAHEAD_MS = 5000;
export const DEFAULT_WINDOW_READ_INTERVAL_MS = 1000;
export const DEFAULT_PLAN_INTERVAL_MS = 2000;
export const DEFAULT_QUEUED_INTERVAL_MS = 1000;

/** What a pod's scheduler is given: the outside world, its clock, and where it reports. */
export interface SchedulerDeps {
  store: JobStore;
  locks: LockStore;
  runner: AgentRunner;
  clock: Clock;
  log: Logger;
  metrics: SchedulerMetrics;
  settings: SchedulerSettings;
  /** Where the scheduler announces what happened to occurrences (a fresh emitter if omitted). */
  events?: SchedulerEvents;
  /** Holds answers over 8 KiB (src/storage/run-results.ts); without it they are cut to 8 KiB. */
  results?: ResultStore;
  /**
   * Told, at each read of the due window, the tenants with jobs due within the look-ahead, so the
   * runner can read what their runs need before they fire (src/agent/run-context.ts).
   */
  prepareTenants?: (tenantIds: readonly string[]) => void;
  /**
   * Told when the planning sweep starts planning batch after batch (an import, a bulk re-plan)
   * and when it has caught up: the process bounds its heap's growth meanwhile (src/heap-growth.ts).
   */
  onBulkPlanning?: (underway: boolean) => void;
}
