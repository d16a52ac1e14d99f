// A call with side effects happens at most once per occurrence, in a running service (real
// scheduler, PostgreSQL, Redis; the model is the fake LLM server, scripted to make the same calls
// in every attempt; the receiver is a loopback server counting requests by Idempotency-Key):
// retried by the job's policy and by hand, each POST reaches the receiver once and the later
// attempts' audit says `replayed`; a call whose outcome was never recorded is sent again with the
// same key; the model's own key is kept; a NUL in arguments leaves its audit row.
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startService, type RunningService } from '../../src/main.js';
import { cronCallOf, DEFAULT_TENANT } from '../helpers/cluster.js';
import { createTestDatabase } from '../helpers/database.js';
import {
  startFakeLlm,
  type FakeLlm,
  type FakeToolCall,
  type Handler,
} from '../helpers/fake-llm.js';
import { silentLogger } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';
import { serviceClient } from '../helpers/service-client.js';

const KEY = 'once-test-key-0123456789abcdef';
const ADMIN = 'once-test-admin-0123456789abcdef';
let db: pg.Client;
let llm: FakeLlm;
let service: RunningService;
let receiver: http.Server;
let receiverUrl = '';
interface Received {
  method: string;
  key: string | undefined;
  body: string;
}
const received: Received[] = [];

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        key: req.headers['idempotency-key'] as string | undefined,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      // Each answer differs: a call made again would show the model another one.
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ served: received.length }));
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  llm = await startFakeLlm();
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    REDIS_URL: inject('redisUrl'),
    LLM_API_URL: llm.url,
    SAAS_API_PORT: '0',
    SAAS_API_HOST: '127.0.0.1',
    HERMES_API_KEY: KEY,
    HERMES_ACP_TOKEN: ADMIN,
    HERMES_POD_ID: `once-test-${Math.random().toString(36).slice(2, 8)}`,
    HTTP_TOOL_ALLOW_PRIVATE_NETWORKS: 'true',
    MANUAL_RUNS_PER_MINUTE: '100',
    SCHEDULER_POLL_INTERVAL: '2s',
    SCHEDULER_SHUTDOWN_GRACE: '1s',
  });
  service = await startService(config, silentLogger());
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
  llm.setHandler(() => ({ content: 'ok' }));
  received.length = 0;
});

