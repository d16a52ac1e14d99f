// The four workloads, run against one system at a time. W1 steady, W2 burst, W3 scale, W4 faults.
import { randomUUID } from 'node:crypto';
import {
  account,
  breakdown,
  ceilSecond,
  expectedOccurrences,
  histogramLag,
  lagOf,
  nextSecondOfMinute,
  type Accounting,
  type Breakdown,
  type JobSpec,
  type Lag,
} from './analysis.js';
import type { ScaleLimits, ScaleResult, System } from './system.js';
import { modelCalls, resetModel, warmUp, watch } from './watch.js';
import { startUsage, type Usage, type UsageSources } from './usage.js';

export type WorkloadName = 'w1' | 'w2' | 'w3' | 'w4' | 'w5' | 'w5t';

export interface WorkloadContext {
  tenants: string[];
  modelControl: string;
  sources: (system: System) => UsageSources;
  /** Stops and starts redis-server on the same port; undefined when Redis is not ours. */
  restartRedis?: () => Promise<{ downAtMs: number; upAtMs: number }>;
  progressMs: number;
  log: (line: string) => void;
}

export interface WindowResult {
  workload: WorkloadName;
  system: System['name'];
  fromMs: number;
  toMs: number;
  loadSeconds: number;
  acc: Accounting;
  /** Nominal time to the first model call of each occurrence: when the work reached the model. */
  callLag: Lag;
  /** Start → first model call → recorded finish, per run (ms). */
  breakdown?: Breakdown;
  /** How long runs held a model slot (HermesX's histogram), when the system counts it. */
  modelSlot?: Lag;
  usage: Usage;
  eventLoopMaxMs: Record<string, number>;
  events: string[];
  /** W2: the nominal second, and the time (ms after it) by which every run had started. */
  burst?: {
    nominalMs: number;
    allStartedMs: number;
    within2s: number;
    /** Runs started in each half second after the nominal one: the burst's ramp. */
    startsPerHalfSecond: number[];
  };
}

export interface ScaleOutcome {
  workload: 'w3';
  system: System['name'];
  result: ScaleResult;
  peakRss: Record<string, number>;
  /** The statements PostgreSQL spent the phase on (HermesX). */
  statements: Usage['pgTop'];
}

const PROMPT = 'Reply with OK.';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const sleepUntil = (ms: number) => sleep(ms - Date.now());

const spec = (ctx: WorkloadContext, i: number, schedule: string): JobSpec => ({
  id: randomUUID(),
  tenantId: ctx.tenants[i % ctx.tenants.length] as string,
  schedule,
  prompt: PROMPT,
});

/** W1 and W4: every minute at second i mod 60. */
export const steadyJobs = (ctx: WorkloadContext, n: number) =>
  Array.from({ length: n }, (_, i) => spec(ctx, i, `${i % 60} * * * * *`));

/** W2: every minute at the same second. */
export const burstJobs = (ctx: WorkloadContext, n: number, second: number) =>
  Array.from({ length: n }, () => spec(ctx, 0, `${second} * * * * *`));

/** W3: hourly, at minutes 10 to 49 after the current one, so none fires during the phase. */
export function scaleJobs(ctx: WorkloadContext, n: number): JobSpec[] {
  const minute = new Date().getUTCMinutes();
  return Array.from({ length: n }, (_, i) =>
    spec(ctx, i, `${Math.floor(i / 40) % 60} ${(minute + 10 + (i % 40)) % 60} * * * *`),
  );
}

