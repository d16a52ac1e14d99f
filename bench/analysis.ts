// Pure arithmetic of the benchmark: which occurrences were due, which ran, which reached the
// model, duplicates, misses and fire-lag quantiles.

export interface JobSpec {
  id: string;
  tenantId: string;
  /** 6-field cron with seconds; the workloads only use "<second> <minute> * * * *" shapes. */
  schedule: string;
  prompt: string;
}

/** One run as its system recorded it: which occurrence, when it started, where. */
export interface RunRecord {
  jobId: string;
  nominalMs: number;
  lagMs: number;
  replica: string;
  failed?: boolean;
  /** Why it failed (HermesX's error_kind), when the system says. */
  errorKind?: string;
  /** How long the run held its slot: start to recorded finish (ms), when known. */
  heldMs?: number;
}

/** Where a run's time went, from its start, its first model call and its recorded finish. */
export interface Breakdown {
  startToCall: Lag;
  callToFinish: Lag;
  held: Lag;
}

export function breakdown(
  runs: readonly RunRecord[],
  calls: readonly CallTally[],
): Breakdown | undefined {
  const firstCall = new Map(calls.map(([jobId, ms, , first]) => [occurrenceKey(jobId, ms), first]));
  const startToCall: number[] = [];
  const callToFinish: number[] = [];
  const held: number[] = [];
  for (const run of runs) {
    if (run.heldMs === undefined || !Number.isFinite(run.heldMs)) continue;
    const startMs = run.nominalMs + run.lagMs;
    held.push(run.heldMs);
    const call = firstCall.get(occurrenceKey(run.jobId, run.nominalMs));
    if (call === undefined) continue;
    startToCall.push(call - startMs);
    callToFinish.push(startMs + run.heldMs - call);
  }
  if (held.length === 0) return undefined;
  return { startToCall: lagOf(startToCall), callToFinish: lagOf(callToFinish), held: lagOf(held) };
}

/**
 * [jobId, occurrenceMs, calls answered 200, first request ms, requests answered 429], from the
 * model server. Only answered calls count as calls (duplicates, misses): a 429 did no work.
 */
export type CallTally = [string, number, number, number, number?];

export const occurrenceKey = (jobId: string, ms: number) => `${jobId}|${ms}`;

/**
 * Occurrences due in [fromMs, toMs) for schedules "<s> * * * * *" (every minute at second s) or
 * "<s> <m>[,<m>…] * * * *" (hourly, at one or more minutes). Computed here, not by either
 * scheduler's cron library.
 */
export function expectedOccurrences(
  jobs: readonly JobSpec[],
  fromMs: number,
  toMs: number,
): Set<string> {
  const due = new Set<string>();
  for (const job of jobs) {
    const [sec, min = '*'] = job.schedule.split(' ');
    const second = Number(sec);
    const minutes = min === '*' ? [undefined] : min.split(',').map(Number);
    for (const minute of minutes) {
      const step = minute === undefined ? 60_000 : 3_600_000;
      const offset = second * 1000 + (minute ?? 0) * 60_000;
      let t = Math.ceil((fromMs - offset) / step) * step + offset;
      for (; t < toMs; t += step) due.add(occurrenceKey(job.id, t));
    }
  }
  return due;
}

export interface Lag {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] as number;
}

export function lagOf(values: readonly number[]): Lag {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    max: sorted.at(-1) ?? NaN,
  };
}

/**
 * p50 and p99 (ms) of what a histogram counted between two readings of its cumulative buckets
 * (upper bound in seconds → count), interpolated linearly within a bucket.
 */
