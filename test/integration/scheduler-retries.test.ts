// Queued runs in a running service (real scheduler, PostgreSQL, Redis; the model is the fake LLM
// server, the tools' target and the webhook receiver are loopback servers): the job's retry
// policy after model 500s (with its backoff, attempts recorded, one row per occurrence, only the
// final attempt delivered), no retry after a side-effect tool call unless allowed, a failed run
// retried by hand, and a backfill repeated twice.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startService, type RunningService } from '../../src/main.js';
import { cronCallOf, DEFAULT_TENANT, duplicateRuns } from '../helpers/cluster.js';
import { createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm, type Handler } from '../helpers/fake-llm.js';
import { capturingLogger } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';
import { serviceClient } from '../helpers/service-client.js';

const KEY = 'retries-test-key-0123456789abcdef';
const ADMIN = 'retries-test-admin-0123456789abcdef';
let db: pg.Client;
let llm: FakeLlm;
const logged = capturingLogger('json');
let service: RunningService;
let target: http.Server;
let targetUrl = '';
const targetHits: string[] = [];

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  target = http.createServer((req, res) => {
    targetHits.push(`${req.method ?? ''} ${req.url ?? ''}`);
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  llm = await startFakeLlm();
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    REDIS_URL: inject('redisUrl'),
    LLM_API_URL: llm.url,
    SAAS_API_PORT: '0',
    SAAS_API_HOST: '127.0.0.1',
    HERMES_API_KEY: KEY,
    HERMES_ACP_TOKEN: ADMIN,
    HERMES_POD_ID: `retries-test-${Math.random().toString(36).slice(2, 8)}`,
    HTTP_TOOL_ALLOW_PRIVATE_NETWORKS: 'true',
    MANUAL_RUNS_PER_MINUTE: '100',
    SCHEDULER_POLL_INTERVAL: '2s',
    SCHEDULER_SHUTDOWN_GRACE: '1s',
  });
  service = await startService(config, logged.log);
  await waitFor(() => expect(service.scheduler?.running).toBe(true), {
    timeoutMs: 10_000,
    what: 'the scheduler to start',
  });
  const settings = await api(
    'PUT',
    `/v1/tenants/${DEFAULT_TENANT}/agent-settings`,
    { http_allowed_hosts: ['http://127.0.0.1'] },
    ADMIN,
  );
  expect(settings.status).toBe(200);
});

afterEach(async () => {
  await db.query('DELETE FROM cron_jobs');
  await db.query('DELETE FROM webhook_endpoints');
  llm.setHandler(() => ({ content: 'ok' }));
  targetHits.length = 0;
});

afterAll(async () => {
  await service?.stop();
  await db?.end();
  await llm?.close();
  await new Promise<void>((resolve) => target.close(() => resolve()));
});

const { api, createJob } = serviceClient(() => service.url, KEY);

async function triggerAndWaitForRun(jobId: string): Promise<string> {
  expect((await api('POST', `/v1/cron-jobs/${jobId}/trigger`)).status).toBe(202);
  let runId = '';
  await waitFor(
    async () => {
      const { rows } = await db.query<{ id: string }>(
        'SELECT id FROM cron_job_runs WHERE cron_job_id = $1',
        [jobId],
      );
      expect(rows).toHaveLength(1);
      runId = rows[0]!.id;
    },
    { timeoutMs: 10_000, what: 'the triggered run' },
  );
  return runId;
}

interface StoredRun {
  status: string;
  attempt: number;
  error_kind: string | null;
  started_at: Date;
  previous_attempts: {
    attempt: number;
    error_kind: string;
    started_at: string;
    finished_at: string;
  }[];
}

async function runRow(runId: string): Promise<StoredRun> {
  const { rows } = await db.query<StoredRun>(
    `SELECT status, attempt, error_kind, started_at, previous_attempts
       FROM cron_job_runs WHERE id = $1`,
    [runId],
  );
  return rows[0]!;
}

async function waitForFinal(runId: string, timeoutMs = 20_000): Promise<StoredRun> {
  await waitFor(async () => expect(['success', 'failed']).toContain((await runRow(runId)).status), {
    timeoutMs,
    what: 'the run to end',
  });
  return runRow(runId);
}

async function jobCounters(jobId: string) {
  const { rows } = await db.query<{
    run_count: string;
    last_run_success: boolean | null;
    consecutive_failures: number;
  }>('SELECT run_count, last_run_success, consecutive_failures FROM cron_jobs WHERE id = $1', [
    jobId,
  ]);
  return rows[0]!;
}

/** An endpoint of every event type, so the outbox queues a delivery for each finished run. */
async function addEndpoint(): Promise<void> {
  await db.query(
    `INSERT INTO webhook_endpoints (tenant_id, url, secret) VALUES ($1, $2, 'whsec_dGVzdHRlc3R0ZXN0')`,
    [DEFAULT_TENANT, `${targetUrl}/webhook`],
  );
}

