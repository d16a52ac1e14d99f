// The targets, each with what was measured and whether it was met.
import { contentionVerdicts } from './contention-report.js';
import { f1, f2, MB, perReplica } from './format.js';
import type { BenchResults } from './report.js';

export interface Verdict {
  target: string;
  measured: string;
  met: boolean | null;
}

export function verdicts(r: BenchResults): Verdict[] {
  const w = (name: string, system: string) =>
    r.windows.find((x) => x.workload === name && x.system === system);
  const s = (system: string) => r.scale.find((x) => x.system === system);
  const out: Verdict[] = [];
  const o1 = w('w1', 'hermesx');
  const b1 = w('w1', 'bullmq');
  const o2 = w('w2', 'hermesx');
  const b2 = w('w2', 'bullmq');
  if (o1)
    out.push({
      target: 'W1 p99 fire lag ≤ 100 ms',
      measured: `${f1(o1.acc.lag.p99)} ms`,
      met: o1.acc.lag.p99 <= 100,
    });
  if (o2?.burst) {
    const n = o2.acc.expected;
    out.push({
      target: `W2 all ${n} started within 2 s of the nominal second`,
      measured: `${o2.burst.within2s} of ${n} within 2 s; last at ${f1(o2.burst.allStartedMs)} ms`,
      met: o2.burst.within2s === n && o2.acc.runMisses === 0,
    });
  }
  const o3 = s('hermesx');
  if (o3) {
    const syncs = Object.values(o3.result.syncSeconds);
    out.push({
      target: 'W3 sync ≤ 2 s per replica',
      measured:
        syncs.length > 0
          ? syncs.map((x) => `${f2(x)} s`).join(' / ')
          : `not measured: ${o3.result.notes.join('; ')}`,
      met: syncs.length > 0 && syncs.every((x) => x <= 2),
    });
    const rss = { ...o3.result.rssBytes };
    for (const [id, peak] of Object.entries(o3.peakRss)) rss[id] = Math.max(rss[id] ?? 0, peak);
    out.push({
      target: 'W3 RSS ≤ 300 MB per replica (peak)',
      measured:
        perReplica(rss, (n) => `${(n / MB).toFixed(0)} MB`) +
        (syncs.length === 0 ? ' (the replicas never held every job: not a verdict)' : ''),
      met: syncs.length > 0 && Object.values(rss).every((x) => x <= 300 * MB),
    });
    const late = o3.result.newJobs.filter((j) => !j.onTime).length;
    out.push({
      target: 'W3 a new job fires at its first occurrence',
      measured:
        o3.result.newJobs
          .map((j) => `${j.onTime ? 'first second' : 'NOT first second'}, lag ${f1(j.lagMs)} ms`)
          .join('; ') || 'not measured (no replica running)',
      met: o3.result.newJobs.length > 0 && late === 0,
    });
  }
  const ours = r.windows.filter((x) => x.system === 'hermesx');
  if (ours.length > 0) {
    const bad = ours.map(
      (x) =>
        `${x.workload}: dup ${x.acc.runDuplicates}/${x.acc.callDuplicates}, miss ${x.acc.runMisses}/${x.acc.callMisses}`,
    );
    out.push({
      target: 'zero duplicates and zero misses (runs / model calls)',
      measured: bad.join('; '),
      met: ours.every(
        (x) =>
          x.acc.runDuplicates + x.acc.callDuplicates + x.acc.runMisses + x.acc.callMisses === 0,
      ),
    });
  }
  if (o1 && b1)
    out.push({
      target: 'W1 p99 lower than BullMQ',
      measured: `${f1(o1.acc.lag.p99)} vs ${f1(b1.acc.lag.p99)} ms`,
      met: o1.acc.lag.p99 < b1.acc.lag.p99,
    });
  if (o2 && b2)
    out.push({
      target: 'W2 p99 lower than BullMQ',
      measured: `${f1(o2.acc.lag.p99)} vs ${f1(b2.acc.lag.p99)} ms`,
      met: o2.acc.lag.p99 < b2.acc.lag.p99,
    });
  out.push(...contentionVerdicts(r.contention));
  return out;
}
