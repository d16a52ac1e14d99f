// Create → trigger → delete, 20 times in a row: the per-tenant manual-run budget holds however
// many jobs come and go, each run that happened stays in the history with its job's name after
// the job is deleted (GET /v1/runs, GET /v1/runs/{id}, GET /v1/cluster), and the run in flight
// of a deleted job is stopped and recorded cancelled, and its run.failed webhook is delivered
// with the job's name. The service runs in this process with its scheduler; the model is a local
// server whose answers never come (the runs hang until stopped); the webhook receiver is local.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startService, type RunningService } from '../../src/main.js';
import { createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { silentLogger } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

const ADMIN = 'admin-token-for-job-soft-delete';
const MANUAL_RUNS_PER_MINUTE = 10;
// More than two budgets, so that whichever minutes the loop spans, one of them is spent.
const CYCLES = 21;
const minuteOf = (ms: number) => Math.floor(ms / 60_000);

let db: pg.Client;
let llm: FakeLlm;
let receiver: Receiver;
let service: RunningService;
let tenantKey: string;
let tenantId: string;

async function api(token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers of several shapes
  return { status: response.status, json: (text ? JSON.parse(text) : {}) as Record<string, any> };
}

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  llm = await startFakeLlm({ handler: () => ({ hang: true }) });
  receiver = await startReceiver();
  service = await startService(
    loadConfig({
      DATABASE_URL: databaseUrl,
      REDIS_URL: inject('redisUrl'),
      LLM_API_URL: llm.url,
      HERMES_ACP_TOKEN: ADMIN,
      SAAS_API_PORT: '0',
      SAAS_API_HOST: '127.0.0.1',
      MANUAL_RUNS_PER_MINUTE: String(MANUAL_RUNS_PER_MINUTE),
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    }),
    silentLogger(),
  );
  await waitFor(() => expect(service.scheduler?.running).toBe(true), { timeoutMs: 10_000 });
  // A tenant as the admin API makes it: every default, no minimum interval between manual runs
  // of one job (the cooldown is per job; the budget, per tenant, is what this test is about).
  const tenant = await api(ADMIN, 'POST', '/v1/tenants', {
    name: 'burst',
    min_schedule_interval_seconds: 0,
  });
  expect(tenant.status).toBe(201);
  tenantId = tenant.json.id as string;
  const key = await api(ADMIN, 'POST', '/v1/api-keys', { tenant_id: tenantId, name: 'burst' });
  tenantKey = key.json.key as string;
  const hook = await api(tenantKey, 'POST', '/v1/webhooks', {
    url: receiver.url,
    events: ['run.failed'],
  });
  expect(hook.status).toBe(201);
  receiver.secrets.push(hook.json.secret as string);
}, 60_000);

afterAll(async () => {
  await service?.stop();
  await db?.end();
  await llm?.close();
  await receiver?.close();
});

async function runsOfJob(jobId: string) {
  const { rows } = await db.query<{ id: string; status: string; error_kind: string | null }>(
    'SELECT id, status, error_kind FROM cron_job_runs WHERE cron_job_id = $1',
    [jobId],
  );
  return rows;
}

