// The per-job overlap policies on three real `saas-api` pods sharing PostgreSQL and Redis, with a
// slow local model server so runs overlap: cancel_other stops the earlier run wherever it runs
// (recorded cancelled) and runs the new one once; buffer_one runs exactly one waiting occurrence
// right after the current one ends; allow_all runs occurrences side by side; run-now follows the
// policy. Every occurrence is recorded once (the guide's duplicate query returns no row). The
// first three pods have one run slot each, so while a run holds its pod the job's next occurrence
// is necessarily taken by another pod: cancel_other and allow_all are seen across pods. buffer_one
// runs on three pods with room, where an occurrence is decided when it comes (with no free slot
// it waits for one, and is decided when it gets it).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  cronCallOf,
  DEFAULT_TENANT,
  duplicateRuns,
  metricValue,
  runsOf,
  startPod,
  stopAllPods,
  type Pod,
  type RunRow,
} from '../helpers/cluster.js';
import { createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm, type FakeReply } from '../helpers/fake-llm.js';
import { waitFor } from '../helpers/process-wait.js';

const KEY = 'overlap-test-default-tenant-key-0123456789';

let db: pg.Client;
let llm: FakeLlm;
let pods: Pod[];
let databaseUrl: string;

function startPods(slots: number): Promise<Pod[]> {
  const tag = Math.random().toString(36).slice(2, 8);
  return Promise.all(
    [1, 2, 3].map((i) =>
      startPod({
        databaseUrl,
        redisUrl: inject('redisUrl'),
        llmUrl: llm.url,
        podId: `overlap-${tag}-${i}`,
        env: {
          HERMES_API_KEY: KEY,
          SCHEDULER_MAX_CONCURRENT_RUNS: String(slots),
          // The budget is counted in the Redis every test file shares, under the same tenant id.
          MANUAL_RUNS_PER_MINUTE: '1000',
        },
      }),
    ),
  );
}

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  llm = await startFakeLlm();
  // Run-now twice in a row below: no minimum interval between manual runs.
  await db.query('UPDATE tenants SET min_schedule_interval_seconds = 0 WHERE id = $1', [
    DEFAULT_TENANT,
  ]);
}, 60_000);

afterAll(async () => {
  await stopAllPods();
  await db?.end();
  await llm?.close();
});

/** Answers each job's calls in turn: the nth call of a job gets replies[n] (the last one after). */
function answerInTurn(byPrompt: Record<string, FakeReply[]>): void {
  const seen = new Map<string, number>();
  llm.setHandler((body) => {
    const call = cronCallOf(body);
    const replies = call ? byPrompt[call.prompt] : undefined;
    if (!call || !replies) return { content: 'ok' };
    const n = seen.get(call.jobId) ?? 0;
    seen.set(call.jobId, n + 1);
    return replies[Math.min(n, replies.length - 1)]!;
  });
}

async function insertJob(schedule: string, prompt: string, overlap: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt, overlap)
     VALUES ($1, $2, $3, $2, $4) RETURNING id`,
    [DEFAULT_TENANT, prompt, schedule, overlap],
  );
  return rows[0]!.id;
}

/** Disables the job and waits until none of its runs is in flight; returns its runs. */
async function stopJob(jobId: string): Promise<RunRow[]> {
  await db.query('UPDATE cron_jobs SET enabled = false WHERE id = $1', [jobId]);
  return waitFor(
    async () => {
      const runs = await runsOf(db, [jobId]);
      if (runs.some((r) => r.status === 'claimed' || r.status === 'running')) {
        throw new Error('runs still in flight');
      }
      return runs;
    },
    { timeoutMs: 15_000, intervalMs: 100, what: 'the job to have nothing in flight' },
  );
}

const ranSideBySide = (a: RunRow, b: RunRow) =>
  a.started_at.getTime() < b.finished_at!.getTime() &&
  b.started_at.getTime() < a.finished_at!.getTime();

/** Model calls that named the job, per occurrence (ISO time). */
function callsPerOccurrence(jobId: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const c of llm.calls) {
    const call = cronCallOf(c.body);
    if (call?.jobId !== jobId) continue;
    counts.set(call.scheduledAt, (counts.get(call.scheduledAt) ?? 0) + 1);
  }
  return counts;
}

async function overlapSkips(): Promise<number> {
  let total = 0;
  for (const pod of pods) {
    total += metricValue(await pod.metrics(), 'hermesx_scheduler_overlap_skips_total');
  }
  return total;
}

const trigger = (pod: Pod, jobId: string) =>
  fetch(`${pod.url}/v1/cron-jobs/${jobId}/trigger`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}` },
  });

