// Traces end to end, on real PostgreSQL and Redis with the fake model: with
// OTEL_EXPORTER_OTLP_ENDPOINT set, a scheduled run that calls a tool and is told to a webhook
// arrives at an OTLP receiver on loopback as one trace (the run id its trace id and on its root,
// the claim, each model and tool call, the record, the delivery), a chat turn as another; no
// secret or prompt text is in any attribute; with the endpoint unset nothing is sent.
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { generateSecretsKey } from '../../src/secrets/key.js';
import { startService, type RunningService } from '../../src/main.js';
import { DEFAULT_TENANT, runsOf, type RunRow } from '../helpers/cluster.js';
import { createTestDatabase } from '../helpers/database.js';
import { FAKE_MODEL, startFakeLlm, type FakeLlm, type Handler } from '../helpers/fake-llm.js';
import { capturingLogger } from '../helpers/log.js';
import {
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedSpan,
} from '../helpers/otlp-receiver.js';
import { waitFor } from '../helpers/process-wait.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

const ADMIN = 'traces-admin-token-0123456789abcdef';
const KEY = 'traces-tenant-key-0123456789abcdef';
const TOKEN = 'tok_live_5c2e9a7d1f3b8e64';
const RUN_PROMPT = 'PROMPT-MARKER-7Q2 post the status to the team endpoint';
const CHAT_PROMPT = 'CHAT-MARKER-4K9 what time is it in Paris?';
const FLAKY_PROMPT = 'FLAKY-MARKER-8D1 summarise the night';
const COLLECTOR_KEY = 'collector-key-31415';
/** The runs' model is priced ($2 per 1M prompt tokens, $8 per 1M completion tokens); the flaky
 * job's is not. */
const PRICED_MODEL = 'qwen3:30b';
const UNPRICED_MODEL = FAKE_MODEL;
const PRICES = { [PRICED_MODEL]: { input: 2_000_000, cached_input: 1_000_000, output: 8_000_000 } };

// Spans are sent every 100 ms instead of 5 s (the SDK's standard setting), so waits stay short.
process.env.OTEL_BSP_SCHEDULE_DELAY = '100';

type Message = { role: string; content?: string | null };

let databaseUrl: string;
let db: pg.Client;
let llm: FakeLlm;
let otlp: OtlpReceiver;
let hooks: Receiver;
let target: http.Server;
let targetUrl: string;
let service: RunningService;
const logs = capturingLogger('text');

/** Model calls of the flaky job so far: its first one fails with a 500 (the job retries). */
let flakyCalls = 0;

/**
 * A run posts with the secret, then answers; a chat turn asks the clock, then answers; the flaky
 * job's first call fails.
 */
const agent: Handler = (body) => {
  const messages = (body as { messages: Message[] }).messages;
  const last = messages.at(-1);
  if (messages.some((m) => m.content?.includes('FLAKY-MARKER'))) {
    flakyCalls++;
    return flakyCalls === 1 ? { status: 500, errorMessage: 'boom' } : { content: 'all quiet' };
  }
  const isRun = messages.some((m) => m.content?.includes('PROMPT-MARKER'));
  if (last?.role === 'user' && isRun) {
    const request = {
      method: 'POST',
      url: `${targetUrl}/status`,
      headers: { Authorization: 'Bearer {{secrets.TOKEN}}' },
      body: 'all green',
    };
    return { toolCalls: [{ name: 'http_request', arguments: JSON.stringify(request) }] };
  }
  if (last?.role === 'user') {
    return {
      toolCalls: [{ name: 'clock', arguments: JSON.stringify({ timezone: 'Europe/Paris' }) }],
    };
  }
  return { content: `Done: ${String(last?.content).slice(0, 200)}` };
};

function settingsOf(extra: Record<string, string>) {
  return loadConfig({
    DATABASE_URL: databaseUrl,
    REDIS_URL: inject('redisUrl'),
    LLM_API_URL: llm.url,
    SAAS_API_PORT: '0',
    SAAS_API_HOST: '127.0.0.1',
    HERMES_POD_ID: `traces-${Math.random().toString(36).slice(2, 8)}`,
    HERMES_ACP_TOKEN: ADMIN,
    HERMES_API_KEY: KEY,
    HERMES_SECRETS_KEY: secretsKey,
    HTTP_TOOL_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    SCHEDULER_POLL_INTERVAL: '2s',
    SCHEDULER_SHUTDOWN_GRACE: '1s',
    ...extra,
  });
}
const secretsKey = generateSecretsKey();

async function api(url: string, method: string, body?: unknown, token = KEY) {
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
    body: (text ? JSON.parse(text) : {}) as Record<string, unknown>,
  };
}

