// The results as Markdown (tables per workload: HermesX, BullMQ, ratio) and the target verdicts.
import type { ContentionResult } from './contention-summary.js';
import { renderContention } from './contention-report.js';
import { f1, f2, MB, perReplica, ratio, sum } from './format.js';
import { outsideShare } from './usage.js';
import { verdicts } from './verdicts.js';
import type { SystemName } from './system.js';
import type { ScaleOutcome, WindowResult } from './workloads.js';

/** How the report and the chart name each system. */
export const SYSTEM_LABELS: Record<SystemName, string> = {
  hermesx: 'HermesX',
  'hermesx-budget': 'HermesX (budgets on)',
  bullmq: 'BullMQ',
};

export interface BenchMeta {
  date: string;
  command: string;
  machine: {
    nproc: number;
    memoryGb: number;
    cpu: string;
    node: string;
    redis: string;
    loadBefore: number[];
    loadAfter: number[];
  };
  settings: {
    jobs: number;
    scaleJobs: number;
    durationS: number;
    latencyMs: number;
    replicas: number;
    concurrency: number;
    burstSecond: number;
  };
  pgStatements: boolean;
  /** sha256 of src/ and migrations/ (first 12 hex digits). */
  source: string;
  elapsedS: number;
}

export interface BenchResults {
  meta: BenchMeta;
  windows: WindowResult[];
  scale: ScaleOutcome[];
  /** W5 / W5t (HermesX only). */
  contention: ContentionResult[];
  failures: { system: string; workload: string; error: string }[];
}

type Row = [string, string, string, string];

const outside = (w: WindowResult, nproc: number) => outsideShare(w.usage, nproc);

function windowRows(
  ours: WindowResult | undefined,
  bull: WindowResult | undefined,
  nproc: number,
): Row[] {
  const rows: Row[] = [];
  const add = (
    label: string,
    get: (w: WindowResult) => number | null,
    fmt = f1,
    withRatio = true,
  ) =>
    rows.push([
      label,
      ours ? fmt(get(ours)) : '—',
      bull ? fmt(get(bull)) : '—',
      withRatio && ours && bull ? ratio(get(ours), get(bull)) : '',
    ]);
  const text = (label: string, get: (w: WindowResult) => string) =>
    rows.push([label, ours ? get(ours) : '—', bull ? get(bull) : '—', '']);
  const execs = (w: WindowResult) => Math.max(1, w.acc.runs);
  add('occurrences expected', (w) => w.acc.expected, String, false);
  add('runs recorded', (w) => w.acc.runs, String, false);
  add('model calls', (w) => w.acc.calls, String, false);
  text(
    'duplicates (runs / model calls)',
    (w) => `${w.acc.runDuplicates} / ${w.acc.callDuplicates}`,
  );
  text('misses (runs / model calls)', (w) => `${w.acc.runMisses} / ${w.acc.callMisses}`);
  text('runs recorded failed', (w) => {
    const kinds = Object.entries(w.acc.failedKinds ?? {}).map(([k, n]) => `${k} ${n}`);
    return kinds.length === 0
      ? String(w.acc.failedRuns)
      : `${w.acc.failedRuns} (${kinds.join(', ')})`;
  });
  add('… of which without a model call', (w) => w.acc.failedWithoutCall, String, false);
  add('fire lag p50 (ms)', (w) => w.acc.lag.p50);
  add('fire lag p99 (ms)', (w) => w.acc.lag.p99);
  add('fire lag max (ms)', (w) => w.acc.lag.max);
  add('nominal → model call p99 (ms)', (w) => w.callLag.p99);
  text('run start → model call p50 / p99 (ms)', (w) =>
    w.breakdown ? `${f1(w.breakdown.startToCall.p50)} / ${f1(w.breakdown.startToCall.p99)}` : 'n/a',
  );
  text('model call → finish recorded p50 / p99 (ms)', (w) =>
    w.breakdown
      ? `${f1(w.breakdown.callToFinish.p50)} / ${f1(w.breakdown.callToFinish.p99)}`
      : 'n/a',
  );
  text('run start → finish p50 / p99 (ms)', (w) =>
    w.breakdown ? `${f1(w.breakdown.held.p50)} / ${f1(w.breakdown.held.p99)}` : 'n/a',
  );
  // HermesX: its model-slot histogram; BullMQ: the processor's start to its return.
  text('slot held p50 / p99 (ms)', (w) => {
    const held = w.modelSlot ?? w.breakdown?.held;
    return held ? `${f1(held.p50)} / ${f1(held.p99)}` : 'n/a';
  });
  // W2: runs over the time it took to start them all; otherwise over the window.
  add(
    'executions per second',
    (w) => w.acc.runs / ((w.burst ? w.burst.allStartedMs : w.toMs - w.fromMs) / 1000 || 1),
  );
  text('CPU s per replica', (w) => perReplica(w.usage.cpu, f1));
  add('CPU ms per execution (replicas)', (w) => (sum(w.usage.cpu) * 1000) / execs(w));
  text(
    'CPU s PostgreSQL / Redis / model server',
    (w) => `${f1(w.usage.postgresCpu)} / ${f1(w.usage.redisCpu)} / ${f1(w.usage.modelServerCpu)}`,
  );
  add('machine busy (% of all cores)', (w) => w.usage.machineBusy * 100);
  add(
    '… of which outside the benchmark (% of all cores)',
    (w) => outside(w, nproc) * 100,
    f1,
    false,
  );
  text('peak RSS per replica (MB)', (w) => perReplica(w.usage.peakRss, (n) => (n / MB).toFixed(0)));
  add(
    'DB statements per execution',
    (w) => (w.usage.pgStatements === null ? null : w.usage.pgStatements / execs(w)),
    f2,
    false,
  );
  add(
    'DB commits (xact_commit) per execution',
    (w) => (w.usage.xactCommit === null ? null : w.usage.xactCommit / execs(w)),
    f2,
    false,
  );
  add(
    'Redis commands per execution (incl. inside scripts)',
    (w) => w.usage.redisCommands / execs(w),
    f2,
  );
  add('Redis script calls per execution', (w) => w.usage.redisScripts / execs(w), f2);
  text('event-loop delay max per replica (ms)', (w) =>
    Object.keys(w.eventLoopMaxMs).length === 0
      ? 'n/a'
      : perReplica(w.eventLoopMaxMs, (n) => n.toFixed(0)),
  );
  return rows;
}

