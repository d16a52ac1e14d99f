// Backfill and the run budgets, through the REST API on a real PostgreSQL as the application
// role: occurrences backfilled per tenant per day are counted in the database and deleting the
// job does not give them back (429 backfill_budget); a tenant's queued runs are bounded (429
// queue_full, backfill and retry by hand alike); deleting a job with many queued runs cancels
// them without a run.failed delivery each.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as endpoints from '../../src/webhooks/endpoints.js';
import {
  buildTestApp,
  call,
  createJob,
  createTenantWithKey,
  expectError,
  type TestApp,
} from '../helpers/api.js';
import { createTestDatabase, withOwner } from '../helpers/database.js';

const NOW = new Date('2030-01-01T00:00:00.000Z');
const MINUTE_MS = 60_000;

let url: string;
let budgetApi: TestApp;
let queueApi: TestApp;

beforeAll(async () => {
  url = await createTestDatabase();
  budgetApi = await buildTestApp({
    databaseUrl: url,
    now: () => NOW,
    schedulerRunning: () => true,
    config: { BACKFILL_RUNS_PER_DAY: '250' },
  });
  queueApi = await buildTestApp({
    databaseUrl: url,
    now: () => NOW,
    schedulerRunning: () => true,
    config: { MAX_QUEUED_RUNS_PER_TENANT: '150' },
  });
});

afterAll(async () => {
  await budgetApi?.close();
  await queueApi?.close();
});

/** POST /v1/cron-jobs/{id}/backfill of `count` minutes ending `endMinutesAgo` before NOW. */
function backfill(api: TestApp, key: string, jobId: string, count: number, endMinutesAgo = 0) {
  const to = new Date(NOW.getTime() - endMinutesAgo * MINUTE_MS);
  const from = new Date(to.getTime() - count * MINUTE_MS);
  return call(api.app, key, 'POST', `/v1/cron-jobs/${jobId}/backfill`, {
    from: from.toISOString(),
    to: to.toISOString(),
  });
}

async function queuedOf(jobId: string): Promise<number> {
  const { rows } = await withOwner(url, (client) =>
    client.query<{ count: number }>(
      "SELECT count(*)::integer AS count FROM cron_job_runs WHERE cron_job_id = $1 AND status = 'queued'",
      [jobId],
    ),
  );
  return rows[0]!.count;
}

describe('the backfill budget', () => {
  it('refuses beyond BACKFILL_RUNS_PER_DAY, and deleting the jobs does not free it', async () => {
    const { key } = await createTenantWithKey(budgetApi.app, { min_schedule_interval_seconds: 0 });
    const { key: otherKey } = await createTenantWithKey(budgetApi.app, {
      min_schedule_interval_seconds: 0,
    });
    // Create, backfill, delete: each cycle's occurrences stay charged.
    for (let cycle = 0; cycle < 2; cycle++) {
      const job = await createJob(budgetApi.app, key, { schedule: '* * * * *' });
      const answer = await backfill(budgetApi, key, job.id, 100);
      expect(answer.json(), `cycle ${cycle}`).toMatchObject({ added: 100, next_from: null });
      expect((await call(budgetApi.app, key, 'DELETE', `/v1/cron-jobs/${job.id}`)).statusCode).toBe(
        204,
      );
      expect(await queuedOf(job.id)).toBe(0);
    }
    // 50 left today: a request for 100 queues 50 and says where to go on.
    const third = await createJob(budgetApi.app, key, { schedule: '* * * * *' });
    const partial = await backfill(budgetApi, key, third.id, 100);
    expect(partial.json()).toMatchObject({ added: 50, next_from: expect.any(String) as unknown });
    expect((await call(budgetApi.app, key, 'DELETE', `/v1/cron-jobs/${third.id}`)).statusCode).toBe(
      204,
    );
    const fourth = await createJob(budgetApi.app, key, { schedule: '* * * * *' });
    const refused = await backfill(budgetApi, key, fourth.id, 10);
    expectError(refused, 429, 'backfill_budget');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect(await queuedOf(fourth.id)).toBe(0);
    // Another tenant has its own budget.
    const elsewhere = await createJob(budgetApi.app, otherKey, { schedule: '* * * * *' });
    expect((await backfill(budgetApi, otherKey, elsewhere.id, 10)).json()).toMatchObject({
      added: 10,
    });
  });
});

describe('a deleted job with many queued runs', () => {
  it('cancels them without a run.failed delivery each', async () => {
    const { tenant, key } = await createTenantWithKey(queueApi.app, {
      min_schedule_interval_seconds: 0,
    });
    await endpoints.createEndpoint(
      { pool: queueApi.pool, now: () => NOW, allowPrivateNetworks: true, maxEndpoints: 10 },
      tenant.id,
      { url: 'http://127.0.0.1:9/never-sent', events: ['run.failed'] },
    );
    const job = await createJob(queueApi.app, key, { schedule: '* * * * *' });
    expect((await backfill(queueApi, key, job.id, 100)).json()).toMatchObject({ added: 100 });
    expect((await backfill(queueApi, key, job.id, 40, 100)).json()).toMatchObject({ added: 40 });
    expect((await call(queueApi.app, key, 'DELETE', `/v1/cron-jobs/${job.id}`)).statusCode).toBe(
      204,
    );
    const { rows } = await withOwner(url, (client) =>
      client.query<{ status: string; error_kind: string; runs: number; deliveries: number }>(
        `SELECT r.status, r.error_kind, count(*)::integer AS runs,
                (SELECT count(*)::integer FROM webhook_deliveries d
                  WHERE d.cron_job_id = $1) AS deliveries
           FROM cron_job_runs r WHERE r.cron_job_id = $1 GROUP BY 1, 2`,
        [job.id],
      ),
    );
    expect(rows).toEqual([{ status: 'failed', error_kind: 'cancelled', runs: 140, deliveries: 0 }]);
  });
});

describe('the queued-run bound', () => {
  it('refuses backfills and retries by hand beyond MAX_QUEUED_RUNS_PER_TENANT', async () => {
    const { tenant, key } = await createTenantWithKey(queueApi.app, {
      min_schedule_interval_seconds: 0,
    });
    const first = await createJob(queueApi.app, key, { schedule: '* * * * *' });
    const second = await createJob(queueApi.app, key, { schedule: '* * * * *' });
    expect((await backfill(queueApi, key, first.id, 100)).json()).toMatchObject({ added: 100 });
    // 50 places left: a request for 100 takes them and says where to go on.
    expect((await backfill(queueApi, key, second.id, 100)).json()).toMatchObject({
      added: 50,
      next_from: expect.any(String) as unknown,
    });
    const full = await backfill(queueApi, key, second.id, 10, 200);
    expectError(full, 429, 'queue_full');
    expect(Number(full.headers['retry-after'])).toBeGreaterThan(0);
    // A failed run retried by hand would be one more queued run.
    const { rows } = await withOwner(url, (client) =>
      client.query<{ id: string }>(
        `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, finished_at,
                                    error, error_kind)
         VALUES ($1, $2, now() - interval '3 hours', 'failed', now(), 'the model failed',
                 'model_error')
         RETURNING id`,
        [first.id, tenant.id],
      ),
    );
    expectError(
      await call(queueApi.app, key, 'POST', `/v1/runs/${rows[0]!.id}/retry`),
      429,
      'queue_full',
    );
    expect((await queuedOf(first.id)) + (await queuedOf(second.id))).toBe(150);
  });
});
