// Run controls on two real `saas-api` pods: POST /v1/runs/{id}/cancel reaches the pod holding
// the run, whichever pod the API call lands on, and the run is recorded `cancelled` within a
// second, as is the run of a job deleted through another pod; a job's jitter delays each occurrence by the same offset whichever pod runs it.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  cronCallOf,
  DEFAULT_TENANT,
  runsOf,
  startPod,
  stopAllPods,
  type Pod,
} from '../helpers/cluster.js';
import { jitterOffsetMs } from '../../src/schedule/jitter.js';
import { createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { waitFor } from '../helpers/process-wait.js';

const KEY = 'cancel-test-default-tenant-key-0123456789';

let db: pg.Client;
let llm: FakeLlm;
let pods: Pod[];

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  llm = await startFakeLlm();
  const tag = Math.random().toString(36).slice(2, 8);
  pods = await Promise.all(
    [1, 2].map((i) =>
      startPod({
        databaseUrl,
        redisUrl: inject('redisUrl'),
        llmUrl: llm.url,
        podId: `cancel-${tag}-${i}`,
        env: { HERMES_API_KEY: KEY },
      }),
    ),
  );
}, 60_000);

afterAll(async () => {
  await stopAllPods();
  await db?.end();
  await llm?.close();
});

const cancel = (pod: Pod, runId: string) =>
  fetch(`${pod.url}/v1/runs/${runId}/cancel`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}` },
  });

describe('cancelling a run', () => {
  it('reaches the pod holding the run from another pod, and records it cancelled within a second', async () => {
    llm.setHandler((body) =>
      cronCallOf(body)?.prompt === 'hang' ? { hang: true } : { content: 'ok' },
    );
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt, max_runs)
       VALUES ($1, 'long one', '* * * * * *', 'hang', 1) RETURNING id`,
      [DEFAULT_TENANT],
    );
    const jobId = rows[0]!.id;
    const running = await waitFor(
      async () => {
        const run = (await runsOf(db, [jobId])).find((r) => r.status === 'running');
        if (!run) throw new Error('no run in flight yet');
        return run;
      },
      { timeoutMs: 15_000, what: 'a run in flight' },
    );
    const holder = pods.find((p) => p.podId === running.pod_id)!;
    const other = pods.find((p) => p !== holder)!;
    expect(holder).toBeDefined();
    // A fired run is 'running' from its claim, a moment before its request leaves: cancel once
    // the model has the request, so the cancel has a request in flight to abandon.
    await waitFor(
      () => expect(llm.calls.some((c) => cronCallOf(c.body)?.jobId === jobId)).toBe(true),
      { timeoutMs: 5000, what: 'the model to have the run’s request' },
    );

    const askedAtMs = Date.now();
    const answer = await cancel(other, running.id);
    expect(answer.status).toBe(202);
    expect(await answer.json()).toEqual({
      run_id: running.id,
      cron_job_id: jobId,
      status: 'cancelling',
    });
    const cancelled = await waitFor(
      async () => {
        const [run] = await runsOf(db, [jobId]);
        if (run?.status !== 'failed') throw new Error(`still ${run?.status}`);
        return run;
      },
      { timeoutMs: 5000, intervalMs: 20, what: 'the run to be cancelled' },
    );
    expect(cancelled).toMatchObject({
      status: 'failed',
      error_kind: 'cancelled',
      error: 'cancelled: stopped by request',
      pod_id: holder.podId,
    });
    expect(cancelled.finished_at!.getTime() - askedAtMs).toBeLessThan(1000);
    // The model request was abandoned, not waited for.
    await waitFor(
      () =>
        expect(llm.calls.some((c) => cronCallOf(c.body)?.jobId === jobId && c.aborted)).toBe(true),
      { timeoutMs: 5000, what: 'the model call to be aborted' },
    );
    // A finished run cannot be cancelled; an unknown one is not found.
    expect((await cancel(holder, running.id)).status).toBe(409);
    expect((await cancel(holder, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  it('stops the run of a job deleted through another pod, and keeps it in the history', async () => {
    llm.setHandler((body) =>
      cronCallOf(body)?.prompt === 'hang until deleted' ? { hang: true } : { content: 'ok' },
    );
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt, max_runs)
       VALUES ($1, 'deleted one', '* * * * * *', 'hang until deleted', 1) RETURNING id`,
      [DEFAULT_TENANT],
    );
    const jobId = rows[0]!.id;
    const running = await waitFor(
      async () => {
        const run = (await runsOf(db, [jobId])).find((r) => r.status === 'running');
        if (!run) throw new Error('no run in flight yet');
        return run;
      },
      { timeoutMs: 15_000, what: 'a run in flight' },
    );
    const holder = pods.find((p) => p.podId === running.pod_id)!;
    const other = pods.find((p) => p !== holder)!;
    const askedAtMs = Date.now();
    const deleted = await fetch(`${other.url}/v1/cron-jobs/${jobId}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${KEY}` },
    });
    expect(deleted.status).toBe(204);
    const cancelled = await waitFor(
      async () => {
        const [run] = await runsOf(db, [jobId]);
        if (run?.status !== 'failed') throw new Error(`still ${run?.status}`);
        return run;
      },
      { timeoutMs: 5000, intervalMs: 20, what: 'the run to be cancelled' },
    );
    expect(cancelled).toMatchObject({ error_kind: 'cancelled', pod_id: holder.podId });
    expect(cancelled.finished_at!.getTime() - askedAtMs).toBeLessThan(1000);
    const detail = await fetch(`${holder.url}/v1/runs/${running.id}`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    expect(detail.status).toBe(200);
    expect(await detail.json()).toMatchObject({ job_name: 'deleted one', status: 'failed' });
  });
});

describe('jitter on two pods', () => {
  it('starts each occurrence at its deterministic offset; scheduled_at stays nominal', async () => {
    llm.setHandler(() => ({ content: 'ok' }));
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt, jitter_ms, max_runs)
       VALUES ($1, 'spread', '*/4 * * * * *', 'spread', 3000, 4) RETURNING id`,
      [DEFAULT_TENANT],
    );
    const jobId = rows[0]!.id;
    const runs = await waitFor(
      async () => {
        const all = await runsOf(db, [jobId]);
        if (all.filter((r) => r.status === 'success').length < 4)
          throw new Error(`${all.length} runs`);
        return all;
      },
      { timeoutMs: 40_000, intervalMs: 200, what: 'four runs' },
    );
    expect(runs).toHaveLength(4);
    for (const run of runs) {
      const nominalMs = run.scheduled_at.getTime();
      expect(nominalMs % 4000).toBe(0);
      const offsetMs = jitterOffsetMs(jobId, nominalMs, 3000);
      const lagMs = run.started_at.getTime() - nominalMs;
      expect(lagMs).toBeGreaterThanOrEqual(offsetMs - 50);
      expect(lagMs).toBeLessThan(offsetMs + 1000);
    }
  });
});
