// W5 / W5t in the report: one table (the two variants side by side), the small tenants' lags one
// by one, the runs' outcomes grouped by failure, and the issue's targets for the verdicts table.
import type { ContentionResult } from './contention-summary.js';
import { f1, perReplica } from './format.js';
import { outsideShare } from './usage.js';

const s1 = (ms: number | null | undefined) =>
  ms === null || ms === undefined || !Number.isFinite(ms) ? 'n/a' : (ms / 1000).toFixed(1);
const success = (r: ContentionResult) =>
  r.outcomes.filter((o) => o.status === 'success').reduce((n, o) => n + o.count, 0);
const label = (r: ContentionResult) => (r.workload === 'w5t' ? 'W5t' : 'W5');
/** With whole waves of `slots` runs: the last run cannot start sooner than this (ms). */
const waveBound = (r: ContentionResult) =>
  Math.floor((r.acc.expected / r.settings.bursts - 1) / r.settings.slots) * r.settings.latencyMs;
const worst = (r: ContentionResult, get: (d: ContentionResult['drains'][number]) => number) =>
  Math.max(...r.drains.map(get));

function rows(r: ContentionResult, nproc: number): [string, string][] {
  const statuses = new Map<string, number>();
  for (const o of r.outcomes) statuses.set(o.status, (statuses.get(o.status) ?? 0) + o.count);
  const drained = worst(r, (d) => d.lastFinishedMs);
  return [
    ['occurrences expected / runs recorded', `${r.acc.expected} / ${r.acc.runs}`],
    [
      'model: calls answered 200 / answers 429 (occurrences with a 429)',
      `${r.model.answered} / ${r.model.throttled} (${r.model.throttledOccurrences})`,
    ],
    ['duplicates (runs / model calls)', `${r.acc.runDuplicates} / ${r.acc.callDuplicates}`],
    ['misses (runs / model calls)', `${r.acc.runMisses} / ${r.acc.callMisses}`],
    ['runs by status', [...statuses].map(([status, n]) => `${status} ${n}`).join(', ') || 'none'],
    [
      'small tenants: start lag p50 / max (s, started_at − nominal)',
      `${s1(r.small.runLag.p50)} / ${s1(r.small.runLag.max)}`,
    ],
    [
      'small tenants: first model request p50 / max (s after nominal)',
      `${s1(r.small.callLag.p50)} / ${s1(r.small.callLag.max)}`,
    ],
    ['big tenant: start lag p50 / max (s)', `${s1(r.big.runLag.p50)} / ${s1(r.big.runLag.max)}`],
    ['drain: nominal → last run started (s)', r.drains.map((d) => s1(d.lastStartedMs)).join(' / ')],
    [
      'drain: nominal → last run finished (s)',
      r.drains.map((d) => s1(d.lastFinishedMs)).join(' / '),
    ],
    [
      'slot bound: jobs × latency / slots (s); last start / bound',
      `${s1(r.slotBoundMs)}; ${(worst(r, (d) => d.lastStartedMs) / r.slotBoundMs).toFixed(2)}×`,
    ],
    [
      'in whole waves: last start ≥ / last finish ≥ (s); last finish / its bound',
      `${s1(waveBound(r))} / ${s1(waveBound(r) + r.settings.latencyMs)}; ` +
        `${(drained / (waveBound(r) + r.settings.latencyMs)).toFixed(2)}×`,
    ],
    [
      'runs per pod (its last start, s)',
      Object.entries(r.perPod)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([, p]) => `${p.runs} (${s1(p.lastStartedMs)})`)
        .join(' / '),
    ],
    [
      'model attempts per run p50 / max',
      r.attempts
        ? `${r.attempts.p50} / ${r.attempts.max} (column ${r.columns.attempts})`
        : 'n/a (no attempts column)',
    ],
    ['CPU s per replica', perReplica(r.usage.cpu, f1)],
    [
      'machine busy / outside the benchmark (% of all cores)',
      `${f1(r.usage.machineBusy * 100)} / ${f1(outsideShare(r.usage, nproc) * 100)}`,
    ],
  ];
}

