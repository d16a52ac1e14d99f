// W5 arithmetic: from the runs PostgreSQL recorded and the model server's tallies to the figures
// of the report (small tenants' lags, the drain of each burst, outcomes grouped by failure).
import {
  account,
  expectedOccurrences,
  lagOf,
  occurrenceKey,
  type Accounting,
  type CallTally,
  type JobSpec,
  type Lag,
} from './analysis.js';
import type { Usage } from './usage.js';

export type ContentionName = 'w5' | 'w5t';

export interface ContentionSettings {
  /** Jobs of the big tenant, all due at the burst second. */
  bigJobs: number;
  /** Tenants with one job each, due at the same second. */
  smallTenants: number;
  latencyMs: number;
  /** W5t: share of model requests answered 429 (W5: none). */
  throttleRate: number;
  /** Consecutive minutes measured (one burst each). */
  bursts: number;
  seed: number;
  /** Run slots of the whole cluster: replicas × SCHEDULER_MAX_CONCURRENT_RUNS. */
  slots: number;
  /** Latency of the model server outside this workload, restored afterwards. */
  baseLatencyMs: number;
}

export interface ContentionRun {
  jobId: string;
  tenantId: string;
  nominalMs: number;
  startedMs: number;
  finishedMs: number | null;
  status: string;
  error: string | null;
  errorKind: string | null;
  attempts: number | null;
  podId: string;
}

export interface SmallTenantLag {
  tenantId: string;
  nominalMs: number;
  /** cron_job_runs.started_at − nominal (null: no run). */
  runLagMs: number | null;
  /** The model server's first request of the occurrence − nominal (null: none arrived). */
  callLagMs: number | null;
}

export interface Drain {
  nominalMs: number;
  runs: number;
  /** Nominal second → the burst's last run started / finished (ms). */
  lastStartedMs: number;
  lastFinishedMs: number;
  /** Runs of the burst not finished when the harness stopped waiting. */
  unfinished: number;
}

export interface OutcomeGroup {
  status: string;
  errorKind: string | null;
  error: string | null;
  count: number;
}

export interface ContentionResult {
  workload: ContentionName;
  system: 'hermesx';
  settings: Omit<ContentionSettings, 'baseLatencyMs'>;
  nominalMs: number[];
  /** jobs × latency / slots: no scheduler can finish a burst sooner (ms). */
  slotBoundMs: number;
  acc: Accounting;
  small: { perTenant: SmallTenantLag[]; runLag: Lag; callLag: Lag };
  big: { runLag: Lag; callLag: Lag };
  drains: Drain[];
  /** Runs each pod started, and its last start after the nominal second (ms). */
  perPod: Record<string, { runs: number; lastStartedMs: number }>;
  outcomes: OutcomeGroup[];
  /** Which optional columns cron_job_runs had (error_kind, attempts). */
  columns: { errorKind: boolean; attempts: string | null };
  attempts: Lag | null;
  model: { answered: number; throttled: number; throttledOccurrences: number };
  usage: Usage;
  /** The replicas' counters that moved during the measurement (sum over pods). */
  counters: [string, number][];
  events: string[];
}

/** What the harness knew besides the runs and the calls. */
export interface ContentionContext {
  name: ContentionName;
  settings: ContentionSettings;
  jobs: readonly JobSpec[];
  nominalMs: number[];
  usage: Usage;
  columns: ContentionResult['columns'];
  counters: [string, number][];
  events: string[];
}