async function deliveriesOf(runId: string): Promise<string[]> {
  const { rows } = await db.query<{ event_type: string }>(
    'SELECT event_type FROM webhook_deliveries WHERE run_id = $1 ORDER BY created_at',
    [runId],
  );
  return rows.map((row) => row.event_type);
}

/** Fails the first `failures` model calls of the prompt with a 500, then answers. */
function failingFirst(prompt: string, failures: number): Handler {
  let calls = 0;
  return (body) => {
    if (cronCallOf(body)?.prompt !== prompt) return { content: 'ok' };
    calls += 1;
    return calls <= failures ? { status: 500, errorMessage: 'boom' } : { content: 'done' };
  };
}

/** The model calls http_request once per attempt, then fails with a 500. */
function sideEffectThenFail(prompt: string, method: string): Handler {
  return (body) => {
    if (cronCallOf(body)?.prompt !== prompt) return { content: 'ok' };
    const messages = (body as { messages: { role: string }[] }).messages;
    if (messages.at(-1)?.role !== 'tool') {
      const request = { method, url: `${targetUrl}/effect`, body: '{}' };
      return { toolCalls: [{ name: 'http_request', arguments: JSON.stringify(request) }] };
    }
    return { status: 500, errorMessage: 'boom after the call' };
  };
}

describe('retries of failed attempts', () => {
  it('retries model 500s after the backoff, one row for the occurrence, only the final attempt counted and delivered', async () => {
    llm.setHandler(failingFirst('flaky model', 2));
    await addEndpoint();
    const jobId = await createJob('flaky model', { retry: { max_attempts: 3, backoff: '1s' } });
    expect((await api('GET', `/v1/cron-jobs/${jobId}`)).body.retry).toEqual({
      max_attempts: 3,
      backoff: '1s',
      after_side_effects: false,
    });
    const runId = await triggerAndWaitForRun(jobId);
    const run = await waitForFinal(runId);
    expect(run).toMatchObject({ status: 'success', attempt: 3, error_kind: null });
    expect(run.previous_attempts.map((a) => [a.attempt, a.error_kind])).toEqual([
      [1, 'model_error'],
      [2, 'model_error'],
    ]);
    // Backoff: 1s before the second attempt, 2s before the third.
    const [first, second] = run.previous_attempts;
    const gap = (from: string, to: string | Date) =>
      new Date(to).getTime() - new Date(from).getTime();
    expect(gap(first!.finished_at, second!.started_at)).toBeGreaterThanOrEqual(1000);
    expect(gap(second!.finished_at, run.started_at)).toBeGreaterThanOrEqual(2000);
    expect(await duplicateRuns(db)).toEqual([]);
    // One run for the job's counters and the outbox: the final attempt's.
    expect(await jobCounters(jobId)).toMatchObject({
      run_count: '1',
      last_run_success: true,
      consecutive_failures: 0,
    });
    expect(await deliveriesOf(runId)).toEqual(['run.succeeded']);
    const detail = await api('GET', `/v1/runs/${runId}`);
    expect(detail.body).toMatchObject({ status: 'success', attempt: 3 });
    expect(detail.body.previous_attempts).toHaveLength(2);
    // Each attempt's line: the two the job retried say the run went back to the queue.
    await waitFor(
      () =>
        expect(
          logged.lines
            .map((line) => JSON.parse(line) as { msg: string; run_id?: string; status?: string })
            .filter((line) => line.msg === 'cron job executed' && line.run_id === runId)
            .map((line) => line.status),
        ).toEqual(['queued', 'queued', 'success']),
      { timeoutMs: 5000, what: 'the three attempts logged' },
    );
  });

  it('stops after max_attempts: the last failure is the run’s, delivered once', async () => {
    llm.setHandler(failingFirst('always down', 100));
    await addEndpoint();
    const jobId = await createJob('always down', { retry: { max_attempts: 2, backoff: '1s' } });
    const runId = await triggerAndWaitForRun(jobId);
    const run = await waitForFinal(runId);
    expect(run).toMatchObject({ status: 'failed', attempt: 2, error_kind: 'model_error' });
    expect(run.previous_attempts).toHaveLength(1);
    expect(await jobCounters(jobId)).toMatchObject({ run_count: '1', consecutive_failures: 1 });
    expect(await deliveriesOf(runId)).toEqual(['run.failed']);
  });

  it('does not retry after a side-effect tool call, unless the job allows it', async () => {
    llm.setHandler(sideEffectThenFail('posts then fails', 'POST'));
    const strict = await createJob('posts then fails', {
      retry: { max_attempts: 3, backoff: '1s' },
    });
    const strictRun = await waitForFinal(await triggerAndWaitForRun(strict));
    expect(strictRun).toMatchObject({ status: 'failed', attempt: 1, error_kind: 'model_error' });
    expect(targetHits).toEqual(['POST /effect']);
    await db.query('DELETE FROM cron_jobs');
    targetHits.length = 0;

    const allowed = await createJob('posts then fails', {
      retry: { max_attempts: 2, backoff: '1s', after_side_effects: true },
    });
    const allowedRun = await waitForFinal(await triggerAndWaitForRun(allowed));
    expect(allowedRun).toMatchObject({ status: 'failed', attempt: 2 });
    // The second attempt replays the first one's identical POST instead of sending it again.
    expect(targetHits).toEqual(['POST /effect']);
  });

  it('retries after a GET: reading has no side effect', async () => {
    llm.setHandler(sideEffectThenFail('reads then fails', 'GET'));
    const jobId = await createJob('reads then fails', {
      retry: { max_attempts: 2, backoff: '1s' },
    });
    const run = await waitForFinal(await triggerAndWaitForRun(jobId));
    expect(run).toMatchObject({ status: 'failed', attempt: 2 });
    expect(targetHits).toEqual(['GET /effect', 'GET /effect']);
  });
});

