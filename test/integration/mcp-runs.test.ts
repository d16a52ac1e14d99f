// MCP servers in a running service (real scheduler, PostgreSQL, Redis, a real MCP server on
// loopback; the model is the fake LLM server): /v1/mcp-servers and its bounds, a job's
// mcp_servers, chat offered every server, and a run whose MCP call with side effects reaches
// the server once per occurrence whether it is retried by its policy or by hand (later attempts
// replay it), with the occurrence's idempotency key in _meta.
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startService, type RunningService } from '../../src/main.js';
import { cronCallOf, DEFAULT_TENANT } from '../helpers/cluster.js';
import { createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm, type Handler } from '../helpers/fake-llm.js';
import { silentLogger } from '../helpers/log.js';
import { startMcpServer, type TestMcpServer } from '../helpers/mcp-server.js';
import { waitFor } from '../helpers/process-wait.js';
import { serviceClient } from '../helpers/service-client.js';

const KEY = 'mcp-runs-key-0123456789abcdef';
const ADMIN = 'mcp-runs-admin-0123456789abcdef';
const TOKEN = 'crm-bearer-token-9f8e7d6c5b';
let db: pg.Client;
let llm: FakeLlm;
let service: RunningService;
let crm: TestMcpServer;
let crmId = '';

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  crm = await startMcpServer({ token: TOKEN });
  llm = await startFakeLlm();
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    REDIS_URL: inject('redisUrl'),
    LLM_API_URL: llm.url,
    SAAS_API_PORT: '0',
    SAAS_API_HOST: '127.0.0.1',
    HERMES_API_KEY: KEY,
    HERMES_ACP_TOKEN: ADMIN,
    HERMES_SECRETS_KEY: randomBytes(32).toString('hex'),
    HERMES_POD_ID: `mcp-runs-${Math.random().toString(36).slice(2, 8)}`,
    HTTP_TOOL_ALLOW_PRIVATE_NETWORKS: 'true',
    MCP_MAX_SERVERS_PER_TENANT: '3',
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
  expect((await api('PUT', '/v1/secrets/CRM_TOKEN', { value: TOKEN })).status).toBe(201);
});

afterAll(async () => {
  await service?.stop();
  await db?.end();
  await llm?.close();
  await crm?.close();
});

const { api, createJob } = serviceClient(() => service.url, KEY);

