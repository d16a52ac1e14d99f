// A scheduled run whose http_request puts a secret in a query string, end to end (real
// PostgreSQL, Redis, scheduler and webhook sender; the fake model; receivers on loopback): the
// API receiver gets the value, and no encoding of it reaches the run row, the tool audit, the
// model or the webhook body. A secret bound to one host is refused to another listed host
// before anything is sent there, and goes to its own host.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startService, type RunningService } from '../../src/main.js';
import { generateSecretsKey } from '../../src/secrets/key.js';
import { DEFAULT_TENANT, runsOf, type RunRow } from '../helpers/cluster.js';
import { createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm, type Handler } from '../helpers/fake-llm.js';
import { silentLogger } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

const ADMIN = 'secret-encodings-admin-token-0123456789ab';
const KEY = 'secret-encodings-tenant-key-0123456789ab';
/** The finding's password: `'` is percent-encoded by the URL serialisation, `@` and `!` not. */
const PASSWORD = "p@ss'w0rd!";
const TOKEN_A = 'token-of-api-a-0123456789';

let db: pg.Client;
let llm: FakeLlm;
let service: RunningService;
let hooks: Receiver;
const apis: { server: http.Server; url: string; hits: { url: string; key?: string }[] }[] = [];

type Message = { role: string; content?: string | null };

/** Every form of the password a leak could take. */
function encodingsOf(value: string): string[] {
  const whatwg = new URL(`http://x.test/?q=${value}`).search.slice(3);
  return [
    value,
    encodeURIComponent(value),
    encodeURIComponent(value).toLowerCase(),
    whatwg,
    new URLSearchParams({ q: value }).toString().slice(2),
    JSON.stringify(value).slice(1, -1),
    Buffer.from(value).toString('base64').slice(0, 12),
    value.slice(0, 5),
  ];
}

/** The model: one http_request with the arguments given, then an answer quoting the result. */
function requestingAgent(requests: Record<string, unknown>[]): Handler {
  return (body) => {
    const messages = (body as { messages: Message[] }).messages;
    const done = messages.filter((m) => m.role === 'tool');
    const next = requests[done.length];
    if (next) {
      return { toolCalls: [{ name: 'http_request', arguments: JSON.stringify(next) }] };
    }
    return { content: `Results: ${done.map((m) => String(m.content)).join(' | ')}` };
  };
}

async function api(method: string, url: string, body?: unknown, token = KEY) {
  const response = await fetch(`${service.url}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

async function runJob(name: string): Promise<RunRow> {
  const created = await api('POST', '/v1/cron-jobs', {
    name,
    schedule: '0 0 1 1 *',
    prompt: 'Look the password up.',
  });
  expect(created.status).toBe(201);
  const jobId = created.body.id as string;
  expect((await api('POST', `/v1/cron-jobs/${jobId}/trigger`)).status).toBe(202);
  return waitFor(
    async () => {
      const run = (await runsOf(db, [jobId])).find(
        (r) => r.status === 'success' || r.status === 'failed',
      );
      if (!run) throw new Error('no finished run yet');
      return run;
    },
    { timeoutMs: 20_000, intervalMs: 100, what: `a finished run of ${name}` },
  );
}

async function startApi(host: string) {
  const hits: { url: string; key?: string }[] = [];
  const server = http.createServer((req, res) => {
    hits.push({ url: req.url ?? '', key: req.headers['x-api-key'] as string | undefined });
    res.writeHead(200, { 'content-type': 'application/json' });
    // A careless API that echoes what it got, as it got it (percent-encoded).
    res.end(JSON.stringify({ path: req.url }));
  });
  await new Promise<void>((done) => server.listen(0, host, done));
  const url = `http://${host}:${(server.address() as AddressInfo).port}`;
  apis.push({ server, url, hits });
  return { url, hits };
}

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  hooks = await startReceiver();
  await startApi('127.0.0.1');
  await startApi('127.0.0.2');
  llm = await startFakeLlm({ handler: requestingAgent([]) });
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    REDIS_URL: inject('redisUrl'),
    LLM_API_URL: llm.url,
    SAAS_API_PORT: '0',
    SAAS_API_HOST: '127.0.0.1',
    HERMES_POD_ID: `encodings-${Math.random().toString(36).slice(2, 8)}`,
    HERMES_ACP_TOKEN: ADMIN,
    HERMES_API_KEY: KEY,
    HERMES_SECRETS_KEY: generateSecretsKey(),
    // The receivers are on loopback: this service may reach them (as in hermesx dev).
    HTTP_TOOL_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    SCHEDULER_POLL_INTERVAL: '2s',
    SCHEDULER_SHUTDOWN_GRACE: '1s',
  });
  service = await startService(config, silentLogger());
  await waitFor(() => expect(service.scheduler?.running).toBe(true), {
    timeoutMs: 10_000,
    what: 'the scheduler to start',
  });
  expect((await api('PUT', '/v1/secrets/PASSWORD', { value: PASSWORD })).status).toBe(201);
  const bound = await api('PUT', '/v1/secrets/TOKEN_A', {
    value: TOKEN_A,
    allowed_hosts: ['127.0.0.1'],
  });
  expect(bound.status).toBe(201);
  expect(bound.body).toMatchObject({ name: 'TOKEN_A', allowed_hosts: ['127.0.0.1'] });
  const settings = await api(
    'PUT',
    `/v1/tenants/${DEFAULT_TENANT}/agent-settings`,
    { http_allowed_hosts: ['http://127.0.0.1', 'http://127.0.0.2'] },
    ADMIN,
  );
  expect(settings.status).toBe(200);
  const endpoint = await api('POST', '/v1/webhooks', {
    url: `${hooks.url}/hooks`,
    events: ['run.succeeded', 'run.failed'],
  });
  expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
  hooks.secrets.push(endpoint.body.secret as string);
}, 60_000);