export function renderContention(results: ContentionResult[], nproc: number): string[] {
  if (results.length === 0) return [];
  const first = results[0] as ContentionResult;
  const s = first.settings;
  const throttled = results.find((r) => r.workload === 'w5t');
  const lines = [
    `## W5 contention: one tenant's backlog and ${s.smallTenants} small tenants, all due at the same second`,
    '',
    `${s.bigJobs} jobs of one tenant and ${s.smallTenants} tenants with one job each, all due at the same ` +
      `second (${s.bursts} burst${s.bursts > 1 ? 's, one a minute' : ''}); the model answers in ` +
      `${s.latencyMs} ms; ${s.slots} run slots in all. ` +
      (throttled
        ? `W5t: the same, with ${Math.round(throttled.settings.throttleRate * 100)} % of the model's ` +
          "requests answered 429 at once (`Retry-After: 1`, OpenAI's rate-limit body). "
        : '') +
      'Lags in seconds after the nominal second.',
    '',
    `| | ${results.map(label).join(' | ')} |`,
    `|---|${results.map(() => '---').join('|')}|`,
  ];
  const table = results.map((r) => rows(r, nproc));
  (table[0] ?? []).forEach(([label], i) =>
    lines.push(`| ${label} | ${table.map((t) => t[i]?.[1] ?? '').join(' | ')} |`),
  );
  lines.push('');
  for (const r of results) {
    const name = label(r);
    const lags = r.small.perTenant.map((t) => `${s1(t.runLagMs)} (${s1(t.callLagMs)})`).join(', ');
    lines.push(
      `- ${name} small tenants' start lags, one per job and burst (first model request): ${lags}`,
    );
    for (const o of r.outcomes) {
      const kind = o.errorKind ? ` \`${o.errorKind}\`` : '';
      lines.push(`- ${name}: ${o.count} ${o.status}${kind}${o.error ? `: ${o.error}` : ''}`);
    }
    if (r.counters.length > 0) {
      const moved = r.counters.map(([key, n]) => `\`${key.replace(/^hermesx_/, '')}\` ${n}`);
      lines.push(`- ${name} replicas' counters, summed over the pods: ${moved.join(', ')}`);
    }
    if (!r.columns.errorKind) lines.push(`- ${name}: cron_job_runs has no error_kind column`);
    for (const event of r.events) lines.push(`- ${name}: ${event}`);
  }
  lines.push('');
  return lines;
}

/** The issue's targets for W5 / W5t, in the shape of the report's verdicts. */
export function contentionVerdicts(
  results: ContentionResult[],
): { target: string; measured: string; met: boolean | null }[] {
  const out: { target: string; measured: string; met: boolean | null }[] = [];
  const w5 = results.find((r) => r.workload === 'w5');
  const w5t = results.find((r) => r.workload === 'w5t');
  if (w5) {
    const max = w5.small.runLag.max;
    out.push({
      target: "W5 every small tenant's job starts ≤ 1 s after its nominal time",
      measured: `p50 ${s1(w5.small.runLag.p50)} s, max ${s1(max)} s`,
      met: w5.small.runLag.n === w5.small.perTenant.length && max <= 1000,
    });
    const started = worst(w5, (d) => d.lastStartedMs);
    out.push({
      target: `W5 backlog drains within 10 % of the slot bound (${s1(w5.slotBoundMs)} s)`,
      measured:
        `last run started ${s1(started)} s, finished ` +
        `${s1(worst(w5, (d) => d.lastFinishedMs))} s after nominal`,
      met: started <= 1.1 * w5.slotBoundMs && w5.drains.every((d) => d.unfinished === 0),
    });
  }
  for (const r of [w5, w5t]) {
    if (!r) continue;
    const a = r.acc;
    out.push({
      target: `${label(r)} zero duplicates and zero misses (runs / model calls)`,
      measured: `dup ${a.runDuplicates}/${a.callDuplicates}, miss ${a.runMisses}/${a.callMisses}`,
      met: a.runDuplicates + a.callDuplicates + a.runMisses + a.callMisses === 0,
    });
  }
  if (w5t) {
    out.push({
      target: 'W5t every run success despite the 429s',
      measured: `${success(w5t)} of ${w5t.acc.expected} success`,
      met: success(w5t) === w5t.acc.expected,
    });
  }
  return out;
}
