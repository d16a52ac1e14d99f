// Watching a running workload: the model server's call log, progress lines, and the wait for a
// steady state before a window opens.
import {
  ceilSecond,
  expectedOccurrences,
  type CallTally,
  type JobSpec,
  type RunRecord,
} from './analysis.js';
import type { NewJobSample, System } from './system.js';
import type { WorkloadContext } from './workloads.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

export async function modelCalls(
  ctx: WorkloadContext,
  fromMs: number,
  toMs: number,
): Promise<CallTally[]> {
  const response = await fetch(`${ctx.modelControl}/calls?from=${fromMs}&to=${toMs}`);
  return ((await response.json()) as { calls: CallTally[] }).calls;
}

export async function resetModel(ctx: WorkloadContext): Promise<void> {
  await fetch(`${ctx.modelControl}/reset`, { method: 'POST' });
}

/** Prints a progress line every progressMs until `until` says stop (bounded by deadlineMs). */
export async function watch(
  ctx: WorkloadContext,
  system: System,
  tag: string,
  sinceMs: number,
  deadlineMs: number,
  until: (runs: number) => boolean,
  eventLoop: Record<string, number>,
): Promise<void> {
  const started = Date.now();
  for (;;) {
    const nextMs = Math.min(deadlineMs, Date.now() + ctx.progressMs);
    while (Date.now() < nextMs) {
      await sleep(Math.min(100, nextMs - Date.now()));
      if (until(-1)) return;
    }
    const p = await system.progress(sinceMs);
    for (const [id, ms] of Object.entries(await system.eventLoopMaxMs())) {
      eventLoop[id] = Math.max(eventLoop[id] ?? 0, ms);
    }
    const inFlight = Object.entries(p.inFlight)
      .map(([id, n]) => `${id}=${n}`)
      .join(' ');
    const loop = Object.values(eventLoop)
      .map((ms) => ms.toFixed(0))
      .join('/');
    ctx.log(
      `[${tag}] +${((Date.now() - started) / 1000).toFixed(1)}s runs=${p.runs} in-flight ${inFlight}` +
        (loop ? ` event-loop max ${loop} ms` : '') +
        (p.note ? ` ${p.note}` : ''),
    );
    if (until(p.runs) || Date.now() >= deadlineMs) return;
  }
}

/**
 * Waits (bounded) until the system keeps up: every occurrence of two consecutive recent seconds
 * (3 s ago) has started. A system that loads jobs slowly catches up the occurrences
 * it missed meanwhile; the steady window starts after that transient.
 */
export async function warmUp(
  ctx: WorkloadContext,
  system: System,
  jobs: JobSpec[],
  tag: string,
): Promise<number> {
  const deadline = Date.now() + 30_000;
  let good = 0;
  while (Date.now() < deadline) {
    await sleep(1000 - (Date.now() % 1000) + 50);
    const second = Math.floor(Date.now() / 1000) * 1000 - 3000;
    const due = expectedOccurrences(jobs, second, second + 1000).size;
    const started = new Set(
      (await system.runs(second, second + 1000)).map((r) => `${r.jobId}|${r.nominalMs}`),
    ).size;
    // Set-aside occurrences are taken oldest first, so recent seconds complete only once the
    // backlog is gone. (In-flight counts say nothing here: every second starts a wave of runs.)
    good = started >= due ? good + 1 : 0;
    if (good >= 2) return Date.now();
  }
  ctx.log(`[${tag}] not steady after 30 s of warm-up; measuring anyway`);
  return Date.now();
}

/** Waits (bounded) for the first run of a job created at createdMs: W3's "new job" sample. */
export async function firstRunSample(
  system: System,
  jobId: string,
  createdMs: number,
): Promise<NewJobSample> {
  const expectedFirstMs = ceilSecond(createdMs);
  const deadline = Date.now() + 15_000;
  let first: RunRecord | undefined;
  while (!first && Date.now() < deadline) {
    await sleep(50);
    first = (await system.runs(createdMs - 1000, createdMs + 60_000))
      .filter((r) => r.jobId === jobId)
      .sort((a, b) => a.nominalMs - b.nominalMs)[0];
  }
  return {
    createdMs,
    expectedFirstMs,
    firstNominalMs: first?.nominalMs ?? null,
    lagMs: first?.lagMs ?? null,
    onTime: first !== undefined && first.nominalMs === expectedFirstMs,
  };
}

/** Changes the model server's latency, share of 429 answers or seed (bench/model-server.ts). */
export async function setModel(
  ctx: WorkloadContext,
  settings: { latencyMs?: number; throttleRate?: number; seed?: number },
): Promise<void> {
  const response = await fetch(`${ctx.modelControl}/settings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(settings),
  });
  if (!response.ok) throw new Error(`model server settings: ${await response.text()}`);
}
