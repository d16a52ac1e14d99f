// W5 contention (HermesX only): one big tenant's backlog and a few small tenants' jobs, all due at
// the same second, with a slow model; W5t is the same with a share of the model's answers 429.
// Measured per burst: each small tenant's start lag, the backlog's drain against the slot bound,
// duplicates and misses, and the runs' outcomes grouped by status, failure kind and error text.
import { createHash } from 'node:crypto';
import { expectedOccurrences, type CallTally, type JobSpec } from './analysis.js';
import { countFinished, optionalColumns, readRuns } from './contention-runs.js';
import { counterDeltas, sumCounters } from './counters.js';
import {
  slotBound,
  summarise,
  type ContentionName,
  type ContentionResult,
  type ContentionSettings,
} from './contention-summary.js';
import { Hermes } from './ours.js';
import type { System } from './system.js';
import { startUsage } from './usage.js';
import { modelCalls, resetModel, setModel } from './watch.js';
import type { WorkloadContext } from './workloads.js';

const PROMPT = 'Reply with OK.';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
/** From the choice of the burst second to the burst: room to create and load the jobs. */
const LEAD_MS = 9000;

/** A version-4 UUID derived from a seed and a label: the same jobs, in the same order, every run. */
export function seededUuid(seed: number, label: string): string {
  const h = createHash('sha256').update(`${seed}|${label}`).digest('hex');
  const variant = ((parseInt(h.charAt(16), 16) & 3) | 8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The burst's jobs: hourly at the given second and minutes, so each measured minute is one burst. */
export function contentionJobs(
  tenants: readonly string[],
  name: ContentionName,
  s: Pick<ContentionSettings, 'bigJobs' | 'smallTenants' | 'seed'>,
  firstNominalMs: number,
  bursts: number,
): JobSpec[] {
  if (tenants.length < s.smallTenants + 1) {
    throw new Error(`W5 needs ${s.smallTenants + 1} tenants, the benchmark has ${tenants.length}`);
  }
  const at = new Date(firstNominalMs);
  const minutes = Array.from({ length: bursts }, (_, i) => (at.getUTCMinutes() + i) % 60);
  const schedule = `${at.getUTCSeconds()} ${minutes.join(',')} * * * *`;
  const job = (tenantId: string, label: string): JobSpec => ({
    id: seededUuid(s.seed, `${name}|${label}`),
    tenantId,
    schedule,
    prompt: PROMPT,
  });
  return [
    ...Array.from({ length: s.bigJobs }, (_, i) => job(tenants[0] as string, `big|${i}`)),
    ...Array.from({ length: s.smallTenants }, (_, i) =>
      job(tenants[i + 1] as string, `small|${i}`),
    ),
  ];
}

export async function runContention(
  ctx: WorkloadContext,
  system: System,
  name: ContentionName,
  s: ContentionSettings,
): Promise<ContentionResult> {
  const db = ctx.sources(system).db;
  if (!db || system.name !== 'hermesx') throw new Error(`${name} measures HermesX only`);
  const tag = `${system.name} ${name}`;
  const throttleRate = name === 'w5t' ? s.throttleRate : 0;
  await setModel(ctx, { latencyMs: s.latencyMs, throttleRate, seed: s.seed });
  try {
    await resetModel(ctx);
    const firstMs = Math.ceil((Date.now() + LEAD_MS) / 1000) * 1000;
    const nominalMs = Array.from({ length: s.bursts }, (_, i) => firstMs + i * 60_000);
    const jobs = contentionJobs(ctx.tenants, name, s, firstMs, s.bursts);
    const t0 = Date.now();
    const ready = await system.load(jobs);
    if (ready > firstMs - 500) {
      throw new Error(
        `loading ${jobs.length} jobs took ${((ready - t0) / 1000).toFixed(1)} s: ` +
          `the burst at ${new Date(firstMs).toISOString()} was not reachable`,
      );
    }
    const events = [
      `${jobs.length} jobs (\`${jobs[0]?.schedule}\`) loaded in ${((ready - t0) / 1000).toFixed(1)} s`,
    ];
    ctx.log(`[${tag}] ${events[0]}; first burst at ${new Date(firstMs).toISOString()}`);
    const slotBoundMs = slotBound(s, jobs.length);
    await sleep(firstMs - 500 - Date.now());
    const counters = async () =>
      system instanceof Hermes ? sumCounters((await system.metrics()).values()) : {};
    const countersBefore = await counters();
    const usage = await startUsage(ctx.sources(system));
    const lastMs = nominalMs.at(-1) as number;
    const toMs = lastMs + 1;
    const expected = expectedOccurrences(jobs, firstMs, toMs).size;
    // Long enough for a scheduler four times slower than the slot bound, and never short.
    const deadlineMs = lastMs + Math.max(60_000, 4 * slotBoundMs) + s.latencyMs;
    let nextLogMs = Date.now() + ctx.progressMs;
    for (;;) {
      await sleep(250);
      const counts = await countFinished(db, firstMs, toMs);
      if (counts.finished >= expected && Date.now() > lastMs) break;
      if (Date.now() >= deadlineMs) {
        events.push(
          `stopped waiting ${((Date.now() - lastMs) / 1000).toFixed(0)} s after the last burst: ` +
            `${counts.finished} of ${expected} runs finished`,
        );
        break;
      }
      if (Date.now() >= nextLogMs) {
        nextLogMs += ctx.progressMs;
        const p = await system.progress(firstMs);
        const inFlight = Object.entries(p.inFlight)
          .map(([id, n]) => `${id}=${n}`)
          .join(' ');
        ctx.log(
          `[${tag}] +${((Date.now() - firstMs) / 1000).toFixed(1)}s runs=${counts.runs} ` +
            `finished=${counts.finished}/${expected} in-flight ${inFlight}`,
        );
      }
    }
    const measured = await usage.stop();
    const moved = counterDeltas(countersBefore, await counters());
    const columns = await optionalColumns(db);
    const runs = await readRuns(db, columns, firstMs, toMs);
    const calls: CallTally[] = await modelCalls(ctx, firstMs, toMs);
    const result = summarise(
      {
        name,
        settings: { ...s, throttleRate },
        jobs,
        nominalMs,
        usage: measured,
        columns,
        counters: moved,
        events,
      },
      runs,
      calls,
    );
    logSummary(ctx, tag, result);
    try {
      await system.unload();
    } catch (err) {
      result.events.push(`removing the jobs afterwards failed: ${(err as Error).message}`);
    }
    return result;
  } finally {
    await setModel(ctx, { latencyMs: s.baseLatencyMs, throttleRate: 0 }).catch(() => {});
  }
}

function logSummary(ctx: WorkloadContext, tag: string, r: ContentionResult): void {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)}s`;
  const success = r.outcomes.filter((o) => o.status === 'success').reduce((n, o) => n + o.count, 0);
  ctx.log(
    `[${tag}] small tenants start lag p50=${s(r.small.runLag.p50)} max=${s(r.small.runLag.max)} ` +
      `(model call p50=${s(r.small.callLag.p50)} max=${s(r.small.callLag.max)}); ` +
      r.drains
        .map((d) => `drain: last start ${s(d.lastStartedMs)}, last finish ${s(d.lastFinishedMs)}`)
        .join('; ') +
      ` (slot bound ${s(r.slotBoundMs)}); runs=${r.acc.runs}/${r.acc.expected} success=${success} ` +
      `dup=${r.acc.runDuplicates}/${r.acc.callDuplicates} miss=${r.acc.runMisses}/${r.acc.callMisses} ` +
      `429s=${r.model.throttled}`,
  );
  for (const o of r.outcomes) {
    ctx.log(
      `[${tag}]   ${o.count} ${o.status}${o.errorKind ? ` [${o.errorKind}]` : ''}${o.error ? `: ${o.error}` : ''}`,
    );
  }
}