export function summarise(
  c: ContentionContext,
  runs: readonly ContentionRun[],
  calls: readonly CallTally[],
): ContentionResult {
  const { name, settings: s, jobs, nominalMs } = c;
  const firstMs = nominalMs[0] as number;
  const toMs = (nominalMs.at(-1) as number) + 1;
  const acc = account(
    expectedOccurrences(jobs, firstMs, toMs),
    runs.map((r) => ({
      jobId: r.jobId,
      nominalMs: r.nominalMs,
      lagMs: r.startedMs - r.nominalMs,
      replica: r.podId,
      failed: r.status === 'failed',
    })),
    calls,
  );
  const firstCall = new Map(calls.map(([job, ms, , first]) => [occurrenceKey(job, ms), first]));
  const runOf = new Map(runs.map((r) => [occurrenceKey(r.jobId, r.nominalMs), r]));
  const bigTenant = jobs[0]?.tenantId;
  const perTenant: SmallTenantLag[] = [];
  const bigRun: number[] = [];
  const bigCall: number[] = [];
  for (const job of jobs) {
    for (const nominal of nominalMs) {
      const key = occurrenceKey(job.id, nominal);
      const run = runOf.get(key);
      const call = firstCall.get(key);
      const runLagMs = run ? run.startedMs - nominal : null;
      const callLagMs = call !== undefined ? call - nominal : null;
      if (job.tenantId === bigTenant) {
        if (runLagMs !== null) bigRun.push(runLagMs);
        if (callLagMs !== null) bigCall.push(callLagMs);
      } else {
        perTenant.push({ tenantId: job.tenantId, nominalMs: nominal, runLagMs, callLagMs });
      }
    }
  }
  const known = (xs: (number | null)[]) => xs.filter((x): x is number => x !== null);
  const drains = nominalMs.map((nominal): Drain => {
    const burst = runs.filter((r) => r.nominalMs === nominal);
    const finished = known(burst.map((r) => r.finishedMs));
    return {
      nominalMs: nominal,
      runs: burst.length,
      lastStartedMs: Math.max(...burst.map((r) => r.startedMs)) - nominal,
      lastFinishedMs: Math.max(...finished) - nominal,
      unfinished: burst.length - finished.length,
    };
  });
  const groups = new Map<string, OutcomeGroup>();
  for (const r of runs) {
    const error = r.error === null ? null : r.error.slice(0, 160);
    const key = JSON.stringify([r.status, r.errorKind, error]);
    const group = groups.get(key) ?? { status: r.status, errorKind: r.errorKind, error, count: 0 };
    group.count += 1;
    groups.set(key, group);
  }
  const attempts = known(runs.map((r) => r.attempts));
  const perPod: ContentionResult['perPod'] = {};
  for (const r of runs) {
    const pod = (perPod[r.podId] ??= { runs: 0, lastStartedMs: -Infinity });
    pod.runs += 1;
    pod.lastStartedMs = Math.max(pod.lastStartedMs, r.startedMs - r.nominalMs);
  }
  const { bigJobs, smallTenants, latencyMs, throttleRate, bursts, seed, slots } = s;
  return {
    workload: name,
    system: 'hermesx',
    settings: { bigJobs, smallTenants, latencyMs, throttleRate, bursts, seed, slots },
    nominalMs,
    slotBoundMs: slotBound(s, jobs.length),
    acc,
    small: {
      perTenant,
      runLag: lagOf(known(perTenant.map((t) => t.runLagMs))),
      callLag: lagOf(known(perTenant.map((t) => t.callLagMs))),
    },
    big: { runLag: lagOf(bigRun), callLag: lagOf(bigCall) },
    drains,
    perPod,
    outcomes: [...groups.values()].sort((a, b) => b.count - a.count),
    columns: c.columns,
    attempts: attempts.length > 0 ? lagOf(attempts) : null,
    model: {
      answered: calls.reduce((n, c) => n + c[2], 0),
      throttled: calls.reduce((n, c) => n + (c[4] ?? 0), 0),
      throttledOccurrences: calls.filter((c) => (c[4] ?? 0) > 0).length,
    },
    usage: c.usage,
    counters: c.counters,
    events: c.events,
  };
}

/** jobs × latency over the cluster's slots: no scheduler finishes a burst sooner (ms). */
export const slotBound = (s: Pick<ContentionSettings, 'latencyMs' | 'slots'>, jobs: number) =>
  (jobs * s.latencyMs) / s.slots;