afterAll(async () => {
  await service?.stop();
  await db?.end();
  await llm?.close();
  await hooks?.close();
  for (const { server } of apis) await new Promise((done) => server.close(done));
});

describe('a secret in a query string', () => {
  it('reaches the API, and no encoding of it is stored, audited, shown or delivered', async () => {
    const [first] = apis;
    const written = `${first!.url}/lookup?q={{secrets.PASSWORD}}&x=1`;
    llm.setHandler(requestingAgent([{ method: 'GET', url: written }]));
    const run = await runJob('query secret');
    expect(run).toMatchObject({ status: 'success', error: null });
    // The API got the value (percent-encoded by the URL): the test sends what it claims.
    expect(first!.hits.at(-1)?.url).toBe(`/lookup?q=${PASSWORD.replace("'", '%27')}&x=1`);

    // The model saw the URL it wrote, and the echo redacted.
    const toModel = JSON.stringify(llm.calls.map((call) => call.body));
    expect(toModel).toContain('{{secrets.PASSWORD}}');
    expect(toModel).toContain('[REDACTED:PASSWORD]');

    const audit = await db.query('SELECT * FROM cron_run_tool_calls WHERE run_id = $1', [run.id]);
    expect(audit.rows).toHaveLength(1);
    const delivered = await waitFor(
      () => {
        const message = hooks.received.find((m) => m.body.includes(run.id));
        if (!message) throw new Error('no delivery yet');
        return message;
      },
      { timeoutMs: 20_000, what: 'the run.succeeded delivery' },
    );
    expect(delivered.verified).not.toBeNull();
    expect(delivered.body).toContain('[REDACTED:PASSWORD]');

    const places = {
      run: JSON.stringify(run),
      audit: JSON.stringify(audit.rows),
      model: toModel,
      webhook: delivered.body,
    };
    for (const [place, text] of Object.entries(places)) {
      for (const form of encodingsOf(PASSWORD)) {
        expect(text.includes(form), `${place} holds ${form}`).toBe(false);
      }
    }
  });
});

describe('a secret bound to a host', () => {
  it('is refused to another listed host before anything is sent, and goes to its own', async () => {
    const [own, other] = apis;
    const before = other!.hits.length;
    llm.setHandler(
      requestingAgent([
        { method: 'GET', url: `${other!.url}/b`, headers: { 'X-Api-Key': '{{secrets.TOKEN_A}}' } },
        { method: 'GET', url: `${own!.url}/a`, headers: { 'X-Api-Key': '{{secrets.TOKEN_A}}' } },
      ]),
    );
    const run = await runJob('bound secret');
    expect(run.status).toBe('success');
    expect(other!.hits.length).toBe(before);
    expect(own!.hits.at(-1)).toEqual({ url: '/a', key: TOKEN_A });
    expect(run.result).toContain('secret_host_not_allowed');
    expect(run.result).toContain('TOKEN_A may not be sent to 127.0.0.2');
    expect(run.result).not.toContain(TOKEN_A);
    const audit = await db.query<{ status: string; error: string | null }>(
      'SELECT status, error FROM cron_run_tool_calls WHERE run_id = $1 ORDER BY seq',
      [run.id],
    );
    expect(audit.rows.map((row) => row.status)).toEqual(['refused', 'ok']);
    expect(JSON.stringify(audit.rows)).not.toContain(TOKEN_A);
    const bad = await api('PUT', '/v1/secrets/BAD_HOSTS', {
      value: 'long-enough-value',
      allowed_hosts: ['*'],
    });
    expect(bad).toMatchObject({ status: 400, body: { error: { code: 'invalid_allowed_hosts' } } });
    const listed = await api('GET', '/v1/secrets');
    expect(listed.body.data).toEqual([
      { name: 'PASSWORD', created_at: expect.any(String), updated_at: expect.any(String) },
      {
        name: 'TOKEN_A',
        allowed_hosts: ['127.0.0.1'],
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    ]);
  });
});
