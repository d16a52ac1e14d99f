// Queued runs through the REST API and the scheduler's store on a real PostgreSQL, as the
// application role (row-level security on): the job's retry policy (its rules, and the decision
// the database makes when an attempt fails), the take of due queued runs, backfill's bounds and
// quota, and tenant isolation of backfill and retry.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunOutcome } from '../../src/domain/run.js';
import { createPgJobStore } from '../../src/db/job-store.js';
import {
  buildTestApp,
  call,
  createJob,
  createTenantWithKey,
  expectError,
  type TestApp,
} from '../helpers/api.js';
import { createTestDatabase, withOwner } from '../helpers/database.js';

const NOW = new Date('2030-01-01T00:02:30.000Z');
const MODEL_500: RunOutcome = {
  success: false,
  result: null,
  error: 'the model server answered 500',
  errorKind: 'model_error',
  attempts: 1,
};

describe('queued runs', () => {
  let url: string;
  let api: TestApp;
  let key: string;
  let otherKey: string;

  beforeAll(async () => {
    url = await createTestDatabase();
    api = await buildTestApp({ databaseUrl: url, now: () => NOW, schedulerRunning: () => true });
    key = (await createTenantWithKey(api.app, { min_schedule_interval_seconds: 0 })).key;
    otherKey = (await createTenantWithKey(api.app, { min_schedule_interval_seconds: 0 })).key;
  });

  afterAll(async () => {
    await api?.close();
  });

  it('checks the retry policy, shows it, and clears it with null', async () => {
    const bad = [
      { max_attempts: 0, backoff: '30s' },
      { max_attempts: 11, backoff: '30s' },
      { max_attempts: 3, backoff: '500ms' },
      { max_attempts: 3, backoff: '2h' },
      { max_attempts: 3, backoff: 'soon' },
    ];
    for (const retry of bad) {
      const answer = await call(api.app, key, 'POST', '/v1/cron-jobs', {
        name: 'bad retry',
        schedule: '0 9 * * *',
        prompt: 'x',
        retry,
      });
      expect(answer.statusCode, JSON.stringify(retry)).toBe(400);
      expect(answer.json<{ error: { message: string } }>().error.message).toMatch(/retry/);
    }
    const job = await createJob(api.app, key, { retry: { max_attempts: 3, backoff: '30s' } });
    expect(job.retry).toEqual({ max_attempts: 3, backoff: '30s', after_side_effects: false });
    const patched = await call(api.app, key, 'PATCH', `/v1/cron-jobs/${job.id}`, {
      retry: { max_attempts: 2, backoff: '1m', after_side_effects: true },
    });
    expect(patched.json<{ retry: unknown }>().retry).toEqual({
      max_attempts: 2,
      backoff: '1m0s',
      after_side_effects: true,
    });
    const cleared = await call(api.app, key, 'PATCH', `/v1/cron-jobs/${job.id}`, { retry: null });
    expect(cleared.json<{ retry: unknown }>().retry).toBeNull();
  });

  it('requeues a failed attempt in the database, leaves the job alone, and hands it out after its backoff', async () => {
    const job = await createJob(api.app, key, { retry: { max_attempts: 2, backoff: '1m' } });
    const store = createPgJobStore(api.pool, 'pod-a');
    const claim = await store.claimRun(job.id, new Date('2029-12-31T09:00:00Z'), 'pod-a');
    if (claim.kind !== 'claimed') throw new Error(`not claimed: ${claim.kind}`);
    expect(await store.markSent(claim.run.runId, 'pod-a', 'scheduled')).toBe(true);
    expect(await store.finishRun(claim.run.runId, MODEL_500, 'pod-a')).toBe('requeued');
    const run = await withOwner(url, (client) =>
      client.query<{ status: string; attempt: number; pod_id: string | null; wait_s: number }>(
        `SELECT status, attempt, pod_id, extract(epoch FROM not_before - now())::integer AS wait_s
           FROM cron_job_runs WHERE id = $1`,
        [claim.run.runId],
      ),
    );
    expect(run.rows[0]).toMatchObject({ status: 'queued', attempt: 2, pod_id: null });
    expect(run.rows[0]!.wait_s).toBeGreaterThan(50);
    const counters = await call(api.app, key, 'GET', `/v1/cron-jobs/${job.id}`);
    expect(counters.json()).toMatchObject({ run_count: 0, last_run_at: null });
    // Not due yet: no pod takes it.
    expect(await store.takeQueuedRuns!('pod-a', 10)).toEqual([]);
    await withOwner(url, (client) =>
      client.query('UPDATE cron_job_runs SET not_before = now() WHERE id = $1', [claim.run.runId]),
    );
    const [taken] = await store.takeQueuedRuns!('pod-b', 10);
    expect(taken).toMatchObject({ runId: claim.run.runId, jobId: job.id });
    expect(await store.takeQueuedRuns!('pod-a', 10)).toEqual([]);
    // The second attempt is the last: its failure is the run's.
    expect(await store.markSent(claim.run.runId, 'pod-b')).toBe(true);
    expect(await store.finishRun(claim.run.runId, MODEL_500, 'pod-b')).toBe('recorded');
    const final = await call(api.app, key, 'GET', `/v1/runs/${claim.run.runId}`);
    expect(final.json()).toMatchObject({
      status: 'failed',
      attempt: 2,
      origin: 'scheduled',
      error_kind: 'model_error',
      previous_attempts: [
        { attempt: 1, status: 'failed', error_kind: 'model_error', pod_id: 'pod-a' },
      ],
    });
    expect((await call(api.app, key, 'GET', `/v1/cron-jobs/${job.id}`)).json()).toMatchObject({
      run_count: 1,
      last_run_success: false,
    });
    // Another tenant sees neither the run nor the job.
    expectError(
      await call(api.app, otherKey, 'POST', `/v1/runs/${claim.run.runId}/retry`),
      404,
      'not_found',
    );
    const range = { from: '2029-12-31T00:00:00Z', to: '2030-01-01T00:00:00Z' };
    expectError(
      await call(api.app, otherKey, 'POST', `/v1/cron-jobs/${job.id}/backfill`, range),
      404,
      'not_found',
    );
    // The owner may retry it by hand.
    const retried = await call(api.app, key, 'POST', `/v1/runs/${claim.run.runId}/retry`);
    expect(retried.statusCode).toBe(202);
    expect(retried.json()).toMatchObject({ status: 'queued', attempt: 3, pod_id: null });
    expectError(
      await call(api.app, key, 'POST', `/v1/runs/${claim.run.runId}/retry`),
      409,
      'run_not_finished',
    );
  });

  it('bounds backfill: the range, the retention, and 1,000 queued per tenant', async () => {
    const job = await createJob(api.app, key, { schedule: '* * * * *' });
    const backfill = (from: Date | string, to: Date | string) =>
      call(api.app, key, 'POST', `/v1/cron-jobs/${job.id}/backfill`, {
        from: typeof from === 'string' ? from : from.toISOString(),
        to: typeof to === 'string' ? to : to.toISOString(),
      });
    expectError(await backfill(NOW, new Date(NOW.getTime() - 60_000)), 400, 'validation_error');
    expectError(
      await backfill('2029-01-01T00:00:00Z', '2029-01-02T00:00:00Z'),
      400,
      'validation_error',
    );
    expectError(await backfill('yesterday', NOW), 400, 'validation_error');
    const end = new Date('2030-01-01T00:00:00Z');
    for (let i = 0; i < 10; i++) {
      const to = new Date(end.getTime() - i * 100 * 60_000);
      const answer = await backfill(new Date(to.getTime() - 100 * 60_000), to);
      expect(answer.json(), `request ${i}`).toMatchObject({ added: 100, next_from: null });
    }
    const over = await backfill(
      new Date(end.getTime() - 1100 * 60_000),
      new Date(end.getTime() - 1000 * 60_000),
    );
    expectError(over, 429, 'backfill_quota');
    const queued = await withOwner(url, (client) =>
      client.query<{ count: string; min_origin: string }>(
        "SELECT count(*), min(origin) AS min_origin FROM cron_job_runs WHERE cron_job_id = $1 AND status = 'queued'",
        [job.id],
      ),
    );
    expect(queued.rows[0]).toEqual({ count: '1000', min_origin: 'backfill' });
  });
});
