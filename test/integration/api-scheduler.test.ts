// The REST API and the scheduler in one process: a job created over HTTP is picked up at once
// (LISTEN/NOTIFY, not the poll), and "run now" is executed and recorded like any run.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startService, type RunningService } from '../../src/main.js';
import { createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { silentLogger } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';

const ADMIN = 'admin-token-for-api-scheduler';
const KEY = 'default-tenant-key-for-api-scheduler';
const DEFAULT_TENANT = '00000000-0000-0000-0000-000000000001';

let db: pg.Client;
let llm: FakeLlm;
let service: RunningService;
let baseUrl: string;

async function api(token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const json = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
  return { status: response.status, json };
}

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  llm = await startFakeLlm({ handler: () => ({ content: 'the time is now' }) });
  service = await startService(
    loadConfig({
      DATABASE_URL: databaseUrl,
      REDIS_URL: inject('redisUrl'),
      LLM_API_URL: llm.url,
      HERMES_ACP_TOKEN: ADMIN,
      HERMES_API_KEY: KEY,
      SAAS_API_PORT: '0',
      SAAS_API_HOST: '127.0.0.1',
      // Far longer than the test: anything picked up quickly came through LISTEN/NOTIFY.
      SCHEDULER_POLL_INTERVAL: '10m',
    }),
    silentLogger(),
  );
  baseUrl = service.url;
  await waitFor(() => expect(service.scheduler?.running).toBe(true), { timeoutMs: 10_000 });
  const patched = await api(ADMIN, 'PATCH', `/v1/tenants/${DEFAULT_TENANT}`, {
    min_schedule_interval_seconds: 0,
  });
  expect(patched.status).toBe(200);
});

afterAll(async () => {
  await service?.stop();
  await db?.end();
  await llm?.close();
});

describe('REST and the running scheduler', () => {
  it('fires a job created over REST at its first occurrence, without waiting for the poll', async () => {
    const createdAtMs = Date.now();
    const created = await api(KEY, 'POST', '/v1/cron-jobs', {
      name: 'every second',
      schedule: '* * * * * *',
      prompt: 'Reply with the current time',
    });
    expect(created.status).toBe(201);
    const id = created.json.id as string;
    const run = await waitFor(
      async () => {
        const { rows } = await db.query<{ scheduled_at: Date; status: string; result: string }>(
          'SELECT scheduled_at, status, result FROM cron_job_runs WHERE cron_job_id = $1 ORDER BY scheduled_at LIMIT 1',
          [id],
        );
        if (rows[0]?.status !== 'success') throw new Error('no finished run yet');
        return rows[0];
      },
      { timeoutMs: 5000, intervalMs: 50 },
    );
    // The first whole second after creation (allow one more for the request's own latency).
    const firstMs = Math.ceil((createdAtMs + 1) / 1000) * 1000;
    expect(run.scheduled_at.getTime()).toBeGreaterThanOrEqual(firstMs);
    expect(run.scheduled_at.getTime()).toBeLessThanOrEqual(firstMs + 1000);
    expect(run.result).toBe('the time is now');
    await api(KEY, 'DELETE', `/v1/cron-jobs/${id}`);
  });

  it('runs a job once on "run now" and records it like any run', async () => {
    const created = await api(KEY, 'POST', '/v1/cron-jobs', {
      name: 'yearly',
      schedule: '@yearly',
      prompt: 'Say hello',
    });
    const id = created.json.id as string;
    const triggered = await api(KEY, 'POST', `/v1/cron-jobs/${id}/trigger`);
    expect(triggered.status).toBe(202);
    const runs = await waitFor(
      async () => {
        const page = await api(KEY, 'GET', `/v1/cron-jobs/${id}/runs`);
        const data = page.json.data as { status: string; scheduled_at: string; pod_id: string }[];
        if (data[0]?.status !== 'success') throw new Error('not finished yet');
        return data;
      },
      { timeoutMs: 5000, intervalMs: 50 },
    );
    expect(runs).toHaveLength(1);
    expect(runs[0]?.scheduled_at).toBe(triggered.json.scheduled_at);
    const job = await api(KEY, 'GET', `/v1/cron-jobs/${id}`);
    expect(job.json).toMatchObject({ run_count: 1, last_run_success: true });
  });
});