async function startWithScheduler(extra: Record<string, string>): Promise<RunningService> {
  const started = await startService(settingsOf(extra), logs.log);
  await waitFor(() => expect(started.scheduler?.running).toBe(true), {
    timeoutMs: 10_000,
    what: 'the scheduler to start',
  });
  return started;
}

async function runJob(name: string, fields: Record<string, unknown> = {}): Promise<RunRow> {
  const created = await api('/v1/cron-jobs', 'POST', {
    name,
    schedule: '0 0 1 1 *',
    prompt: RUN_PROMPT,
    ...fields,
  });
  expect(created.status).toBe(201);
  const jobId = created.body.id as string;
  expect((await api(`/v1/cron-jobs/${jobId}/trigger`, 'POST')).status).toBe(202);
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

async function chat(): Promise<number> {
  const answer = await api('/v1/chat/completions', 'POST', {
    model: 'default',
    messages: [{ role: 'user', content: CHAT_PROMPT }],
  });
  return answer.status;
}

function spansNamed(name: string, traceId: string): ReceivedSpan[] {
  return otlp.spans.filter((span) => span.name === name && span.traceId === traceId);
}

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  // The http_request tool's target: it echoes the credential, as a careless server would.
  target = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end(`accepted; you sent ${String(req.headers.authorization)}`));
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  llm = await startFakeLlm({ handler: agent });
  otlp = await startOtlpReceiver();
  hooks = await startReceiver();
  const pricesFile = path.join(mkdtempSync(path.join(tmpdir(), 'traces-prices-')), 'prices.json');
  writeFileSync(pricesFile, JSON.stringify(PRICES));
  service = await startWithScheduler({
    MODEL_PRICES_FILE: pricesFile,
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_EXPORTER_OTLP_HEADERS: `x-collector-key=${COLLECTOR_KEY}`,
    OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test',
  });
  expect((await api('/v1/secrets/TOKEN', 'PUT', { value: TOKEN })).status).toBe(201);
  const settings = await api(
    `/v1/tenants/${DEFAULT_TENANT}/agent-settings`,
    'PUT',
    { http_allowed_hosts: ['http://127.0.0.1'] },
    ADMIN,
  );
  expect(settings.status).toBe(200);
  const endpoint = await api('/v1/webhooks', 'POST', { url: `${hooks.url}/hook` });
  expect(endpoint.status).toBe(201);
  hooks.secrets.push(endpoint.body.secret as string);
}, 60_000);

afterAll(async () => {
  await service?.stop();
  await db?.end();
  await llm?.close();
  await otlp?.close();
  await hooks?.close();
  await new Promise((resolve) => target?.close(resolve));
});

