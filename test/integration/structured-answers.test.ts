// Structured answers and model fallback in a running service (real scheduler, PostgreSQL, Redis)
// against the tests' model servers: the primary on LLM_API_URL, a second one that serves
// backup-model (LLM_MODEL_URLS), and dead-model routed to a port nobody listens on. A job's
// output_schema is asked for, validated, repaired once, or fails invalid_output; the parsed
// output is in the run API and the run.succeeded data; a call goes down the job's models on a
// refused connection, a 5xx or a timeout, never on a 400; chat takes response_format and falls
// back along the tenant's default models, streamed only before its first byte.
import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startService, type RunningService } from '../../src/main.js';
import { createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm, type FakeReply, type Handler } from '../helpers/fake-llm.js';
import { capturingLogger } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';
import { serviceClient } from '../helpers/service-client.js';

const KEY = 'answers-test-key-0123456789abcdef';
const ADMIN = 'answers-test-admin-0123456789abcdef';
const TENANT = '00000000-0000-0000-0000-000000000001';
let db: pg.Client;
let primary: FakeLlm;
let backup: FakeLlm;
let service: RunningService;
const logged = capturingLogger('json');
const { api, createJob } = serviceClient(() => service.url, KEY);

interface Body {
  model?: string;
  messages: { role: string; content: string | null }[];
  response_format?: { type: string; json_schema?: { name: string; schema: unknown } };
}
interface Attempt {
  outcome: string | null;
  model: string | null;
}
interface RunDetail {
  id: string;
  status: string;
  error_kind: string | null;
  error: string | null;
  result: string | null;
  output: unknown;
  attempt_log: Attempt[];
}

const SCHEMA = {
  type: 'object',
  properties: { open: { type: 'integer', minimum: 0 }, title: { type: 'string' } },
  required: ['open'],
  additionalProperties: false,
};

/** A port that refuses connections: listened on, then closed. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const callsFor = (llm: FakeLlm, tag: string) =>
  llm.calls.filter((call) => JSON.stringify(call.body).includes(tag)).map((c) => c.body as Body);

/** Each test's replies, by a tag its prompt carries; anything else answers "ok". */
const routes = new Map<string, { primary?: Handler; backup?: Handler }>();
const dispatch =
  (which: 'primary' | 'backup'): Handler =>
  (body, index) => {
    const text = JSON.stringify(body);
    for (const [tag, handlers] of routes) {
      const handler = handlers[which];
      if (text.includes(tag) && handler) return handler(body, index);
    }
    return { content: 'ok' };
  };

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  primary = await startFakeLlm({ handler: dispatch('primary') });
  backup = await startFakeLlm({ handler: dispatch('backup') });
  const dead = `http://127.0.0.1:${await closedPort()}/v1`;
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    REDIS_URL: inject('redisUrl'),
    LLM_API_URL: primary.url,
    LLM_MODELS: 'fake-model,backup-model,dead-model',
    LLM_MODEL_URLS: `backup-model=${backup.url},dead-model=${dead}`,
    LLM_FALLBACK_TIMEOUT: '3s',
    SAAS_API_PORT: '0',
    SAAS_API_HOST: '127.0.0.1',
    HERMES_API_KEY: KEY,
    HERMES_ACP_TOKEN: ADMIN,
    HERMES_POD_ID: `answers-test-${Math.random().toString(36).slice(2, 8)}`,
    MANUAL_RUNS_PER_MINUTE: '1000',
    SCHEDULER_POLL_INTERVAL: '2s',
    SCHEDULER_SHUTDOWN_GRACE: '1s',
  });
  service = await startService(config, logged.log);
  await waitFor(() => expect(service.scheduler?.running).toBe(true), {
    timeoutMs: 10_000,
    what: 'the scheduler to start',
  });
});

afterAll(async () => {
  await service?.stop();
  await db?.end();
  await primary?.close();
  await backup?.close();
});