/** W1 (steady) and W4 (steady with a replica SIGKILLed and Redis restarted). */
export async function runSteady(
  ctx: WorkloadContext,
  system: System,
  workload: 'w1' | 'w4',
  jobs: JobSpec[],
  durationMs: number,
  /** loaded: the jobs are already there (W4 right after W1); keep: leave them for the next one. */
  options: { loaded?: boolean; keep?: boolean } = {},
): Promise<WindowResult> {
  const tag = `${system.name} ${workload}`;
  await resetModel(ctx);
  const t0 = Date.now();
  const ready = options.loaded ? t0 : await system.load(jobs);
  const loadSeconds = (ready - t0) / 1000;
  if (!options.loaded) ctx.log(`[${tag}] ${jobs.length} jobs loaded in ${loadSeconds.toFixed(1)}s`);
  const steadyMs = await warmUp(ctx, system, jobs, tag);
  const fromMs = ceilSecond(steadyMs) + 1000;
  const toMs = fromMs + durationMs;
  const events: string[] = [
    options.loaded
      ? 'the same jobs as the workload before, still loaded'
      : `jobs created and loaded in ${loadSeconds.toFixed(1)}s; steady ${((steadyMs - ready) / 1000).toFixed(1)}s later`,
  ];
  await sleepUntil(fromMs);
  await system.eventLoopMaxMs(); // resets the pods' event-loop histograms
  const modelSlot = await watchModelSlot(system);
  const usage = await startUsage(ctx.sources(system));
  const eventLoop: Record<string, number> = {};
  let faults: Promise<{ killed: string; keys: string[]; killedAtMs: number } | undefined> =
    Promise.resolve(undefined);
  if (workload === 'w4') faults = injectFaults(ctx, system, fromMs, durationMs, events);
  await watch(ctx, system, tag, fromMs, toMs, () => Date.now() >= toMs, eventLoop);
  const killed = await faults;
  const measured = await usage.stop();
  if (killed) {
    // Wait (bounded) for the dead replica's runs to be settled: failed by recovery (HermesX) or
    // started again by another worker after BullMQ's stalled-job check.
    const deadline = killed.killedAtMs + 50_000;
    // Checked at least once, even when a long window already outlasted the deadline.
    let settled = await system.resolved(killed.keys, killed.killed);
    while (settled < killed.keys.length && Date.now() < deadline) {
      await sleep(500);
      settled = await system.resolved(killed.keys, killed.killed);
    }
    events.push(
      `${settled} of ${killed.keys.length} runs in flight on ${killed.killed} settled by ` +
        `${((Date.now() - killed.killedAtMs) / 1000).toFixed(1)}s after the kill` +
        (system.kind === 'hermesx' ? ' (marked failed, not retried)' : ' (re-run after stall)'),
    );
  }
  await sleep(1500); // the last runs of the window finish
  const result = await collect(
    ctx,
    system,
    workload,
    jobs,
    fromMs,
    toMs,
    loadSeconds,
    measured,
    eventLoop,
    events,
  );
  const held = await modelSlot();
  if (held) result.modelSlot = held;
  if (!options.keep) await unloadQuietly(ctx, system, result);
  return result;
}

async function injectFaults(
  ctx: WorkloadContext,
  system: System,
  fromMs: number,
  durationMs: number,
  events: string[],
): Promise<{ killed: string; keys: string[]; killedAtMs: number }> {
  // Just after a second's wave of runs has started, so the kill catches runs in flight.
  await sleepUntil(ceilSecond(fromMs + durationMs * 0.25) + 60);
  const killedAtMs = Date.now();
  const killed = await system.killOne();
  const keys = await system.inFlightOf(killed);
  events.push(
    `+${((killedAtMs - fromMs) / 1000).toFixed(1)}s SIGKILL ${killed} (${keys.length} runs in flight)`,
  );
  await sleepUntil(fromMs + durationMs * 0.5);
  if (ctx.restartRedis) {
    const { downAtMs, upAtMs } = await ctx.restartRedis();
    events.push(
      `+${((downAtMs - fromMs) / 1000).toFixed(1)}s redis-server stopped, ` +
        `back on the same port ${((upAtMs - downAtMs) / 1000).toFixed(2)}s later`,
    );
  } else {
    events.push('Redis restart skipped: --redis-url names a server the benchmark does not own');
  }
  return { killed, keys, killedAtMs };
}

async function collect(
  ctx: WorkloadContext,
  system: System,
  workload: WorkloadName,
  jobs: JobSpec[],
  fromMs: number,
  toMs: number,
  loadSeconds: number,
  usage: Usage,
  eventLoopMaxMs: Record<string, number>,
  events: string[],
): Promise<WindowResult> {
  const runs = await system.runs(fromMs, toMs);
  const calls = await modelCalls(ctx, fromMs, toMs);
  const acc = account(expectedOccurrences(jobs, fromMs, toMs), runs, calls);
  const callLag = lagOf(calls.map(([, ms, , first]) => first - ms));
  ctx.log(
    `[${system.name} ${workload}] expected=${acc.expected} runs=${acc.runs} calls=${acc.calls} ` +
      `dup=${acc.runDuplicates}/${acc.callDuplicates} miss=${acc.runMisses}/${acc.callMisses} ` +
      `lag p50=${acc.lag.p50.toFixed(1)} p99=${acc.lag.p99.toFixed(1)} max=${acc.lag.max.toFixed(1)} ms`,
  );
  const parts = breakdown(runs, calls);
  return {
    workload,
    system: system.name,
    fromMs,
    toMs,
    loadSeconds,
    acc,
    callLag,
    ...(parts ? { breakdown: parts } : {}),
    usage,
    eventLoopMaxMs,
    events,
  };
}