describe('create → trigger → delete, in a burst', () => {
  it('spends the tenant budget, keeps every run in the history and stops the one in flight', async () => {
    const tenant = await api(ADMIN, 'GET', `/v1/tenants/${tenantId}`);
    // The default cap on runs in flight at once (docs/security.md).
    expect(tenant.json.max_concurrent_runs).toBe(10);

    const admitted: { jobId: string; runId: string; name: string }[] = [];
    const refused: number[] = [];
    // The budget counts in fixed minutes: each trigger's minute (null: sent across a boundary).
    const minutes: { minute: number | null; admitted: boolean }[] = [];
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const name = `burst ${cycle}`;
      const created = await api(tenantKey, 'POST', '/v1/cron-jobs', {
        name,
        schedule: '@yearly',
        prompt: `cycle ${cycle}`,
      });
      expect(created.status).toBe(201);
      const jobId = created.json.id as string;
      const sentMinute = minuteOf(Date.now());
      const triggered = await api(tenantKey, 'POST', `/v1/cron-jobs/${jobId}/trigger`);
      const minute = minuteOf(Date.now()) === sentMinute ? sentMinute : null;
      minutes.push({ minute, admitted: triggered.status !== 429 });
      if (triggered.status === 429) {
        expect(triggered.json.error.code).toBe('manual_run_budget');
        refused.push(cycle);
      } else {
        expect(triggered.status).toBe(202);
        // The run has reached the model (which never answers) before the job is deleted.
        const run = await waitFor(
          async () => {
            const found = (await runsOfJob(jobId)).find((r) => r.status === 'running');
            if (!found) throw new Error('no run in flight yet');
            return found;
          },
          { timeoutMs: 10_000, intervalMs: 20, what: `the run of cycle ${cycle}` },
        );
        admitted.push({ jobId, runId: run.id, name });
      }
      expect((await api(tenantKey, 'DELETE', `/v1/cron-jobs/${jobId}`)).status).toBe(204);
      expect((await api(tenantKey, 'GET', `/v1/cron-jobs/${jobId}`)).status).toBe(404);
    }

    // The budget held in every minute: deleting and re-creating jobs did not escape it, and a
    // trigger was refused only once its minute's budget was spent.
    expect(refused.length).toBeGreaterThan(0);
    const edges = minutes.filter((m) => m.minute === null).length;
    for (const minute of new Set(minutes.map((m) => m.minute).filter((m) => m !== null))) {
      const inMinute = minutes.filter((m) => m.minute === minute);
      const admittedIn = inMinute.filter((m) => m.admitted).length;
      expect(admittedIn).toBeLessThanOrEqual(MANUAL_RUNS_PER_MINUTE);
      if (inMinute.some((m) => !m.admitted)) {
        expect(admittedIn + edges).toBeGreaterThanOrEqual(MANUAL_RUNS_PER_MINUTE);
      }
    }
    expect(admitted.length + refused.length).toBe(CYCLES);

    // Each deleted job's run was stopped on the pod holding it and recorded cancelled.
    await waitFor(
      async () => {
        for (const { jobId } of admitted) {
          const runs = await runsOfJob(jobId);
          expect(runs).toEqual([
            expect.objectContaining({ status: 'failed', error_kind: 'cancelled' }),
          ]);
        }
      },
      { timeoutMs: 10_000, intervalMs: 50, what: 'every run recorded cancelled' },
    );

    // No job is left in any list, and no job of the burst fires again.
    const jobs = await api(tenantKey, 'GET', '/v1/cron-jobs');
    expect(jobs.json.data).toEqual([]);

    // The history still has every run, with its job's name, in the list and the detail.
    const history = await api(tenantKey, 'GET', '/v1/runs?limit=100');
    expect(history.status).toBe(200);
    const listed = history.json.data as { id: string; job_name: string; error_kind: string }[];
    expect(listed.map((r) => r.id).sort()).toEqual(admitted.map((r) => r.runId).sort());
    for (const run of admitted) {
      expect(listed.find((r) => r.id === run.runId)).toMatchObject({
        job_name: run.name,
        error_kind: 'cancelled',
      });
      const detail = await api(tenantKey, 'GET', `/v1/runs/${run.runId}`);
      expect(detail.status).toBe(200);
      expect(detail.json).toMatchObject({ id: run.runId, job_name: run.name, status: 'failed' });
    }
    const byJob = await api(tenantKey, 'GET', `/v1/runs?job_id=${admitted[0]!.jobId}`);
    expect(byJob.json.data).toHaveLength(1);

    // Each stopped run's webhook went out, signed, with the deleted job's name.
    const delivered = await waitFor(
      () => {
        const events = receiver.received
          .map((m) => m.verified as { data: { id: string; job_name: string; error_kind: string } })
          .filter(Boolean);
        if (events.length < admitted.length) throw new Error(`${events.length} delivered`);
        return events;
      },
      { timeoutMs: 20_000, intervalMs: 100, what: 'every run.failed delivered' },
    );
    expect(delivered.map((e) => e.data.id).sort()).toEqual(admitted.map((r) => r.runId).sort());
    for (const event of delivered) {
      expect(event.data).toMatchObject({
        job_name: admitted.find((r) => r.runId === event.data.id)?.name,
        error_kind: 'cancelled',
      });
    }

    // The operators' cluster page counts them too.
    const cluster = await api(ADMIN, 'GET', '/v1/cluster');
    expect(cluster.status).toBe(200);
    expect(cluster.json.totals.runs_last_hour).toBeGreaterThanOrEqual(MANUAL_RUNS_PER_MINUTE);
    expect(cluster.json.totals.failures_last_hour).toBeGreaterThanOrEqual(MANUAL_RUNS_PER_MINUTE);

    // The quota counts live jobs only: the tenant can create jobs again.
    const again = await api(tenantKey, 'POST', '/v1/cron-jobs', {
      name: 'burst 0',
      schedule: '@yearly',
      prompt: 'again',
    });
    expect(again.status).toBe(201);
  }, 120_000);
});
