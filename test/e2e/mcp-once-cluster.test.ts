// At most once per occurrence across a pod SIGKILL, for MCP tools, with real pods and a real MCP
// server on loopback: the run calls `effect` (completes), then `hold`, which the server holds
// open; its pod is killed mid-call, leaving that row `started`. The survivor retries the lost
// attempt (the job allows retries after side effects): `effect` is replayed and not sent again;
// `hold`, whose outcome is unknown, is sent again with the same key in _meta, which the server
// honours.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { cronCallOf, DEFAULT_TENANT, startPod, stopAllPods, type Pod } from '../helpers/cluster.js';
import { createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { startMcpServer, type TestMcpServer } from '../helpers/mcp-server.js';
import { waitFor } from '../helpers/process-wait.js';

let databaseUrl: string;
let db: pg.Client;
let llm: FakeLlm;
let crm: TestMcpServer;

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  crm = await startMcpServer();
  llm = await startFakeLlm();
  await db.query(
    `INSERT INTO tenant_agent_settings (tenant_id, http_allowed_hosts) VALUES ($1, '{http://127.0.0.1}')
     ON CONFLICT (tenant_id) DO UPDATE SET http_allowed_hosts = EXCLUDED.http_allowed_hosts`,
    [DEFAULT_TENANT],
  );
  await db.query(`INSERT INTO mcp_servers (tenant_id, name, url) VALUES ($1, 'crm', $2)`, [
    DEFAULT_TENANT,
    crm.url,
  ]);
});

afterEach(async () => {
  await stopAllPods(3000);
  await db.query('DELETE FROM cron_jobs');
});

afterAll(async () => {
  await stopAllPods(3000);
  await db?.end();
  await llm?.close();
  await crm?.close();
});

function pod(): Promise<Pod> {
  return startPod({
    databaseUrl,
    redisUrl: inject('redisUrl'),
    llmUrl: llm.url,
    podId: `mcp-once-${Math.random().toString(36).slice(2, 8)}`,
    env: { HTTP_TOOL_ALLOW_PRIVATE_NETWORKS: 'true' },
  });
}

const call = (name: string, note: string) => ({
  name: `crm__${name}`,
  arguments: JSON.stringify({ note }),
});

describe('a pod killed during an MCP call with side effects, the job retrying', () => {
  it('replays the completed call and sends the unfinished one again with the same key', async () => {
    llm.setHandler((body) => {
      if (cronCallOf(body)?.prompt !== 'mcp across a kill') return { content: 'ok' };
      const messages = (body as { messages: { role: string }[] }).messages;
      const results = messages.filter((m) => m.role === 'tool').length;
      return results === 0
        ? { toolCalls: [call('effect', 'one')] }
        : results === 1
          ? { toolCalls: [call('hold', 'two')] }
          : { content: 'done' };
    });
    const pods = await Promise.all([1, 2].map(() => pod()));
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt, retry_max_attempts,
                              retry_backoff_ms, retry_after_side_effects, mcp_servers)
       VALUES ($1, 'mcp across a kill', '0 0 1 1 *', 'mcp across a kill', 3, 1000, true, '{crm}')
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
    await waitFor(() => expect(crm.held()).toBe(1), {
      timeoutMs: 20_000,
      intervalMs: 100,
      what: 'the hold call to be under way',
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
    expect(crm.calls.filter((c) => c.tool === 'effect' || c.tool === 'hold')).toEqual([
      { tool: 'effect', key: key(1) },
      { tool: 'hold', key: key(2) },
      { tool: 'hold', key: key(2) },
    ]);
    expect(crm.effects.get(key(1))).toBe(1);
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