function table(rows: Row[], heads = ['HermesX', 'BullMQ', 'ours/BullMQ']): string {
  const head = `| | ${heads.join(' | ')} |\n|---|---|---|---|`;
  return [head, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

/**
 * HermesX with budgets on every call against HermesX without, in the same run (the
 * `hermesx-budget` system): what the reservation and the settle of each call cost.
 */
function budgetSection(r: BenchResults, name: string, nproc: number): string[] {
  const on = r.windows.find((w) => w.workload === name && w.system === 'hermesx-budget');
  if (!on) return [];
  const off = r.windows.find((w) => w.workload === name && w.system === 'hermesx');
  const rows = windowRows(on, off, nproc);
  if (on.burst || off?.burst) {
    rows.splice(9, 0, [
      'all started by (ms after nominal)',
      on.burst ? f1(on.burst.allStartedMs) : '—',
      off?.burst ? f1(off.burst.allStartedMs) : '—',
      ratio(on.burst?.allStartedMs, off?.burst?.allStartedMs),
    ]);
  }
  return [
    '### HermesX with budgets on and off',
    '',
    'Budgets on: the model priced, a monthly budget on every tenant and a daily budget and a ' +
      'token cap on every job, none ever reached, so each model call is reserved and settled.',
    '',
    table(rows, ['budgets on', 'budgets off', 'on/off']),
    '',
    ...details(on, SYSTEM_LABELS['hermesx-budget']),
    '',
  ];
}

/** ", N rows" when the statement's rows are known (results written before they were counted lack them). */
const rowsOf = (s: { rows?: number }) => (s.rows === undefined ? '' : `, ${s.rows} rows`);

function details(w: WindowResult | undefined, label: string): string[] {
  if (!w) return [];
  const out: string[] = [];
  if (w.usage.pgTop.length > 0) {
    out.push(
      `${label} statements (pg_stat_statements: calls, mean ms, rows): ` +
        w.usage.pgTop
          .map((s) => `\`${s.query}\` ${s.calls} (${s.meanMs.toFixed(2)} ms${rowsOf(s)})`)
          .join('; '),
    );
  }
  out.push(`${label} Redis commands: ` + w.usage.redisTop.map(([c, n]) => `${c} ${n}`).join(', '));
  for (const event of w.events) out.push(`${label}: ${event}`);
  return out.map((line) => `- ${line}`);
}

const TITLES: Record<string, string> = {
  w1: 'W1 steady: every job once a minute, spread over the 60 seconds',
  w2: 'W2 burst: every job due at the same second',
  w4: 'W4 faults: W1 while one replica is SIGKILLed and Redis restarted',
};

export function renderMarkdown(r: BenchResults, chartFile: string | undefined): string {
  const { meta } = r;
  const m = meta.machine;
  const st = meta.settings;
  const lines: string[] = [
    '# Benchmark results',
    '',
    `Generated by \`npm run bench\` on ${meta.date} in ${meta.elapsedS.toFixed(0)} s. Do not edit: the harness rewrites this file.`,
    '',
    `- Machine: ${m.nproc} cores (${m.cpu}), ${m.memoryGb.toFixed(1)} GB memory, Node ${m.node}, ${m.redis}, PostgreSQL 16 (embedded)`,
    `- Command: \`${meta.command}\`; code measured: src/ + migrations/ fingerprint \`${meta.source}\``,
    `- Settings: ${st.jobs} jobs (W3: ${st.scaleJobs}), window ${st.durationS} s, model latency ${st.latencyMs} ms, ` +
      `${st.replicas} replicas / workers × ${st.concurrency} concurrent runs, W2 burst at second ${st.burstSecond < 0 ? '(auto)' : st.burstSecond}`,
    `- Load average (1/5/15 min) before: ${m.loadBefore.map((x) => x.toFixed(2)).join(' / ')}, after: ${m.loadAfter.map((x) => x.toFixed(2)).join(' / ')}` +
      ' (the machine may be shared; see "outside the benchmark" below)',
    `- DB statements are pg_stat_statements calls of the app role (top-level statements); ` +
      `${meta.pgStatements ? 'it was enabled' : 'it was NOT available, only xact_commit deltas are shown'}. ` +
      "xact_commit also counts the harness's own progress queries.",
    '',
    '## Targets',
    '',
    '| target | measured | met |',
    '|---|---|---|',
    ...verdicts(r).map(
      (v) =>
        `| ${v.target} | ${v.measured} | ${v.met === null ? 'n/a' : v.met ? 'yes' : '**no**'} |`,
    ),
    '',
  ];
  for (const name of ['w1', 'w2', 'w4']) {
    const ours = r.windows.find((w) => w.workload === name && w.system === 'hermesx');
    const bull = r.windows.find((w) => w.workload === name && w.system === 'bullmq');
    const budgeted = r.windows.find((w) => w.workload === name && w.system === 'hermesx-budget');
    if (!ours && !bull && !budgeted) continue;
    lines.push(`## ${TITLES[name]}`, '');
    if (name === 'w2') {
      const n = (ours ?? bull ?? budgeted)?.acc.expected ?? 0;
      const bound = (n / (st.replicas * st.concurrency)) * st.latencyMs;
      lines.push(
        `Lower bound: ${n} runs over ${st.replicas * st.concurrency} slots with a ${st.latencyMs} ms model cannot all start ` +
          `sooner than about ${(bound / 1000).toFixed(2)} s after the nominal second.`,
        '',
      );
      const rows = windowRows(ours, bull, m.nproc);
      rows.splice(9, 0, [
        'all started by (ms after nominal)',
        ours?.burst ? f1(ours.burst.allStartedMs) : '—',
        bull?.burst ? f1(bull.burst.allStartedMs) : '—',
        ratio(ours?.burst?.allStartedMs, bull?.burst?.allStartedMs),
      ]);
      lines.push(table(rows), '');
    } else {
      lines.push(table(windowRows(ours, bull, m.nproc)), '');
    }
    lines.push(...details(ours, 'HermesX'), ...details(bull, 'BullMQ'), '');
    lines.push(...budgetSection(r, name, m.nproc));
  }
  const o3 = r.scale.find((s) => s.system === 'hermesx');
  const b3 = r.scale.find((s) => s.system === 'bullmq');
  if (o3 || b3) {
    lines.push(
      `## W3 scale: ${(o3 ?? b3)?.result.jobs} enabled jobs loaded (hourly, none due during the phase)`,
      '',
    );
    const row = (label: string, get: (s: ScaleOutcome) => string): Row => [
      label,
      o3 ? get(o3) : '—',
      b3 ? get(b3) : '—',
      '',
    ];
    const rows: Row[] = [
      row('create the jobs (s)', (s) => f1(s.result.createSeconds)),
      row('every replica holds them, via notifications (s)', (s) => f1(s.result.absorbSeconds)),
      row('full sync per replica at start (s)', (s) => perReplica(s.result.syncSeconds, f2)),
      row('spawn → scheduling per replica (s)', (s) => perReplica(s.result.startSeconds, f1)),
      row('RSS per replica after load (MB)', (s) =>
        perReplica(s.result.rssBytes, (n) => (n / MB).toFixed(0)),
      ),
      row('peak RSS per replica in the phase (MB)', (s) =>
        perReplica(s.peakRss, (n) => (n / MB).toFixed(0)),
      ),
      row('Redis used_memory (MB)', (s) => (s.result.redisMemoryBytes / MB).toFixed(1)),
      row('new every-second job: first run at the first whole second after creation', (s) =>
        s.result.newJobs.map((j) => (j.onTime ? 'yes' : 'no')).join(' / '),
      ),
      row('new job: first run lag (ms)', (s) =>
        s.result.newJobs.map((j) => f1(j.lagMs)).join(' / '),
      ),
      row('what went wrong', (s) => s.result.notes.join('; ') || 'nothing'),
    ];
    lines.push(table(rows), '');
    if (o3 && o3.statements.length > 0) {
      lines.push(
        '- HermesX statements in the phase (calls, mean ms): ' +
          o3.statements
            .map((s) => `\`${s.query}\` ${s.calls} (${s.meanMs.toFixed(1)} ms)`)
            .join('; '),
        '',
      );
    }
  }
  lines.push(...renderContention(r.contention, m.nproc));
  if (r.failures.length > 0) {
    lines.push('## Workloads that failed', '');
    for (const f of r.failures) lines.push(`- ${f.system} ${f.workload}: ${f.error}`);
    lines.push('');
  }
  if (chartFile) lines.push('## Fire lag', '', `![fire lag CDF](${chartFile})`, '');
  return lines.join('\n');
}