export function histogramLag(
  before: ReadonlyMap<number, number>,
  after: ReadonlyMap<number, number>,
): Lag | undefined {
  const bounds = [...after.keys()].filter(Number.isFinite).sort((a, b) => a - b);
  const counts = bounds.map((le) => (after.get(le) ?? 0) - (before.get(le) ?? 0));
  const n = (after.get(Infinity) ?? 0) - (before.get(Infinity) ?? 0);
  if (n <= 0) return undefined;
  const at = (q: number) => {
    const rank = q * n;
    let lower = 0;
    let below = 0;
    for (const [i, le] of bounds.entries()) {
      const count = counts[i] ?? 0;
      if (count >= rank)
        return (lower + ((rank - below) / (count - below || 1)) * (le - lower)) * 1000;
      lower = le;
      below = count;
    }
    return NaN;
  };
  return { n, p50: at(0.5), p99: at(0.99), max: NaN };
}

export interface Accounting {
  expected: number;
  runs: number;
  failedRuns: number;
  /** Failed runs whose occurrence never reached the model (lost between claim and request). */
  failedWithoutCall: number;
  /** Failed runs by error kind ("unknown" where the system does not say). */
  failedKinds: Record<string, number>;
  calls: number;
  /** Occurrences run more than once (extra runs counted). */
  runDuplicates: number;
  /** Occurrences that reached the model more than once (extra calls counted). */
  callDuplicates: number;
  /** Due occurrences with no run at all / with no model call. */
  runMisses: number;
  callMisses: number;
  /** Runs in the window that were not due (e.g. a wrong nominal time). */
  unexpected: number;
  lag: Lag;
  /** Sorted lags in ms, for the chart. */
  lags: number[];
  perReplica: Record<string, number>;
}

export function account(
  due: Set<string>,
  runs: readonly RunRecord[],
  calls: readonly CallTally[],
): Accounting {
  const runCount = new Map<string, number>();
  const perReplica: Record<string, number> = {};
  const firstLag = new Map<string, number>();
  let unexpected = 0;
  let failedRuns = 0;
  const failedKinds: Record<string, number> = {};
  for (const run of runs) {
    const key = occurrenceKey(run.jobId, run.nominalMs);
    runCount.set(key, (runCount.get(key) ?? 0) + 1);
    perReplica[run.replica] = (perReplica[run.replica] ?? 0) + 1;
    if (!due.has(key)) unexpected += 1;
    if (run.failed) {
      failedRuns += 1;
      const kind = run.errorKind ?? 'unknown';
      failedKinds[kind] = (failedKinds[kind] ?? 0) + 1;
    }
    const seen = firstLag.get(key);
    if (seen === undefined || run.lagMs < seen) firstLag.set(key, run.lagMs);
  }
  const callCount = new Map<string, number>();
  for (const [jobId, ms, count] of calls)
    if (count > 0) callCount.set(occurrenceKey(jobId, ms), count);
  let runDuplicates = 0;
  for (const count of runCount.values()) runDuplicates += Math.max(0, count - 1);
  let callDuplicates = 0;
  let callTotal = 0;
  for (const count of callCount.values()) {
    callDuplicates += Math.max(0, count - 1);
    callTotal += count;
  }
  let failedWithoutCall = 0;
  for (const run of runs) {
    if (run.failed && !callCount.has(occurrenceKey(run.jobId, run.nominalMs)))
      failedWithoutCall += 1;
  }
  let runMisses = 0;
  let callMisses = 0;
  for (const key of due) {
    if (!runCount.has(key)) runMisses += 1;
    if (!callCount.has(key)) callMisses += 1;
  }
  // The lag of an occurrence is that of its first start (a re-run is a duplicate, not lag).
  const lags = [...firstLag.values()].sort((a, b) => a - b);
  return {
    expected: due.size,
    runs: runs.length,
    failedRuns,
    failedWithoutCall,
    failedKinds,
    calls: callTotal,
    runDuplicates,
    callDuplicates,
    runMisses,
    callMisses,
    unexpected,
    lag: lagOf(lags),
    lags,
    perReplica,
  };
}

export function ceilSecond(ms: number): number {
  return Math.ceil(ms / 1000) * 1000;
}

/** The next instant at second `second` of a minute that is at least minMs. */
export function nextSecondOfMinute(minMs: number, second: number): number {
  const offset = second * 1000;
  return Math.ceil((minMs - offset) / 60_000) * 60_000 + offset;
}