describe('traces over OTLP/HTTP', () => {
  it('sends a run as one trace: claim, model and tool calls, record, delivery', async () => {
    const run = await runJob('status report');
    expect(run).toMatchObject({ status: 'success', error: null });
    const traceId = run.id.replace(/-/g, '');

    const root = await waitFor(
      () => {
        const found = spansNamed('run', traceId)[0];
        if (!found) throw new Error('no run span yet');
        return found;
      },
      { timeoutMs: 15_000, intervalMs: 50, what: 'the run span' },
    );
    expect(root.parentSpanId).toBe('');
    expect(root.attributes).toMatchObject({
      'hermesx.run.id': run.id,
      'hermesx.job.id': run.cron_job_id,
      'hermesx.tenant.id': DEFAULT_TENANT,
      'hermesx.run.origin': 'manual',
      'hermesx.run.status': 'success',
      'hermesx.run.model_requests': 2,
      'hermesx.run.attempt': 1,
    });
    expect(root.resource).toMatchObject({
      'service.name': 'hermesx',
      'deployment.environment': 'test',
    });

    const children = otlp.spans.filter((span) => span.parentSpanId === root.spanId);
    expect(children.map((span) => span.name).sort()).toEqual([
      'claim',
      'model.call',
      'model.call',
      'run.record',
      'tool.call',
    ]);
    for (const child of children) {
      expect(child.traceId).toBe(traceId);
      expect(child.startMs).toBeGreaterThanOrEqual(root.startMs);
      expect(child.endMs).toBeLessThanOrEqual(root.endMs);
    }
    const claim = children.find((span) => span.name === 'claim');
    const record = children.find((span) => span.name === 'run.record');
    expect(claim!.startMs).toBe(root.startMs);
    expect(claim!.endMs).toBeLessThanOrEqual(record!.startMs);

    const models = children.filter((span) => span.name === 'model.call');
    for (const model of models) {
      expect(model.attributes).toMatchObject({
        'gen_ai.request.model': PRICED_MODEL,
        'gen_ai.response.model': PRICED_MODEL,
        'gen_ai.usage.input_tokens': 10,
        'http.response.status_code': 200,
      });
      const outputTokens = model.attributes['gen_ai.usage.output_tokens'] as number;
      expect(outputTokens).toBeGreaterThan(0);
      // The call's cost in micro-dollars at the model's price: 10 prompt tokens at $2 per 1M,
      // the completion at $8 per 1M, rounded up once.
      expect(model.attributes['hermesx.cost_micros']).toBe(
        Math.ceil((10 * 2_000_000 + outputTokens * 8_000_000) / 1_000_000),
      );
    }
    // The same costs as the run's calls in the usage ledger.
    const ledger = await db.query<{ cost_micros: string }>(
      'SELECT cost_micros FROM model_usage WHERE run_id = $1 ORDER BY cost_micros',
      [run.id],
    );
    expect(ledger.rows.map((row) => Number(row.cost_micros))).toEqual(
      models
        .map((model) => model.attributes['hermesx.cost_micros'])
        .sort((a, b) => Number(a) - Number(b)),
    );
    const tool = children.find((span) => span.name === 'tool.call');
    expect(tool!.attributes).toMatchObject({
      'gen_ai.tool.name': 'http_request',
      'hermesx.tool.outcome': 'ok',
    });
    expect(tool!.attributes['hermesx.tool.result_bytes']).toBeGreaterThan(0);
    // The tool ran between the two model calls.
    const [first, second] = models.sort((a, b) => a.startMs - b.startMs);
    expect(tool!.startMs).toBeGreaterThanOrEqual(first!.endMs);
    expect(tool!.endMs).toBeLessThanOrEqual(second!.startMs);

    // The run.succeeded delivery joins the run's trace.
    const delivery = await waitFor(
      () => {
        const found = spansNamed('webhook.deliver', traceId)[0];
        if (!found) throw new Error('no delivery span yet');
        return found;
      },
      { timeoutMs: 15_000, intervalMs: 50, what: 'the delivery span' },
    );
    expect(delivery.attributes).toMatchObject({
      'hermesx.run.id': run.id,
      'hermesx.webhook.event_type': 'run.succeeded',
      'hermesx.webhook.outcome': 'delivered',
      'hermesx.webhook.attempt': 1,
      'http.response.status_code': 200,
    });
    expect(hooks.received.some((message) => message.verified !== null)).toBe(true);
    // The collector's header went with every export.
    expect(otlp.requests.every((r) => r.headers['x-collector-key'] === COLLECTOR_KEY)).toBe(true);
  });

  it('says on each attempt’s run span which attempt it is', async () => {
    const run = await runJob('flaky report', {
      prompt: FLAKY_PROMPT,
      model: UNPRICED_MODEL,
      retry: { max_attempts: 2, backoff: '1s' },
    });
    expect(run).toMatchObject({ status: 'success' });
    const traceId = run.id.replace(/-/g, '');
    // Both attempts are spans of the run's one trace, each a root.
    const [first, second] = await waitFor(
      () => {
        const found = spansNamed('run', traceId);
        expect(found).toHaveLength(2);
        return found.sort((a, b) => a.startMs - b.startMs);
      },
      { timeoutMs: 15_000, intervalMs: 50, what: 'the two attempts’ run spans' },
    );
    expect(first!.attributes).toMatchObject({
      'hermesx.run.attempt': 1,
      'hermesx.run.status': 'retrying',
      'hermesx.run.error_kind': 'model_error',
    });
    expect(second!.attributes).toMatchObject({
      'hermesx.run.attempt': 2,
      'hermesx.run.claimed_from': 'queue',
      'hermesx.run.status': 'success',
    });
    expect(second!.parentSpanId).toBe('');
    // Its model has no price: the call's tokens are told, its cost is not guessed.
    const [call] = spansNamed('model.call', traceId).filter(
      (span) => span.parentSpanId === second!.spanId,
    );
    expect(call!.attributes).toMatchObject({
      'gen_ai.response.model': UNPRICED_MODEL,
      'gen_ai.usage.input_tokens': 10,
    });
    expect(call!.attributes).not.toHaveProperty('hermesx.cost_micros');
  });

  it('sends a chat turn as one trace with its model and tool calls', async () => {
    expect(await chat()).toBe(200);
    const turn = await waitFor(
      () => {
        const found = otlp.spans.find(
          (span) =>
            span.name === 'chat.turn' && span.attributes['hermesx.chat.outcome'] === 'answered',
        );
        if (!found) throw new Error('no chat.turn span yet');
        return found;
      },
      { timeoutMs: 15_000, intervalMs: 50, what: 'the chat.turn span' },
    );
    expect(turn.parentSpanId).toBe('');
    expect(turn.attributes).toMatchObject({
      'hermesx.tenant.id': DEFAULT_TENANT,
      'hermesx.chat.stream': false,
      'gen_ai.request.model': 'qwen3:30b',
    });
    const children = await waitFor(
      () => {
        const found = otlp.spans.filter((span) => span.parentSpanId === turn.spanId);
        expect(found).toHaveLength(3);
        return found;
      },
      { timeoutMs: 5000, intervalMs: 50, what: 'the turn’s children' },
    );
    expect(children.map((span) => span.name).sort()).toEqual([
      'model.call',
      'model.call',
      'tool.call',
    ]);
    expect(children.every((span) => span.traceId === turn.traceId)).toBe(true);
    expect(children.find((span) => span.name === 'tool.call')!.attributes).toMatchObject({
      'gen_ai.tool.name': 'clock',
      'hermesx.tool.outcome': 'ok',
    });
  });

  it('traces a streamed turn the same way', async () => {
    const response = await fetch(`${service.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ stream: true, messages: [{ role: 'user', content: CHAT_PROMPT }] }),
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('data: [DONE]');
    const turn = await waitFor(
      () => {
        const found = otlp.spans.find(
          (span) => span.name === 'chat.turn' && span.attributes['hermesx.chat.stream'] === true,
        );
        if (!found) throw new Error('no streamed chat.turn span yet');
        return found;
      },
      { timeoutMs: 15_000, intervalMs: 50, what: 'the streamed chat.turn span' },
    );
    expect(turn.attributes['hermesx.chat.outcome']).toBe('answered');
    const children = await waitFor(
      () => {
        const found = otlp.spans.filter((span) => span.parentSpanId === turn.spanId);
        expect(found).toHaveLength(3);
        return found;
      },
      { timeoutMs: 5000, intervalMs: 50, what: 'the streamed turn’s children' },
    );
    const models = children.filter((span) => span.name === 'model.call');
    expect(models).toHaveLength(2);
    for (const model of models) {
      expect(model.attributes).toMatchObject({
        'gen_ai.response.model': 'qwen3:30b',
        'http.response.status_code': 200,
      });
      // The test's model server streams no usage chunk: no token count is made up.
      expect(model.attributes).not.toHaveProperty('gen_ai.usage.input_tokens');
    }
  });

  it('puts no secret, prompt, answer or tool argument in any attribute', () => {
    expect(otlp.spans.length).toBeGreaterThan(0);
    const everything = JSON.stringify(otlp.spans);
    for (const text of [
      TOKEN,
      'PROMPT-MARKER',
      'CHAT-MARKER',
      'all green',
      'Europe/Paris',
      'accepted;',
    ]) {
      expect(everything).not.toContain(text);
    }
  });

  it('sends nothing when OTEL_EXPORTER_OTLP_ENDPOINT is unset', async () => {
    await service.stop();
    const before = otlp.requests.length;
    service = await startWithScheduler({});
    const run = await runJob('untraced report');
    expect(run.status).toBe('success');
    expect(await chat()).toBe(200);
    await service.stop();
    expect(otlp.requests.length).toBe(before);
  });
});

describe('OTEL_RECORD_PROMPTS=true', () => {
  it('records prompts, answers and tool arguments, with secrets redacted', async () => {
    await service.stop();
    service = await startWithScheduler({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_RECORD_PROMPTS: 'true',
    });
    const run = await runJob('recorded report');
    expect(run.status).toBe('success');
    const traceId = run.id.replace(/-/g, '');
    const [first, second] = await waitFor(
      () => {
        const found = spansNamed('model.call', traceId);
        expect(found).toHaveLength(2);
        return found.sort((a, b) => a.startMs - b.startMs);
      },
      { timeoutMs: 15_000, intervalMs: 50, what: 'the model.call spans' },
    );
    expect(first!.attributes['gen_ai.prompt']).toContain('PROMPT-MARKER');
    // The tool's answer echoed the credential: the model saw it redacted, and so does the span.
    expect(second!.attributes['gen_ai.prompt']).toContain('[REDACTED:TOKEN]');
    expect(second!.attributes['gen_ai.completion']).toContain('Done:');
    const tool = spansNamed('tool.call', traceId)[0];
    expect(tool?.attributes['hermesx.tool.arguments']).toContain('{{secrets.TOKEN}}');
    expect(JSON.stringify(otlp.spans)).not.toContain(TOKEN);
  });
});
