// At most once per occurrence across a pod SIGKILL, with real pods: the run POSTs twice; the
// second POST is under way when its pod is killed, leaving its audit row `started`. The survivor
// retries the lost attempt (the job allows retries after side effects): the first POST, which
// completed, is replayed and not sent again; the second, whose outcome is unknown, is sent again
// with the same Idempotency-Key.
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { cronCallOf, DEFAULT_TENANT, startPod, stopAllPods, type Pod } from '../helpers/cluster.js';
import { createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { waitFor } from '../helpers/process-wait.js';

let databaseUrl: string;
let db: pg.Client;
let llm: FakeLlm;
let receiver: http.Server;
let receiverUrl = '';
const received: { body: string; key: string | undefined }[] = [];
/** Requests held open (the first of the second POST), ended when the receiver closes. */
const held: http.ServerResponse[] = [];

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ body, key: req.headers['idempotency-key'] as string | undefined });
      if (body === '{"n":2}' && received.filter((r) => r.body === body).length === 1) {
        held.push(res);
        return;
      }
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ served: received.length }));
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  llm = await startFakeLlm();
  await db.query(
    `INSERT INTO tenant_agent_settings (tenant_id, http_allowed_hosts) VALUES ($1, '{http://127.0.0.1}')
     ON CONFLICT (tenant_id) DO UPDATE SET http_allowed_hosts = EXCLUDED.http_allowed_hosts`,
    [DEFAULT_TENANT],
  );
});

afterEach(async () => {
  await stopAllPods(3000);
  await db.query('DELETE FROM cron_jobs');
});

afterAll(async () => {
  await stopAllPods(3000);
  await db?.end();
  await llm?.close();
  for (const res of held) res.destroy();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

function pod(): Promise<Pod> {
  return startPod({
    databaseUrl,
    redisUrl: inject('redisUrl'),
    llmUrl: llm.url,
    podId: `once-${Math.random().toString(36).slice(2, 8)}`,
    env: { HTTP_TOOL_ALLOW_PRIVATE_NETWORKS: 'true' },
  });
}

const post = (n: number) => ({
  name: 'http_request',
  arguments: JSON.stringify({ method: 'POST', url: `${receiverUrl}/effect`, body: `{"n":${n}}` }),
});

describe('a pod killed during a call with side effects, the job retrying', () => {
  it('replays the completed call and sends the unfinished one again with the same key', async () => {
    llm.setHandler((body) => {
      if (cronCallOf(body)?.prompt !== 'posts across a kill') return { content: 'ok' };
      const messages = (body as { messages: { role: string }[] }).messages;
      const results = messages.filter((m) => m.role === 'tool').length;
      return results === 0
        ? { toolCalls: [post(1)] }
        : results === 1
          ? { toolCalls: [post(2)] }
          : { content: 'done' };
    });
    const pods = await Promise.all([1, 2].map(() => pod()));
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt, retry_max_attempts,
                              retry_backoff_ms, retry_after_side_effects)
       VALUES ($1, 'posts across a kill', '0 0 1 1 *', 'posts across a kill', 3, 1000, true)
       RETURNING id`,
      [DEFAULT_TENANT],
    );
    const jobId = rows[0]!.id;
    const inserted = await db.query<{ id: string; scheduled_at: Date }>(
      `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, pod_id, origin,
                                  not_before)
       VALUES ($1, $2, date_trunc('minute', now()) - interval '1 hour', 'queued', NULL, 'backfill',
               now())
       RETURNING id, scheduled_at`,
      [jobId, DEFAULT_TENANT],
    );
    const { id: runId, scheduled_at: scheduledAt } = inserted.rows[0]!;
    // The second POST reached the receiver, which holds it: the call is under way.
    await waitFor(() => expect(held).toHaveLength(1), {
      timeoutMs: 15_000,
      intervalMs: 100,
      what: 'the second POST to be under way',
    });
    const { rows: running } = await db.query<{ pod_id: string }>(
      'SELECT pod_id FROM cron_job_runs WHERE id = $1',
      [runId],
    );
    const victim = pods.find((p) => p.podId === running[0]!.pod_id)!;
    expect(await victim.kill('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });

    await waitFor(
      async () => {
        const { rows: done } = await db.query<{ status: string; attempt: number }>(
          'SELECT status, attempt FROM cron_job_runs WHERE id = $1',
          [runId],
        );
        expect(done[0]).toEqual({ status: 'success', attempt: 2 });
      },
      { timeoutMs: 45_000, intervalMs: 200, what: 'the retried attempt to succeed' },
    );
    const key = (position: number) =>
      createHash('sha256')
        .update(`hermesx:${jobId}:${scheduledAt.toISOString()}:${position}`)
        .digest('hex');
    expect(received).toEqual([
      { body: '{"n":1}', key: key(1) },
      { body: '{"n":2}', key: key(2) },
      { body: '{"n":2}', key: key(2) },
    ]);
    const audit = await db.query<{ call_position: number; status: string }>(
      'SELECT call_position, status FROM cron_run_tool_calls WHERE run_id = $1 ORDER BY seq',
      [runId],
    );
    expect(audit.rows.map((row) => [row.call_position, row.status])).toEqual([
      [1, 'ok'],
      [2, 'started'],
      [1, 'replayed'],
      [2, 'ok'],
    ]);
  }, 90_000);
});