describe('/v1/mcp-servers', () => {
  it('registers a server and lists its tools; shows the header template, never the secret', async () => {
    const created = await api('POST', '/v1/mcp-servers', {
      name: 'crm',
      url: crm.url,
      headers: { Authorization: 'Bearer {{secrets.CRM_TOKEN}}' },
      description: 'the CRM',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    crmId = created.body.id as string;
    expect(created.body).toMatchObject({
      name: 'crm',
      headers: { Authorization: 'Bearer {{secrets.CRM_TOKEN}}' },
      allowed_tools: null,
      test: { ok: true },
    });
    const tools = (created.body.test as { tools: { name: string; offered_as: string }[] }).tools;
    expect(tools.find((tool) => tool.name === 'effect')).toMatchObject({
      offered_as: 'crm__effect',
      read_only: false,
    });
    expect(tools.find((tool) => tool.name === 'lookup')).toMatchObject({ read_only: true });
    const listed = await api('GET', '/v1/mcp-servers');
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).not.toContain(TOKEN);
    expect((await api('GET', `/v1/mcp-servers/${crmId}`)).body).toMatchObject({ name: 'crm' });
    const patched = await api('PATCH', `/v1/mcp-servers/${crmId}`, { description: 'CRM, v2' });
    expect(patched.body).toMatchObject({ description: 'CRM, v2', name: 'crm' });
  });

  it('refuses bad input, hosts off the allow-list, a taken name, and more than MCP_MAX_SERVERS_PER_TENANT', async () => {
    const post = (body: Record<string, unknown>) => api('POST', '/v1/mcp-servers', body);
    expect((await post({ name: 'Bad Name', url: crm.url })).body).toMatchObject({
      error: { code: 'invalid_name' },
    });
    const offList = await post({ name: 'elsewhere', url: 'https://mcp.example.com/mcp' });
    expect(offList.status).toBe(422);
    expect(offList.body).toMatchObject({ error: { code: 'host_not_allowed' } });
    const header = await post({ name: 'hdr', url: crm.url, headers: { 'Mcp-Session-Id': 'x' } });
    expect(header.status).toBe(400);
    expect((await post({ name: 'crm', url: crm.url })).status).toBe(409);
    // A server that answers nothing is stored; its test names why.
    const down = await post({ name: 'down', url: 'http://127.0.0.1:9/mcp' });
    expect(down.status).toBe(201);
    expect(down.body).toMatchObject({ test: { ok: false, error: { code: 'refused' } } });
    const noAuth = await post({ name: 'noauth', url: crm.url });
    expect(noAuth.body).toMatchObject({ test: { ok: false, error: { code: 'unauthorized' } } });
    const over = await post({ name: 'fourth', url: crm.url });
    expect(over.status).toBe(409);
    expect(over.body).toMatchObject({ error: { code: 'mcp_server_limit' } });
    expect((over.body.error as { message: string }).message).toContain(
      'MCP_MAX_SERVERS_PER_TENANT',
    );
    for (const id of [down.body.id, noAuth.body.id]) {
      expect((await api('DELETE', `/v1/mcp-servers/${id as string}`)).status).toBe(204);
    }
    expect((await api('GET', `/v1/mcp-servers/${down.body.id as string}`)).status).toBe(404);
    const tested = await api('POST', `/v1/mcp-servers/${crmId}/test`);
    expect(tested.status).toBe(200);
    expect(tested.body).toMatchObject({ ok: true });
  });

  it("is the tenant's own: another tenant sees none of it", async () => {
    const tenant = await api('POST', '/v1/tenants', { name: 'other' }, ADMIN);
    expect(tenant.status, JSON.stringify(tenant.body)).toBe(201);
    const key = await api(
      'POST',
      '/v1/api-keys',
      { tenant_id: tenant.body.id, name: 'other key' },
      ADMIN,
    );
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    const other = key.body.key as string;
    expect((await api('GET', '/v1/mcp-servers', undefined, other)).body).toEqual({ data: [] });
    expect((await api('GET', `/v1/mcp-servers/${crmId}`, undefined, other)).status).toBe(404);
    expect((await api('DELETE', `/v1/mcp-servers/${crmId}`, undefined, other)).status).toBe(404);
    expect((await api('DELETE', '/v1/mcp-servers/not-an-id')).status).toBe(404);
    expect((await api('POST', '/v1/mcp-servers/not-an-id/test')).status).toBe(404);
  });
});

describe('a job and a chat turn', () => {
  it("a job names its servers (mcp_servers, default none); chat is offered every server's tools", async () => {
    const plain = await createJob('no servers');
    expect((await api('GET', `/v1/cron-jobs/${plain}`)).body).toMatchObject({ mcp_servers: [] });
    const bad = await api('POST', '/v1/cron-jobs', {
      name: 'bad',
      schedule: '0 0 1 1 *',
      prompt: 'x',
      mcp_servers: ['Not A Name'],
    });
    expect(bad.status).toBe(400);
    let offered: string[] = [];
    llm.setHandler((body) => {
      offered = ((body as { tools?: { function: { name: string } }[] }).tools ?? []).map(
        (tool) => tool.function.name,
      );
      return { content: 'hi' };
    });
    const chat = await api('POST', '/v1/chat/completions', {
      model: 'test',
      messages: [{ role: 'user', content: 'what can you do?' }],
    });
    expect(chat.status, JSON.stringify(chat.body)).toBe(200);
    expect(offered).toEqual(expect.arrayContaining(['crm__effect', 'crm__lookup', 'cronjob']));
  });
});

describe('a run calling an MCP tool with side effects, once per occurrence', () => {
  it('reaches the server once per call across policy retries and a manual retry; later attempts replay', async () => {
    let failing = true;
    const shown: string[][] = [];
    const offeredToRun: string[][] = [];
    const handler: Handler = (body) => {
      if (cronCallOf(body)?.prompt !== 'update the crm') return { content: 'ok' };
      const request = body as {
        messages: { role: string; content: string }[];
        tools?: { function: { name: string } }[];
      };
      if (request.messages.at(-1)?.role !== 'tool') {
        offeredToRun.push((request.tools ?? []).map((tool) => tool.function.name));
        return {
          toolCalls: [
            { name: 'crm__effect', arguments: JSON.stringify({ note: 'deal won' }) },
            { name: 'crm__lookup', arguments: JSON.stringify({ q: 'deal' }) },
          ],
        };
      }
      shown.push(request.messages.filter((m) => m.role === 'tool').map((m) => m.content));
      return failing ? { status: 500, errorMessage: 'boom after the calls' } : { content: 'done' };
    };
    llm.setHandler(handler);
    const jobId = await createJob('update the crm', {
      mcp_servers: ['crm'],
      retry: { max_attempts: 2, backoff: '1s', after_side_effects: true },
    });
    expect((await api('POST', `/v1/cron-jobs/${jobId}/trigger`)).status).toBe(202);
    const failed = await waitForFinal(jobId, 2);
    expect(failed).toMatchObject({ status: 'failed', error_kind: 'model_error' });
    failing = false;
    const retried = await api('POST', `/v1/runs/${failed.id}/retry`);
    expect(retried.status, JSON.stringify(retried.body)).toBe(202);
    const run = await waitForFinal(jobId, 3);
    expect(run.status).toBe('success');

    expect(offeredToRun[0]).toEqual(expect.arrayContaining(['crm__effect', 'crm__lookup']));
    const effectKey = keyOf(jobId, run.scheduled_at, 1);
    // One call with side effects reached the server, with the key of its position.
    expect([...crm.effects.entries()].filter(([key]) => key === effectKey)).toEqual([
      [effectKey, 1],
    ]);
    const effectCalls = crm.calls.filter((call) => call.tool === 'effect');
    expect(effectCalls.filter((call) => call.key === effectKey)).toHaveLength(1);
    // The read-only lookup is made by every attempt, with its own position's key.
    const lookups = crm.calls.filter((call) => call.key === keyOf(jobId, run.scheduled_at, 2));
    expect(lookups.map((call) => call.tool)).toEqual(['lookup', 'lookup', 'lookup']);
    // Every attempt's model saw the first attempt's result of the call with side effects.
    expect(shown).toHaveLength(3);
    for (const results of shown) expect(results[0]).toBe(shown[0]![0]);
    expect(JSON.parse(shown[0]![0]!)).toMatchObject({
      ok: true,
      content: [{ type: 'text', text: 'applied deal won (1)' }],
    });
    const { rows } = await db.query<{ tool: string; status: string; call_position: number }>(
      `SELECT tool, status, call_position FROM cron_run_tool_calls WHERE run_id = $1 ORDER BY seq`,
      [run.id],
    );
    expect(rows.map((row) => [row.tool, row.call_position, row.status])).toEqual([
      ['crm__effect', 1, 'ok'],
      ['crm__lookup', 2, 'ok'],
      ['crm__effect', 1, 'replayed'],
      ['crm__lookup', 2, 'ok'],
      ['crm__effect', 1, 'replayed'],
      ['crm__lookup', 2, 'ok'],
    ]);
    // The token reached the server only: nothing stored holds it.
    const stored = await db.query(
      `SELECT count(*)::int AS n FROM cron_run_tool_calls
        WHERE arguments::text LIKE $1 OR coalesce(result, '') LIKE $1`,
      [`%${TOKEN}%`],
    );
    expect(stored.rows[0]).toEqual({ n: 0 });
  });

  it('tells the run about a server it names that does not exist, and goes on', async () => {
    let system = '';
    llm.setHandler((body) => {
      const call = cronCallOf(body);
      if (call?.prompt !== 'names a missing server') return { content: 'ok' };
      system = (body as { messages: { role: string; content: string }[] }).messages
        .filter((m) => m.role === 'system')
        .map((m) => m.content)
        .join('\n');
      return { content: 'done' };
    });
    const jobId = await createJob('names a missing server', { mcp_servers: ['crm', 'gone'] });
    expect((await api('POST', `/v1/cron-jobs/${jobId}/trigger`)).status).toBe(202);
    const run = await waitForFinal(jobId, 1);
    expect(run.status).toBe('success');
    expect(system).toContain('gone: there is no MCP server of that name');
  });
});

interface StoredRun {
  id: string;
  status: string;
  attempt: number;
  error_kind: string | null;
  scheduled_at: Date;
}

async function waitForFinal(jobId: string, attempt: number): Promise<StoredRun> {
  return waitFor(
    async () => {
      const { rows } = await db.query<StoredRun>(
        `SELECT id, status, attempt, error_kind, scheduled_at FROM cron_job_runs
          WHERE cron_job_id = $1`,
        [jobId],
      );
      const run = rows[0];
      expect(run?.attempt).toBe(attempt);
      expect(['success', 'failed']).toContain(run?.status);
      return run!;
    },
    { timeoutMs: 20_000, what: `attempt ${attempt} to end` },
  );
}

function keyOf(jobId: string, scheduledAt: Date, position: number): string {
  return createHash('sha256')
    .update(`hermesx:${jobId}:${scheduledAt.toISOString()}:${position}`)
    .digest('hex');
}
