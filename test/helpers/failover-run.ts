// One failover under load, measured: three pods with per-second jobs, a kill, and what followed
// (time to resume, runs, duplicates, misses outside the failover window, catch-ups, readiness).
// Used by test/e2e/redis-failover.test.ts for Sentinel and for Cluster.
import type pg from 'pg';
import { expect } from 'vitest';
import {
  cronCallOf,
  duplicateRuns,
  insertJob,
  logField,
  metricValue,
  runsOf,
  startPod,
  type Pod,
} from './cluster.js';
import type { FakeLlm } from './fake-llm.js';
import { waitFor } from './process-wait.js';

const SECOND = 1000;
const JOBS = 4;
/**
 * An occurrence this close to either end of the failover counts as inside it (before the kill:
 * at least the longest fire lag seen before it, as an occurrence not yet claimed when Redis died
 * is one the failover took).
 */
const EDGE_MS = 1000;

export interface FailoverContext {
  databaseUrl: string;
  db: pg.Client;
  llm: FakeLlm;
}

interface ReadySample {
  atMs: number;
  redis: string;
}

async function readiness(pod: Pod): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${pod.url}/health/ready`, { signal: AbortSignal.timeout(5000) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/**
 * Samples every pod's /health/ready until stopped. A failed sample ends the sampling and is
 * thrown by stop(), never left as an unhandled rejection (a failed attempt stops its pods while
 * the sampler may still be polling them).
 */
function sampleReadiness(pods: Pod[]): { stop(): Promise<ReadySample[]> } {
  const samples: ReadySample[] = [];
  let stopped = false;
  let failure: unknown;
  const loop = (async () => {
    while (!stopped) {
      await Promise.all(
        pods.map(async (pod) => {
          const { status, body } = await readiness(pod);
          expect(status, 'readiness stays 200 while Redis fails over').toBe(200);
          const checks = body.checks as { redis: string };
          samples.push({ atMs: Date.now(), redis: checks.redis });
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })().catch((err: unknown) => {
    failure = err;
  });
  return {
    stop: async () => {
      stopped = true;
      await loop;
      if (failure !== undefined) throw failure;
      return samples;
    },
  };
}

export interface FailoverReport {
  resumeMs: number[];
  runs: number;
  duplicates: number;
  missesOutside: number;
  caughtUp: number;
  ranInside: number;
  missedInside: number;
}

/**
 * Starts three pods with the given Redis settings and JOBS per-second jobs, lets them run, calls
 * kill, and measures the failover. Returns the report and the pods (for log checks).
 */
export async function exerciseFailover(
  { databaseUrl, db, llm }: FailoverContext,
  label: string,
  env: Record<string, string>,
  kill: () => Promise<void>,
): Promise<{ report: FailoverReport; pods: Pod[]; killedAt: number }> {
  const pods = await Promise.all(
    [0, 1, 2].map((i) =>
      startPod({
        databaseUrl,
        llmUrl: llm.url,
        podId: `${label}-${i}`,
        waitFor: 'scheduler',
        env: { SCHEDULER_POLL_INTERVAL: '5s', ...env },
      }),
    ),
  );
  const jobs = [];
  for (let i = 0; i < JOBS; i++) {
    jobs.push(
      await insertJob(db, { name: `${label}-${i}`, schedule: '* * * * * *', prompt: 'hi' }),
    );
  }
  const ids = jobs.map((job) => job.id);
  const startedAt = Math.max(...jobs.map((job) => job.createdAt.getTime()));
  // Steady state: every job has run a few times, spread over the pods.
  await waitFor(
    async () => {
      const runs = await runsOf(db, ids);
      for (const id of ids) {
        expect(
          runs.filter((r) => r.cron_job_id === id && r.status === 'success').length,
        ).toBeGreaterThanOrEqual(3);
      }
    },
    { timeoutMs: 20_000, intervalMs: 200, what: 'every job to run three times' },
  );

  const marks = pods.map((pod) => pod.lines.length);
  const sampler = sampleReadiness(pods);
  const killedAt = Date.now();
  let lastResume: number;
  let windowEnd: number;
  const resumedAt: number[] = [];
  try {
    await kill();

    // Every pod pauses, then starts scheduling again on the new primary.
    for (const [i, pod] of pods.entries()) {
      await pod.waitForLine(/msg="scheduler disabled: redis unavailable"/, 15_000, marks[i]);
      const line = await pod.waitForLine(/msg="scheduler started"/, 30_000, marks[i]);
      resumedAt.push(Date.parse(logField(line, 'time') ?? ''));
    }
    lastResume = Math.max(...resumedAt);
    windowEnd = lastResume + EDGE_MS;
    // Runs go on: every job runs the occurrences after the failover.
    await waitFor(
      async () => {
        const runs = await runsOf(db, ids);
        for (const id of ids) {
          const after = runs.filter(
            (r) => r.cron_job_id === id && r.scheduled_at.getTime() >= windowEnd + 3 * SECOND,
          );
          expect(after.filter((r) => r.status === 'success').length).toBeGreaterThanOrEqual(1);
        }
      },
      { timeoutMs: 20_000, intervalMs: 200, what: 'every job to run after the failover' },
    );
  } catch (err) {
    // The attempt failed: stop sampling before its pods are stopped.
    await sampler.stop().catch(() => {});
    throw err;
  }
  const samples = await sampler.stop();
  const endMs = windowEnd + 3 * SECOND;
  await waitFor(
    async () => {
      const open = (await runsOf(db, ids)).filter(
        (r) =>
          r.scheduled_at.getTime() <= endMs && (r.status === 'running' || r.status === 'claimed'),
      );
      expect(open).toEqual([]);
    },
    { timeoutMs: 10_000, intervalMs: 100, what: 'runs in flight to finish' },
  );

  const runs = (await runsOf(db, ids)).filter((r) => r.scheduled_at.getTime() <= endMs);
  const lagBeforeKillMs = Math.max(
    0,
    ...runs
      .filter((r) => r.started_at.getTime() < killedAt)
      .map((r) => r.started_at.getTime() - r.scheduled_at.getTime()),
  );
  const windowStart = killedAt - Math.max(EDGE_MS, lagBeforeKillMs + 100);
  const recorded = new Set(runs.map((r) => `${r.cron_job_id}@${r.scheduled_at.getTime()}`));
  // Duplicates: an occurrence sent to the model more than once, or recorded more than once.
  const sent = new Map<string, number>();
  for (const call of llm.calls) {
    const info = cronCallOf(call.body);
    if (!info || !ids.includes(info.jobId)) continue;
    const key = `${info.jobId}@${Date.parse(info.scheduledAt)}`;
    sent.set(key, (sent.get(key) ?? 0) + 1);
  }
  const duplicates =
    [...sent.values()].filter((n) => n > 1).length + (await duplicateRuns(db)).length;
  // Every occurrence outside the failover window has its run; inside it, those that ran were
  // caught up (the latest missed one per job, as the guide's catch-up does).
  let missesOutside = 0;
  let ranInside = 0;
  let missedInside = 0;
  const missing: string[] = [];
  const firstMs = Math.ceil((startedAt + SECOND) / SECOND) * SECOND;
  for (const id of ids) {
    for (let t = firstMs; t <= endMs; t += SECOND) {
      const inside = t > windowStart && t <= windowEnd;
      const ran = recorded.has(`${id}@${t}`);
      if (inside && ran && t > killedAt) ranInside++;
      else if (inside && !ran) missedInside++;
      else if (!inside && !ran) {
        missesOutside++;
        missing.push(new Date(t).toISOString());
      }
    }
  }
  const metrics = await Promise.all(pods.map((pod) => pod.metrics()));
  const caughtUpTotal = metrics.reduce(
    (sum, text) => sum + metricValue(text, 'hermesx_scheduler_caught_up_total'),
    0,
  );
  const errorsSeen = samples.filter((s) => s.redis === 'error');
  const report: FailoverReport = {
    resumeMs: resumedAt.map((at) => at - killedAt),
    runs: runs.length,
    duplicates,
    missesOutside,
    caughtUp: caughtUpTotal,
    ranInside,
    missedInside,
  };
  console.log(
    `[redis-failover] ${label}: kill -> scheduling resumed ${report.resumeMs.join(', ')} ms (per pod); ` +
      `${report.runs} runs, ${duplicates} duplicates, ${missesOutside} misses outside the window, ` +
      `${caughtUpTotal} occurrences caught up (hermesx_scheduler_caught_up_total), ${ranInside} ran and ${missedInside} were skipped inside the window; ` +
      `fire lag before the kill ≤ ${lagBeforeKillMs} ms; readiness redis=error in ${errorsSeen.length}/${samples.length} samples, ` +
      `from ${errorsSeen.length ? errorsSeen[0]!.atMs - killedAt : '-'} to ${errorsSeen.length ? errorsSeen.at(-1)!.atMs - killedAt : '-'} ms`,
  );
  expect(missing, 'occurrences outside the failover window without a run').toEqual([]);
  expect(duplicates).toBe(0);
  // Readiness said error during the failover, only then, and ok again once a primary answers.
  expect(
    errorsSeen.length,
    'readiness reported redis: error while no primary answered',
  ).toBeGreaterThan(0);
  for (const sample of errorsSeen) {
    expect(sample.atMs).toBeGreaterThanOrEqual(killedAt);
    expect(sample.atMs).toBeLessThanOrEqual(lastResume + 2 * SECOND);
  }
  for (const pod of pods) {
    expect(await readiness(pod)).toEqual({
      status: 200,
      body: { status: 'ok', checks: { database: 'ok', redis: 'ok' } },
    });
  }
  expect(caughtUpTotal, 'the catch-up ran the missed occurrences').toBeGreaterThanOrEqual(1);
  for (const text of metrics) {
    expect(metricValue(text, 'hermesx_redis_failovers_total')).toBeGreaterThanOrEqual(1);
  }
  return { report, pods, killedAt };
}