describe('POST /v1/runs/{id}/retry', () => {
  it('runs a failed run’s occurrence again as a new attempt of the same row', async () => {
    llm.setHandler(failingFirst('retry by hand', 1));
    const jobId = await createJob('retry by hand');
    const runId = await triggerAndWaitForRun(jobId);
    expect(await waitForFinal(runId)).toMatchObject({ status: 'failed', attempt: 1 });

    const retried = await api('POST', `/v1/runs/${runId}/retry`);
    expect(retried.status, JSON.stringify(retried.body)).toBe(202);
    expect(retried.body).toMatchObject({
      id: runId,
      status: 'queued',
      attempt: 2,
      origin: 'manual',
    });
    const run = await waitForFinal(runId);
    expect(run).toMatchObject({ status: 'success', attempt: 2 });
    expect(run.previous_attempts.map((a) => [a.attempt, a.error_kind])).toEqual([
      [1, 'model_error'],
    ]);
    expect(await duplicateRuns(db)).toEqual([]);

    const again = await api('POST', `/v1/runs/${runId}/retry`);
    expect(again).toMatchObject({ status: 409, body: { error: { code: 'run_succeeded' } } });
    const missing = await api('POST', '/v1/runs/00000000-0000-0000-0000-00000000abcd/retry');
    expect(missing.status).toBe(404);
  });
});

describe('backfill', () => {
  it('runs each past occurrence without a run once, oldest first; repeating adds nothing', async () => {
    const jobId = await createJob('backfilled', { schedule: '*/10 * * * *' });
    const to = new Date(Math.floor(Date.now() / 600_000) * 600_000);
    const from = new Date(to.getTime() - 3600_000);
    const body = { from: from.toISOString(), to: to.toISOString() };
    const first = await api('POST', `/v1/cron-jobs/${jobId}/backfill`, body);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const expected = Array.from({ length: 6 }, (_, i) =>
      new Date(from.getTime() + i * 600_000).toISOString(),
    );
    expect(first.body).toEqual({
      job_id: jobId,
      added: 6,
      skipped: 0,
      scheduled_at: expected,
      next_from: null,
    });
    const second = await api('POST', `/v1/cron-jobs/${jobId}/backfill`, body);
    expect(second.body).toMatchObject({ added: 0, skipped: 6, scheduled_at: [] });

    await waitFor(
      async () => {
        const { rows } = await db.query<{ count: string }>(
          `SELECT count(*) FROM cron_job_runs
            WHERE cron_job_id = $1 AND status = 'success' AND origin = 'backfill'`,
          [jobId],
        );
        expect(Number(rows[0]!.count)).toBe(6);
      },
      { timeoutMs: 30_000, what: 'the six backfilled runs' },
    );
    const { rows } = await db.query<{ scheduled_at: Date; started_at: Date; origin: string }>(
      `SELECT scheduled_at, started_at, origin FROM cron_job_runs
        WHERE cron_job_id = $1 AND scheduled_at < $2 ORDER BY started_at`,
      [jobId, to],
    );
    expect(rows.map((r) => r.scheduled_at.toISOString())).toEqual(expected);
    expect(new Set(rows.map((r) => r.origin))).toEqual(new Set(['backfill']));
    const third = await api('POST', `/v1/cron-jobs/${jobId}/backfill`, body);
    expect(third.body).toMatchObject({ added: 0, skipped: 6 });
    expect(await duplicateRuns(db)).toEqual([]);
  });

  it('adds at most 100 per request and says where to go on', async () => {
    const jobId = await createJob('wide backfill', { schedule: '* * * * *', enabled: true });
    const to = new Date(Math.floor(Date.now() / 60_000) * 60_000);
    const from = new Date(to.getTime() - 150 * 60_000);
    const answer = await api('POST', `/v1/cron-jobs/${jobId}/backfill`, {
      from: from.toISOString(),
      to: to.toISOString(),
    });
    expect(answer.body).toMatchObject({
      added: 100,
      skipped: 0,
      next_from: new Date(from.getTime() + 100 * 60_000).toISOString(),
    });
    const future = await api('POST', `/v1/cron-jobs/${jobId}/backfill`, {
      from: from.toISOString(),
      to: new Date(Date.now() + 3600_000).toISOString(),
    });
    expect(future).toMatchObject({ status: 400, body: { error: { code: 'validation_error' } } });
  });
});
