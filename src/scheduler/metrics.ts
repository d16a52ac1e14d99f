import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { ERROR_KINDS } from '../domain/vocabulary.js';

export interface SchedulerMetrics {
  runs: Counter<'status' | 'error_kind'>;
  runDuration: Histogram<'status'>;
  modelSlot: Histogram;
  fireLag: Histogram;
  lockSkips: Counter;
  overlapSkips: Counter;
  capacityDeferrals: Counter;
  capDeferrals: Counter;
  steals: Counter;
  missed: Counter;
  caughtUp: Counter;
  jobsLoaded: Gauge;
  inFlight: Gauge;
  waiting: Gauge;
  syncDuration: Histogram;
  recovered: Counter<'reason'>;
}

const RECOVERY_REASONS = ['unrecorded', 'pod_gone', 'pod_restarted', 'adopted', 'stale'];

/** The scheduler's Prometheus metrics, registered on the given registry. */
export function createSchedulerMetrics(registry: Registry): SchedulerMetrics {
  const registers = [registry];
  const metrics: SchedulerMetrics = {
    runs: new Counter({
      name: 'hermesx_scheduler_runs_total',
      help: 'Runs executed by this pod, by final status and, for failures, error kind',
      labelNames: ['status', 'error_kind'],
      registers,
    }),
    runDuration: new Histogram({
      name: 'hermesx_scheduler_run_duration_seconds',
      help: "Claim to the agent's answer, per run, by final status",
      labelNames: ['status'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
      registers,
    }),
    modelSlot: new Histogram({
      name: 'hermesx_scheduler_model_slot_seconds',
      help: "How long a run held one of the pod's model slots: from the slot to the agent's answer",
      buckets: [
        0.01, 0.02, 0.03, 0.04, 0.05, 0.055, 0.06, 0.065, 0.07, 0.075, 0.08, 0.09, 0.1, 0.125, 0.15,
        0.2, 0.25, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 10, 30, 60, 120, 300, 600,
      ],
      registers,
    }),
    fireLag: new Histogram({
      name: 'hermesx_scheduler_fire_lag_seconds',
      help: 'Start of a run minus its nominal scheduled time',
      // Up to the default catch-up window (1 h): a caught-up run is that late.
      buckets: [
        0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600,
      ],
      registers,
    }),
    lockSkips: new Counter({
      name: 'hermesx_scheduler_lock_skips_total',
      help: 'Occurrences skipped because another pod held the lock or had already run them',
      registers,
    }),
    overlapSkips: new Counter({
      name: 'hermesx_scheduler_overlap_skips_total',
      help: 'Occurrences skipped because the previous run of the job was still running',
      registers,
    }),
    capacityDeferrals: new Counter({
      name: 'hermesx_scheduler_capacity_deferrals_total',
      help: 'Occurrences this pod set aside because it was at SCHEDULER_MAX_CONCURRENT_RUNS',
      registers,
    }),
    capDeferrals: new Counter({
      name: 'hermesx_scheduler_cap_deferrals_total',
      help: 'Occurrences held back because their tenant was at max_concurrent_runs (they wait, then run)',
      registers,
    }),
    steals: new Counter({
      name: 'hermesx_scheduler_steals_total',
      help: 'Occurrences whose lock this pod took for an owner that had not taken it (dead, stopping or full)',
      registers,
    }),
    missed: new Counter({
      name: 'hermesx_scheduler_missed_occurrences_total',
      help: 'Missed occurrences skipped (older than the one caught up, or never claimed in time)',
      registers,
    }),
    caughtUp: new Counter({
      name: 'hermesx_scheduler_caught_up_total',
      help: 'Missed occurrences run late, once, when service returned',
      registers,
    }),
    jobsLoaded: new Gauge({
      name: 'hermesx_scheduler_jobs_loaded',
      help: 'Jobs this pod holds: those whose next occurrence is within the look-ahead',
      registers,
    }),
    inFlight: new Gauge({
      name: 'hermesx_scheduler_runs_in_flight',
      help: 'Runs executing on this pod now',
      registers,
    }),
    waiting: new Gauge({
      name: 'hermesx_scheduler_waiting_occurrences',
      help: "Occurrences set aside on this pod, waiting for a free slot or their tenant's cap",
      registers,
    }),
    syncDuration: new Histogram({
      name: 'hermesx_scheduler_sync_duration_seconds',
      help: 'Time to read the due window from PostgreSQL and apply it',
      buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10],
      registers,
    }),
    recovered: new Counter({
      name: 'hermesx_scheduler_recovered_runs_total',
      help: 'Runs recovered from pods that will not finish them: failed, or adopted (not started), by reason',
      labelNames: ['reason'],
      registers,
    }),
  };
  // Every known series exists from the start, at 0, so rates and alerts see it before its first event.
  metrics.runs.inc({ status: 'success', error_kind: 'none' }, 0);
  for (const kind of ERROR_KINDS) metrics.runs.inc({ status: 'failed', error_kind: kind }, 0);
  for (const reason of RECOVERY_REASONS) metrics.recovered.inc({ reason }, 0);
  return metrics;
}