/** Creates a job tagged `tag`, runs it now, and waits for its outcome. */
async function runOnce(tag: string, extra: Record<string, unknown> = {}): Promise<RunDetail> {
  const jobId = await createJob(`${tag}: report the open incidents`, extra);
  const triggered = await api('POST', `/v1/cron-jobs/${jobId}/trigger`);
  expect(triggered.status, JSON.stringify(triggered.body)).toBeLessThan(300);
  return waitFor(
    async () => {
      const runs = await api('GET', `/v1/cron-jobs/${jobId}/runs`);
      const run = (runs.body.data as { id: string; status: string }[])[0];
      expect(run?.status).toMatch(/^(success|failed)$/);
      return (await api('GET', `/v1/runs/${run!.id}`)).body as unknown as RunDetail;
    },
    { timeoutMs: 30_000, intervalMs: 100, what: `the run of ${tag} to end` },
  );
}

describe('a job with an output_schema', () => {
  it('is refused at save time when the schema does not compile, naming the problem', async () => {
    const bad = await api('POST', '/v1/cron-jobs', {
      name: 'bad schema',
      schedule: '0 0 1 1 *',
      prompt: 'x',
      output_schema: { type: 'objekt' },
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('output_schema is not a valid JSON Schema');
    const typo = await api('POST', '/v1/cron-jobs', {
      name: 'typo schema',
      schedule: '0 0 1 1 *',
      prompt: 'x',
      output_schema: { type: 'object', propertiez: {} },
    });
    expect(typo.status).toBe(400);
    expect(JSON.stringify(typo.body)).toContain('unknown keyword: \\"propertiez\\"');
    const huge = await api('POST', '/v1/cron-jobs', {
      name: 'huge schema',
      schedule: '0 0 1 1 *',
      prompt: 'x',
      output_schema: { type: 'object', description: 'x'.repeat(17_000) },
    });
    expect(huge.status).toBe(400);
    expect(JSON.stringify(huge.body)).toContain('at most 16384 are allowed');
  });

  it('asks for the shape with response_format, stores the parsed output, and sends it in run.succeeded', async () => {
    routes.set('[fenced]', {
      primary: () => ({ content: '```json\n{"open": 3, "title": "three"}\n```' }),
    });
    const run = await runOnce('[fenced]', { output_schema: SCHEMA });
    expect(run).toMatchObject({ status: 'success', output: { open: 3, title: 'three' } });
    expect(JSON.parse(run.result ?? '')).toEqual({ open: 3, title: 'three' });
    expect(run.attempt_log).toEqual([
      expect.objectContaining({ outcome: 'success', model: 'fake-model' }),
    ]);
    const [sent] = callsFor(primary, '[fenced]');
    expect(sent?.response_format?.type).toBe('json_schema');
    expect(sent?.response_format?.json_schema?.schema).toEqual(SCHEMA);
    expect(sent?.response_format?.json_schema?.name).toMatch(/^job_[0-9a-f_]{36}$/);
    // The instruction names the schema too, for servers that ignore response_format.
    expect(JSON.stringify(sent?.messages)).toContain('validates against this JSON Schema');
    const job = await api('GET', `/v1/runs/${run.id}`);
    expect(job.body.output).toEqual({ open: 3, title: 'three' });
    const data = await db.query<{ data: { output: unknown; status: string } }>(
      'SELECT webhook_run_event_data($1, $2) AS data',
      [run.id, TENANT],
    );
    expect(data.rows[0]?.data).toMatchObject({
      status: 'success',
      output: { open: 3, title: 'three' },
    });
  });

  it('repairs an invalid answer once, naming the validation errors', async () => {
    routes.set('[repair]', {
      // The call being answered is already recorded: the first one sees 1.
      primary: () => {
        const seen = callsFor(primary, '[repair]').length;
        return seen <= 1 ? { content: '{"open": "many", "extra": 1}' } : { content: '{"open": 7}' };
      },
    });
    const run = await runOnce('[repair]', { output_schema: SCHEMA });
    expect(run).toMatchObject({ status: 'success', output: { open: 7 } });
    const calls = callsFor(primary, '[repair]');
    expect(calls).toHaveLength(2);
    const repair = String(calls[1]?.messages.at(-1)?.content);
    expect(repair).toContain('/open: must be integer');
    expect(repair).toContain('must NOT have additional properties (extra)');
    expect(run.attempt_log.map((a) => a.outcome)).toEqual(['answered', 'success']);
  });

  it('fails invalid_output when the repaired answer still does not validate', async () => {
    routes.set('[invalid]', { primary: () => ({ content: 'There are three open incidents.' }) });
    const run = await runOnce('[invalid]', { output_schema: SCHEMA });
    expect(run).toMatchObject({ status: 'failed', error_kind: 'invalid_output', output: null });
    expect(callsFor(primary, '[invalid]')).toHaveLength(2);
  });

  it('drops response_format after a 400 naming it and asks through the instructions', async () => {
    routes.set('[no-format]', {
      primary: (body) =>
        (body as Body).response_format
          ? { status: 400, errorMessage: "Unknown parameter: 'response_format.json_schema'" }
          : { content: '{"open": 1}' },
    });
    const run = await runOnce('[no-format]', { output_schema: SCHEMA });
    expect(run).toMatchObject({ status: 'success', output: { open: 1 } });
    const calls = callsFor(primary, '[no-format]');
    expect(calls.map((c) => c.response_format?.type ?? 'none')).toEqual(['json_schema', 'none']);
    expect(JSON.stringify(calls[1]?.messages)).toContain('validates against this JSON Schema');
  });
});

describe('model fallback in runs', () => {
  it('goes on to the next model when the first refuses the connection, and names each model', async () => {
    routes.set('[refused]', { backup: () => ({ content: 'from the backup' }) });
    const run = await runOnce('[refused]', { models: ['dead-model', 'backup-model'] });
    expect(run).toMatchObject({ status: 'success', result: 'from the backup' });
    const last = run.attempt_log.at(-1);
    expect(last).toMatchObject({ outcome: 'success', model: 'backup-model' });
    const before = run.attempt_log.slice(0, -1);
    expect(before.length).toBeGreaterThan(0);
    expect(before.every((a) => a.model === 'dead-model')).toBe(true);
    expect(before.at(-1)?.outcome).toBe('fallback_unreachable');
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).toMatch(
      /hermesx_model_fallbacks_total\{from="dead-model",to="backup-model"\} [1-9]/,
    );
  });

  it('goes on after a 5xx', async () => {
    routes.set('[5xx]', {
      primary: () => ({ status: 500, errorMessage: 'worker crashed' }),
      backup: () => ({ content: 'backup answered' }),
    });
    const run = await runOnce('[5xx]', { models: ['fake-model', 'backup-model'] });
    expect(run).toMatchObject({ status: 'success', result: 'backup answered' });
    expect(run.attempt_log).toEqual([
      expect.objectContaining({ outcome: 'fallback_upstream_5xx', model: 'fake-model' }),
      expect.objectContaining({ outcome: 'success', model: 'backup-model' }),
    ]);
  });

  it('goes on when the model does not answer within LLM_FALLBACK_TIMEOUT', async () => {
    routes.set('[slow]', {
      primary: () => ({ hang: true }),
      backup: () => ({ content: 'in time' }),
    });
    const run = await runOnce('[slow]', { models: ['fake-model', 'backup-model'] });
    expect(run).toMatchObject({ status: 'success', result: 'in time' });
    expect(run.attempt_log).toEqual([
      expect.objectContaining({ outcome: 'fallback_timeout', model: 'fake-model' }),
      expect.objectContaining({ outcome: 'success', model: 'backup-model' }),
    ]);
    // The abandoned request was cancelled, not left open.
    await waitFor(() => expect(callsFor(primary, '[slow]')[0]).toBeDefined(), { timeoutMs: 1000 });
    await waitFor(
      () =>
        expect(primary.calls.find((c) => JSON.stringify(c.body).includes('[slow]'))?.aborted).toBe(
          true,
        ),
      { timeoutMs: 5000, what: 'the abandoned call to be closed' },
    );
  });

  it('goes on when the model is still throttled after its retries', async () => {
    routes.set('[429]', {
      primary: () => ({ status: 429, headers: { 'retry-after': '0' } }),
      backup: () => ({ content: 'not throttled here' }),
    });
    const run = await runOnce('[429]', { models: ['fake-model', 'backup-model'] });
    expect(run).toMatchObject({ status: 'success', result: 'not throttled here' });
    const outcomes = run.attempt_log.map((a) => `${a.model}:${a.outcome}`);
    // Retried within its budget (half of LLM_FALLBACK_TIMEOUT), then the next model.
    expect(outcomes.at(0)).toBe('fake-model:retried_throttled');
    expect(outcomes.at(-2)).toBe('fake-model:fallback_throttled');
    expect(outcomes.at(-1)).toBe('backup-model:success');
  });

  it('does not fall back on a 400: the request itself is wrong', async () => {
    routes.set('[400]', {
      primary: () => ({ status: 400, errorMessage: 'context length exceeded' }),
      backup: () => ({ content: 'must not be asked' }),
    });
    const run = await runOnce('[400]', { models: ['fake-model', 'backup-model'] });
    expect(run).toMatchObject({ status: 'failed', error_kind: 'model_error' });
    expect(callsFor(backup, '[400]')).toHaveLength(0);
  });

  it('refuses a model outside LLM_MODELS', async () => {
    const refused = await api('POST', '/v1/cron-jobs', {
      name: 'unknown model',
      schedule: '0 0 1 1 *',
      prompt: 'x',
      models: ['fake-model', 'gpt-99'],
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ error: { code: 'model_not_allowed' } });
    const jobId = await createJob('[models-patch] x');
    const patched = await api('PATCH', `/v1/cron-jobs/${jobId}`, { models: ['gpt-99'] });
    expect(patched.status).toBe(422);
    const repeated = await api('PATCH', `/v1/cron-jobs/${jobId}`, {
      models: ['fake-model', 'fake-model'],
    });
    expect(repeated.status).toBe(400);
    const nine = await api('PATCH', `/v1/cron-jobs/${jobId}`, {
      models: Array.from({ length: 9 }, () => 'fake-model'),
    });
    expect(nine.status).toBe(400);
    const ok = await api('PATCH', `/v1/cron-jobs/${jobId}`, { models: ['backup-model'] });
    expect(ok.body.models).toEqual(['backup-model']);
    const cleared = await api('PATCH', `/v1/cron-jobs/${jobId}`, { models: null });
    expect(cleared.body.models).toEqual([]);
    const tenantDefaults = await api(
      'PUT',
      `/v1/tenants/${TENANT}/agent-settings`,
      { http_allowed_hosts: [], default_models: ['gpt-99'] },
      ADMIN,
    );
    expect(tenantDefaults.status).toBe(422);
    expect(tenantDefaults.body).toMatchObject({ error: { code: 'model_not_allowed' } });
  });
});

describe('chat', () => {
  const chat = (body: Record<string, unknown>) => api('POST', '/v1/chat/completions', body);

  it('answers response_format json_schema with validated JSON, after one repair', async () => {
    routes.set('[chat-schema]', {
      primary: () =>
        callsFor(primary, '[chat-schema]').length <= 1
          ? { content: 'about seven' }
          : { content: '{"open": 7}' },
    });
    const answer = await chat({
      messages: [{ role: 'user', content: '[chat-schema] how many incidents?' }],
      response_format: { type: 'json_schema', json_schema: { name: 'count', schema: SCHEMA } },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const content = (answer.body.choices as { message: { content: string } }[])[0]?.message.content;
    expect(JSON.parse(content ?? '')).toEqual({ open: 7 });
    expect(callsFor(primary, '[chat-schema]')[0]?.response_format?.type).toBe('json_schema');
  });

  it('answers response_format json_object, and 422 invalid_output when it cannot', async () => {
    routes.set('[chat-object]', { primary: () => ({ content: '{"ok": true}' }) });
    const ok = await chat({
      messages: [{ role: 'user', content: '[chat-object] status?' }],
      response_format: { type: 'json_object' },
    });
    expect(ok.status).toBe(200);
    expect(callsFor(primary, '[chat-object]')[0]?.response_format).toEqual({ type: 'json_object' });
    routes.set('[chat-prose]', { primary: () => ({ content: 'all fine' }) });
    const prose = await chat({
      messages: [{ role: 'user', content: '[chat-prose] status?' }],
      response_format: { type: 'json_object' },
    });
    expect(prose.status).toBe(422);
    expect(prose.body).toMatchObject({ error: { code: 'invalid_output' } });
  });

  it('streams a structured answer only once it validated', async () => {
    routes.set('[chat-stream-schema]', {
      primary: () =>
        callsFor(primary, '[chat-stream-schema]').length <= 1
          ? { content: 'seven, I think', chunkChars: 3 }
          : { content: '{"open": 7}', chunkChars: 3 },
    });
    const streamed = await fetch(`${service.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        stream: true,
        messages: [{ role: 'user', content: '[chat-stream-schema] count' }],
        response_format: { type: 'json_schema', json_schema: { name: 'count', schema: SCHEMA } },
      }),
    });
    const text = await streamed.text();
    const content = [...text.matchAll(/"content":"((?:[^"\\]|\\.)*)"/g)]
      .map((m) => JSON.parse(`"${m[1]}"`) as string)
      .join('');
    expect(JSON.parse(content)).toEqual({ open: 7 });
    expect(text).not.toContain('I think');
  });

  it('refuses a response_format schema that does not compile', async () => {
    const bad = await chat({
      messages: [{ role: 'user', content: 'x' }],
      response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 1 } } },
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('is not a valid JSON Schema');
  });

  it("falls back along the tenant's default models; streamed, only before the first byte", async () => {
    const put = await api(
      'PUT',
      `/v1/tenants/${TENANT}/agent-settings`,
      { http_allowed_hosts: [], default_models: ['dead-model', 'backup-model'] },
      ADMIN,
    );
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.default_models).toEqual(['dead-model', 'backup-model']);
    try {
      routes.set('[chat-fallback]', { backup: () => ({ content: 'the backup speaks' }) });
      const answer = await chat({ messages: [{ role: 'user', content: '[chat-fallback] hi' }] });
      expect(answer.status).toBe(200);
      expect(answer.body.model).toBe('backup-model');
      // Streamed: the dead model fails before any byte, so the backup answers.
      const streamed = await fetch(`${service.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          stream: true,
          messages: [{ role: 'user', content: '[chat-fallback] stream' }],
        }),
      });
      const text = await streamed.text();
      expect(text).toContain('the backup speaks'.slice(0, 6));
      expect(text).toContain('"model":"backup-model"');
    } finally {
      await api(
        'PUT',
        `/v1/tenants/${TENANT}/agent-settings`,
        { http_allowed_hosts: [], default_models: [] },
        ADMIN,
      );
    }
  });

  it('keeps a streamed answer with its model once the first byte went out, past the fallback timeout', async () => {
    await api(
      'PUT',
      `/v1/tenants/${TENANT}/agent-settings`,
      { http_allowed_hosts: [], default_models: ['fake-model', 'backup-model'] },
      ADMIN,
    );
    try {
      const slow: FakeReply = { content: 'slow but sure', chunkChars: 2, chunkDelayMs: 600 };
      routes.set('[chat-committed]', {
        primary: () => slow,
        backup: () => ({ content: 'must not be asked' }),
      });
      const streamed = await fetch(`${service.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          stream: true,
          messages: [{ role: 'user', content: '[chat-committed] go' }],
        }),
      });
      const text = await streamed.text();
      const content = [...text.matchAll(/"content":"([^"]*)"/g)].map((m) => m[1]).join('');
      expect(content).toBe('slow but sure');
      expect(callsFor(backup, '[chat-committed]')).toHaveLength(0);
    } finally {
      await api(
        'PUT',
        `/v1/tenants/${TENANT}/agent-settings`,
        { http_allowed_hosts: [], default_models: [] },
        ADMIN,
      );
    }
  });
});