afterAll(async () => {
  await service?.stop();
  await db?.end();
  await llm?.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

const { api, createJob } = serviceClient(() => service.url, KEY);

interface StoredRun {
  id: string;
  status: string;
  attempt: number;
  error_kind: string | null;
  scheduled_at: Date;
}

async function runOf(jobId: string): Promise<StoredRun | undefined> {
  const { rows } = await db.query<StoredRun>(
    `SELECT id, status, attempt, error_kind, scheduled_at FROM cron_job_runs
      WHERE cron_job_id = $1`,
    [jobId],
  );
  return rows[0];
}

async function waitForFinal(jobId: string, attempt: number): Promise<StoredRun> {
  return waitFor(
    async () => {
      const run = await runOf(jobId);
      expect(run?.attempt).toBe(attempt);
      expect(['success', 'failed']).toContain(run?.status);
      return run!;
    },
    { timeoutMs: 20_000, what: `attempt ${attempt} to end` },
  );
}

interface AuditRow {
  seq: number;
  call_position: number;
  status: string;
  arguments: { body?: string; headers?: Record<string, string> };
}

async function auditOf(runId: string): Promise<AuditRow[]> {
  const { rows } = await db.query<AuditRow>(
    `SELECT seq, call_position, status, arguments FROM cron_run_tool_calls
      WHERE run_id = $1 ORDER BY seq`,
    [runId],
  );
  return rows;
}

function keyOf(jobId: string, scheduledAt: Date, position: number): string {
  return createHash('sha256')
    .update(`hermesx:${jobId}:${scheduledAt.toISOString()}:${position}`)
    .digest('hex');
}

/**
 * The model of `prompt` asks for `calls` in its first answer, every attempt; given their results
 * it fails with a 500 while `fail()` says so, else answers. The tool results it was shown are
 * kept, one list per attempt.
 */
function scripted(prompt: string, calls: FakeToolCall[], fail: () => boolean) {
  const shown: string[][] = [];
  const handler: Handler = (body) => {
    if (cronCallOf(body)?.prompt !== prompt) return { content: 'ok' };
    const messages = (body as { messages: { role: string; content: string }[] }).messages;
    if (messages.at(-1)?.role !== 'tool') return { toolCalls: calls };
    shown.push(messages.filter((m) => m.role === 'tool').map((m) => m.content));
    return fail() ? { status: 500, errorMessage: 'boom after the calls' } : { content: 'done' };
  };
  return { handler, shown };
}

const post = (body: string, headers?: Record<string, string>): FakeToolCall => ({
  name: 'http_request',
  arguments: JSON.stringify({ method: 'POST', url: `${receiverUrl}/effect`, body, headers }),
});

describe('a call with side effects, once per occurrence', () => {
  it('is made once whether the occurrence is retried by its policy or by hand; later attempts replay it', async () => {
    let failing = true;
    const model = scripted(
      'posts twice then fails',
      [
        post('{"n":1}'),
        post('{"n":2}'),
        { name: 'http_request', arguments: JSON.stringify({ method: 'GET', url: receiverUrl }) },
      ],
      () => failing,
    );
    llm.setHandler(model.handler);
    const jobId = await createJob('posts twice then fails', {
      retry: { max_attempts: 2, backoff: '1s', after_side_effects: true },
    });
    expect((await api('POST', `/v1/cron-jobs/${jobId}/trigger`)).status).toBe(202);
    // Attempt 1 fails after its calls, the policy runs attempt 2, which fails too: the last.
    const failed = await waitForFinal(jobId, 2);
    expect(failed).toMatchObject({ status: 'failed', error_kind: 'model_error' });

    failing = false;
    const retried = await api('POST', `/v1/runs/${failed.id}/retry`);
    expect(retried.status, JSON.stringify(retried.body)).toBe(202);
    const run = await waitForFinal(jobId, 3);
    expect(run.status).toBe('success');

    // One request per POST, each with the key of its position; the GET three times, no key.
    const posts = received.filter((r) => r.method === 'POST');
    expect(posts.map((r) => [r.body, r.key])).toEqual([
      ['{"n":1}', keyOf(jobId, run.scheduled_at, 1)],
      ['{"n":2}', keyOf(jobId, run.scheduled_at, 2)],
    ]);
    expect(posts[0]!.key).not.toBe(posts[1]!.key);
    expect(received.filter((r) => r.method === 'GET').map((r) => r.key)).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    // Every attempt's model saw the first attempt's results of the POSTs.
    expect(model.shown).toHaveLength(3);
    for (const shown of model.shown) expect(shown.slice(0, 2)).toEqual(model.shown[0]!.slice(0, 2));
    expect(JSON.parse(model.shown[0]![0]!)).toMatchObject({ ok: true, status: 201 });

    const audit = await auditOf(run.id);
    expect(audit.map((row) => [row.seq, row.call_position, row.status])).toEqual([
      [1, 1, 'ok'],
      [2, 2, 'ok'],
      [3, 3, 'ok'],
      [4, 1, 'replayed'],
      [5, 2, 'replayed'],
      [6, 3, 'ok'],
      [7, 1, 'replayed'],
      [8, 2, 'replayed'],
      [9, 3, 'ok'],
    ]);
    const listed = await api('GET', `/v1/runs/${run.id}/tool-calls`);
    expect(listed.status).toBe(200);
    expect((listed.body.data as { status: string }[]).map((c) => c.status)).toContain('replayed');
  });

  it('is sent again, with the same key, when its outcome was never recorded', async () => {
    let failing = true;
    const model = scripted('posts, outcome lost', [post('{"lost":true}')], () => failing);
    llm.setHandler(model.handler);
    const jobId = await createJob('posts, outcome lost');
    expect((await api('POST', `/v1/cron-jobs/${jobId}/trigger`)).status).toBe(202);
    const failed = await waitForFinal(jobId, 1);
    expect(failed.status).toBe('failed');
    // As a pod that died between the request and its outcome leaves the row.
    await db.query(
      `UPDATE cron_run_tool_calls SET status = 'started', result = NULL, http_status = NULL
        WHERE run_id = $1`,
      [failed.id],
    );
    failing = false;
    expect((await api('POST', `/v1/runs/${failed.id}/retry`)).status).toBe(202);
    const run = await waitForFinal(jobId, 2);
    expect(run.status).toBe('success');
    const key = keyOf(jobId, run.scheduled_at, 1);
    expect(received.map((r) => [r.method, r.key])).toEqual([
      ['POST', key],
      ['POST', key],
    ]);
    expect((await auditOf(run.id)).map((row) => [row.call_position, row.status])).toEqual([
      [1, 'started'],
      [1, 'ok'],
    ]);
  });

  it('keeps the key the model gave', async () => {
    const model = scripted(
      'own key',
      [post('{}', { 'idempotency-key': 'model-key-1' })],
      () => false,
    );
    llm.setHandler(model.handler);
    const jobId = await createJob('own key');
    expect((await api('POST', `/v1/cron-jobs/${jobId}/trigger`)).status).toBe(202);
    expect((await waitForFinal(jobId, 1)).status).toBe('success');
    expect(received.map((r) => r.key)).toEqual(['model-key-1']);
  });

  it('leaves the audit row of a call with a NUL in its arguments (M4)', async () => {
    const model = scripted('nul in body', [post('{"text":"a\u0000b"}')], () => false);
    llm.setHandler(model.handler);
    const jobId = await createJob('nul in body');
    expect((await api('POST', `/v1/cron-jobs/${jobId}/trigger`)).status).toBe(202);
    const run = await waitForFinal(jobId, 1);
    expect(run).toMatchObject({ status: 'success', error_kind: null });
    expect(received.map((r) => r.body)).toEqual(['{"text":"a\u0000b"}']);
    const audit = await auditOf(run.id);
    expect(audit.map((row) => [row.status, row.arguments.body])).toEqual([
      ['ok', '{"text":"a\uFFFDb"}'],
    ]);
  });
});