/** W2: every job due at the same second; measured over that one burst. */
export async function runBurst(
  ctx: WorkloadContext,
  system: System,
  jobs: JobSpec[],
  second: number,
): Promise<WindowResult> {
  const tag = `${system.name} w2`;
  await resetModel(ctx);
  const t0 = Date.now();
  const ready = await system.load(jobs);
  const loadSeconds = (ready - t0) / 1000;
  const nominalMs = nextSecondOfMinute(ready + 1500, second);
  ctx.log(
    `[${tag}] ${jobs.length} jobs loaded in ${loadSeconds.toFixed(1)}s; burst at ${new Date(nominalMs).toISOString()}`,
  );
  await sleepUntil(nominalMs - 500);
  await system.eventLoopMaxMs();
  const modelSlot = await watchModelSlot(system);
  const usage = await startUsage(ctx.sources(system));
  const eventLoop: Record<string, number> = {};
  let done = false;
  const deadline = nominalMs + 60_000;
  await watch(
    ctx,
    system,
    tag,
    nominalMs,
    deadline,
    (runs) => (done ||= runs >= jobs.length),
    eventLoop,
  );
  await sleep(1000); // the last runs finish
  const measured = await usage.stop();
  const result = await collect(
    ctx,
    system,
    'w2',
    jobs,
    nominalMs,
    nominalMs + 1,
    loadSeconds,
    measured,
    eventLoop,
    [],
  );
  const allStartedMs = result.acc.lag.max;
  const within2s = result.acc.lags.filter((lag) => lag <= 2000).length;
  const startsPerHalfSecond: number[] = [];
  for (const lag of result.acc.lags) {
    const bucket = Math.max(0, Math.floor(lag / 500));
    while (startsPerHalfSecond.length <= bucket) startsPerHalfSecond.push(0);
    startsPerHalfSecond[bucket] = (startsPerHalfSecond[bucket] ?? 0) + 1;
  }
  result.burst = { nominalMs, allStartedMs, within2s, startsPerHalfSecond };
  const held = await modelSlot();
  if (held) result.modelSlot = held;
  await unloadQuietly(ctx, system, result);
  return result;
}

/** W3: many jobs loaded; sync time, memory, and the first occurrence of a job created then. */
export async function runScale(
  ctx: WorkloadContext,
  system: System,
  n: number,
  limits: ScaleLimits,
): Promise<ScaleOutcome> {
  ctx.log(`[${system.name} w3] loading ${n} jobs`);
  const usage = await startUsage(ctx.sources(system));
  let i = 0;
  const result = await system.scale(scaleJobs(ctx, n), () => spec(ctx, i++, '* * * * * *'), limits);
  for (const note of result.notes) ctx.log(`[${system.name} w3] ${note}`);
  const measured = await usage.stop();
  ctx.log(
    `[${system.name} w3] created in ${result.createSeconds.toFixed(1)}s; new jobs: ` +
      result.newJobs
        .map((s) => `${s.onTime ? 'on time' : 'LATE'} lag=${s.lagMs?.toFixed(1)}ms`)
        .join(', '),
  );
  return {
    workload: 'w3',
    system: system.name,
    result,
    peakRss: measured.peakRss,
    statements: measured.pgTop,
  };
}

/** Removes the jobs; a failure there is noted, and does not cost the measurement. */
/** Reads the system's model-slot histogram now; the function returned gives what it counted since. */
async function watchModelSlot(system: System): Promise<() => Promise<Lag | undefined>> {
  const before = await system.slotHeldBuckets?.();
  return async () => {
    const after = await system.slotHeldBuckets?.();
    return before && after ? histogramLag(before, after) : undefined;
  };
}

async function unloadQuietly(
  ctx: WorkloadContext,
  system: System,
  result: WindowResult,
): Promise<void> {
  try {
    await system.unload();
  } catch (err) {
    const text = err instanceof Error ? err.message : String(err);
    result.events.push(`removing the jobs afterwards failed: ${text}`);
    ctx.log(`[${system.name} ${result.workload}] removing the jobs failed: ${text}`);
  }
}