describe('overlap policies on three pods with one run slot each', () => {
  beforeAll(async () => {
    pods = await startPods(1);
  }, 60_000);
  afterAll(() => stopAllPods());

  it('cancel_other: the earlier run is cancelled wherever it runs; the new one runs once', async () => {
    answerInTurn({ 'cancel-other': [{ hang: true }, { content: 'ok' }] });
    const jobId = await insertJob('*/3 * * * * *', 'cancel-other', 'cancel_other');
    await waitFor(
      async () => {
        const runs = await runsOf(db, [jobId]);
        if (!runs.some((r) => r.status === 'success')) throw new Error('no success yet');
      },
      { timeoutMs: 20_000, intervalMs: 100, what: 'a run after the cancelled one' },
    );
    const runs = await stopJob(jobId);
    const [first, second] = runs;
    expect(first).toMatchObject({
      status: 'failed',
      error_kind: 'cancelled',
      error: 'cancelled: superseded by a later occurrence (overlap cancel_other)',
    });
    expect(second).toMatchObject({ status: 'success', result: 'ok' });
    // The cancel went from the new run's pod to the old run's pod.
    expect(second!.pod_id).not.toBe(first!.pod_id);
    expect(second!.scheduled_at.getTime() - first!.scheduled_at.getTime()).toBe(3000);
    // Stopped soon after the next occurrence came, and that one started only once it had.
    expect(first!.finished_at!.getTime() - second!.scheduled_at.getTime()).toBeLessThan(1500);
    expect(second!.started_at.getTime()).toBeGreaterThanOrEqual(first!.finished_at!.getTime());
    expect(runs.slice(2).every((r) => r.status === 'success')).toBe(true);
    for (let i = 1; i < runs.length; i++) expect(ranSideBySide(runs[i - 1]!, runs[i]!)).toBe(false);
    // One model call per occurrence: the cancelled one's was abandoned, the new one sent once.
    const calls = callsPerOccurrence(jobId);
    for (const run of runs) expect(calls.get(run.scheduled_at.toISOString())).toBe(1);
    expect(
      llm.calls.some(
        (c) => cronCallOf(c.body)?.scheduledAt === first!.scheduled_at.toISOString() && c.aborted,
      ),
    ).toBe(true);
    expect(await duplicateRuns(db)).toEqual([]);
  });

  it('allow_all: occurrences run side by side, each once', async () => {
    answerInTurn({ 'allow-all': [{ content: 'ok', delayMs: 3000 }] });
    const jobId = await insertJob('*/2 * * * * *', 'allow-all', 'allow_all');
    await waitFor(
      async () => {
        const done = (await runsOf(db, [jobId])).filter((r) => r.status === 'success');
        if (done.length < 2) throw new Error(`${done.length} runs done`);
      },
      { timeoutMs: 20_000, intervalMs: 100, what: 'two runs done' },
    );
    const runs = await stopJob(jobId);
    expect(runs.every((r) => r.status === 'success')).toBe(true);
    expect(ranSideBySide(runs[0]!, runs[1]!)).toBe(true);
    expect(runs[1]!.pod_id).not.toBe(runs[0]!.pod_id);
    expect(runs[1]!.scheduled_at.getTime() - runs[0]!.scheduled_at.getTime()).toBe(2000);
    const calls = callsPerOccurrence(jobId);
    for (const run of runs) expect(calls.get(run.scheduled_at.toISOString())).toBe(1);
    expect(await duplicateRuns(db)).toEqual([]);
  });

  it('run-now honours the policy: cancel_other stops the running manual run', async () => {
    answerInTurn({ 'manual-cancel': [{ hang: true }, { content: 'ok' }] });
    const jobId = await insertJob('0 0 1 1 *', 'manual-cancel', 'cancel_other');
    expect((await trigger(pods[0]!, jobId)).status).toBe(202);
    await waitFor(
      async () => {
        const [run] = await runsOf(db, [jobId]);
        if (run?.status !== 'running') throw new Error(`first run ${run?.status}`);
      },
      { timeoutMs: 10_000, intervalMs: 50, what: 'the first manual run in flight' },
    );
    expect((await trigger(pods[1]!, jobId)).status).toBe(202);
    const runs = await waitFor(
      async () => {
        const all = await runsOf(db, [jobId]);
        if (all[1]?.status !== 'success') throw new Error(`second run ${all[1]?.status}`);
        return all;
      },
      { timeoutMs: 10_000, intervalMs: 50, what: 'the second manual run' },
    );
    expect(runs).toHaveLength(2);
    expect(runs[0]).toMatchObject({ status: 'failed', error_kind: 'cancelled' });
    expect(runs[1]!.started_at.getTime()).toBeGreaterThanOrEqual(runs[0]!.finished_at!.getTime());
    await stopJob(jobId);
  });

  it('run-now honours the policy: buffer_one runs the second one right after the first', async () => {
    answerInTurn({ 'manual-buffer': [{ content: 'slow', delayMs: 3000 }, { content: 'ok' }] });
    const jobId = await insertJob('0 0 1 1 *', 'manual-buffer', 'buffer_one');
    expect((await trigger(pods[0]!, jobId)).status).toBe(202);
    await waitFor(
      async () => {
        const [run] = await runsOf(db, [jobId]);
        if (run?.status !== 'running') throw new Error(`first run ${run?.status}`);
      },
      { timeoutMs: 10_000, intervalMs: 50, what: 'the first manual run in flight' },
    );
    expect((await trigger(pods[1]!, jobId)).status).toBe(202);
    const runs = await waitFor(
      async () => {
        const all = await runsOf(db, [jobId]);
        if (all[1]?.status !== 'success') throw new Error(`second run ${all[1]?.status}`);
        return all;
      },
      { timeoutMs: 15_000, intervalMs: 50, what: 'the second manual run' },
    );
    expect(runs).toHaveLength(2);
    expect(runs[0]).toMatchObject({ status: 'success', result: 'slow' });
    const waitedMs = runs[1]!.started_at.getTime() - runs[0]!.finished_at!.getTime();
    expect(waitedMs).toBeGreaterThanOrEqual(0);
    expect(waitedMs).toBeLessThan(1000);
    await stopJob(jobId);
  });

  it('run-now honours the policy: skip leaves a second one out while the first runs', async () => {
    answerInTurn({ 'manual-skip': [{ content: 'slow', delayMs: 3000 }, { content: 'ok' }] });
    const jobId = await insertJob('0 0 1 1 *', 'manual-skip', 'skip');
    expect((await trigger(pods[0]!, jobId)).status).toBe(202);
    await waitFor(
      async () => {
        const [run] = await runsOf(db, [jobId]);
        if (run?.status !== 'running') throw new Error(`first run ${run?.status}`);
      },
      { timeoutMs: 10_000, intervalMs: 50, what: 'the first manual run in flight' },
    );
    expect((await trigger(pods[2]!, jobId)).status).toBe(202);
    const runs = await waitFor(
      async () => {
        const all = await runsOf(db, [jobId]);
        if (all[0]?.status !== 'success') throw new Error(`first run ${all[0]?.status}`);
        return all;
      },
      { timeoutMs: 10_000, intervalMs: 50, what: 'the first manual run to end' },
    );
    expect(runs).toHaveLength(1);
    await stopJob(jobId);
  });

  it('buffer_one: the waiting occurrence survives a SIGKILL of its pod and still runs after', async () => {
    answerInTurn({ durable: [{ content: 'slow', delayMs: 30_000 }, { content: 'ok' }] });
    const jobId = await insertJob('*/2 * * * * *', 'durable', 'buffer_one');
    const waiting = await waitFor(
      async () => {
        const runs = await runsOf(db, [jobId]);
        const claimed = runs.find((r) => r.status === 'claimed');
        if (runs[0]?.status !== 'running' || !claimed) throw new Error('nothing waits yet');
        return { first: runs[0], claimed };
      },
      { timeoutMs: 15_000, intervalMs: 50, what: 'a run and a waiting one' },
    );
    expect(waiting.claimed.pod_id).not.toBe(waiting.first.pod_id);
    const victim = pods.find((p) => p.podId === waiting.claimed.pod_id)!;
    expect(await victim.kill('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
    const buffered = await waitFor(
      async () => {
        const run = (await runsOf(db, [jobId])).find((r) => r.id === waiting.claimed.id);
        if (run?.status !== 'success') throw new Error(`the waiting run is ${run?.status}`);
        return run;
      },
      { timeoutMs: 60_000, intervalMs: 200, what: 'the waiting run to be adopted and run' },
    );
    const runs = await stopJob(jobId);
    const first = runs.find((r) => r.id === waiting.first.id)!;
    expect(first).toMatchObject({ status: 'success', result: 'slow' });
    // Adopted by a live pod, and started only once the slow run had ended.
    expect(buffered.pod_id).not.toBe(victim.podId);
    expect(buffered.started_at.getTime()).toBeGreaterThanOrEqual(first.finished_at!.getTime());
    for (let i = 1; i < runs.length; i++) expect(ranSideBySide(runs[i - 1]!, runs[i]!)).toBe(false);
    const calls = callsPerOccurrence(jobId);
    for (const run of runs) expect(calls.get(run.scheduled_at.toISOString())).toBe(1);
    expect(await duplicateRuns(db)).toEqual([]);
  }, 90_000);
});

describe('buffer_one on three pods', () => {
  beforeAll(async () => {
    pods = await startPods(100);
  }, 60_000);

  it('buffer_one: exactly one occurrence waits and runs right after the current one ends', async () => {
    answerInTurn({ buffer: [{ content: 'slow', delayMs: 5000 }, { content: 'ok' }] });
    const skipsBefore = await overlapSkips();
    const jobId = await insertJob('*/2 * * * * *', 'buffer', 'buffer_one');
    const slow = await waitFor(
      async () => {
        const runs = await runsOf(db, [jobId]);
        const first = runs[0];
        if (first?.status !== 'success') throw new Error('the slow run is not done');
        if (!runs.some((r) => r.scheduled_at.getTime() >= first.scheduled_at.getTime() + 6000)) {
          throw new Error('no run after the buffered one yet');
        }
        return first;
      },
      { timeoutMs: 25_000, intervalMs: 100, what: 'the slow run, the buffered one and the next' },
    );
    const runs = await stopJob(jobId);
    const t1 = slow.scheduled_at.getTime();
    expect(runs.every((r) => r.status === 'success')).toBe(true);
    expect(runs[0]!.result).toBe('slow');
    // T1 + 2s waited and ran; T1 + 4s came while it waited and was skipped; T1 + 6s ran as usual.
    const times = runs.map((r) => r.scheduled_at.getTime() - t1);
    expect(times.slice(0, 3)).toEqual([0, 2000, 6000]);
    const buffered = runs[1]!;
    const waitedMs = buffered.started_at.getTime() - slow.finished_at!.getTime();
    expect(waitedMs).toBeGreaterThanOrEqual(0);
    expect(waitedMs).toBeLessThan(1000);
    for (let i = 1; i < runs.length; i++) expect(ranSideBySide(runs[i - 1]!, runs[i]!)).toBe(false);
    expect(await overlapSkips()).toBeGreaterThan(skipsBefore);
    const calls = callsPerOccurrence(jobId);
    for (const run of runs) expect(calls.get(run.scheduled_at.toISOString())).toBe(1);
    expect(await duplicateRuns(db)).toEqual([]);
  });
});
