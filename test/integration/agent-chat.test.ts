import http from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCronRunner } from '../../src/agent/cron-runner.js';
import { createLlm } from '../../src/agent/llm.js';
import {
  DEFAULT_TENANT_ID,
  DEFAULT_TENANT_KEY,
  bearer,
  buildTestApp,
  createTenantWithKey,
  type TestApp,
} from '../helpers/api.js';
import { createTestDatabase, withOwner } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { waitFor } from '../helpers/process-wait.js';

const GUIDE_PROMPT = 'Create a cron job that runs every minute and replies with the current time';

interface ChatBody {
  messages: { role: string; content: string | null; tool_call_id?: string }[];
  tools?: { function: { name: string } }[];
}

const toolResults = (body: unknown) =>
  (body as ChatBody).messages
    .filter((m) => m.role === 'tool')
    .map((m) => JSON.parse(m.content ?? '{}') as { ok: boolean; error?: { code: string } });

const createCall = (args: object) => ({
  toolCalls: [{ name: 'cronjob', arguments: JSON.stringify({ action: 'create', ...args }) }],
});

describe('chat completions and the cronjob tool', () => {
  let databaseUrl: string;
  let llm: FakeLlm;
  let api: TestApp;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    llm = await startFakeLlm();
    api = await buildTestApp({
      databaseUrl,
      config: { LLM_API_URL: llm.url, LLM_MODEL: 'fake-model' },
    });
  });
  afterAll(async () => {
    await api?.close();
    await llm?.close();
  });
  beforeEach(() => {
    llm.calls.length = 0;
  });

  const chat = (token: string, payload: object) =>
    api.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: bearer(token),
      payload,
    });

  it('names the model the model server answered with, not the configured name', async () => {
    // A server resolving an alias (Ollama's "qwen3" to its tag, OpenAI's "gpt-4o" to a dated
    // snapshot) answers with the model it used; that is the one the client is told about.
    llm.setHandler(() => ({ content: 'hello', model: 'qwen3:30b-a3b-q4_K_M' }));
    const response = await chat(DEFAULT_TENANT_KEY, {
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ model: 'qwen3:30b-a3b-q4_K_M' });
  });

  it("creates the guide's job for the caller's tenant, and only that tenant", async () => {
    llm.setHandler((_body, index) =>
      index === 0
        ? createCall({
            name: 'current time',
            schedule: '* * * * *',
            prompt: 'Reply with the current time',
          })
        : { content: 'Created "current time", running every minute.' },
    );
    const response = await chat(DEFAULT_TENANT_KEY, {
      model: 'qwen3:30b',
      messages: [{ role: 'user', content: GUIDE_PROMPT }],
    });
    expect(response.statusCode).toBe(200);
    const completion = response.json();
    expect(completion).toMatchObject({
      object: 'chat.completion',
      // The model that answered (LLM_MODEL), not the client's string.
      model: 'fake-model',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: expect.stringContaining('every minute') },
          finish_reason: 'stop',
        },
      ],
      usage: {
        prompt_tokens: expect.any(Number),
        completion_tokens: expect.any(Number),
        total_tokens: expect.any(Number),
      },
    });
    expect(llm.calls).toHaveLength(2);
    const first = llm.calls[0]?.body as ChatBody;
    expect(first.tools?.map((t) => t.function.name)).toEqual(['cronjob', 'clock']);
    expect(first.messages.at(-1)).toMatchObject({ role: 'user', content: GUIDE_PROMPT });
    expect(toolResults(llm.calls[1]?.body)).toEqual([expect.objectContaining({ ok: true })]);
    const rows = await withOwner(databaseUrl, (c) =>
      c.query(
        "SELECT tenant_id, schedule, prompt, enabled FROM cron_jobs WHERE name = 'current time'",
      ),
    );
    expect(rows.rows).toEqual([
      {
        tenant_id: DEFAULT_TENANT_ID,
        schedule: '* * * * *',
        prompt: 'Reply with the current time',
        enabled: true,
      },
    ]);
  });

  it("scopes the tool to the key's tenant", async () => {
    const { tenant, key } = await createTenantWithKey(api.app, {
      name: 'chat-tenant',
      min_schedule_interval_seconds: 0,
    });
    llm.setHandler((_body, index) =>
      index === 0
        ? createCall({ name: 'tenant job', schedule: '@hourly', command: 'Say hello' })
        : { content: 'done' },
    );
    expect(
      (await chat(key, { messages: [{ role: 'user', content: 'hourly hello' }] })).statusCode,
    ).toBe(200);
    const rows = await withOwner(databaseUrl, (c) =>
      c.query("SELECT tenant_id, prompt FROM cron_jobs WHERE name = 'tenant job'"),
    );
    expect(rows.rows).toEqual([{ tenant_id: tenant.id, prompt: 'Say hello' }]);
  });

  it('returns a validation failure to the model, which corrects itself', async () => {
    llm.setHandler((_body, index) => {
      if (index === 0) return createCall({ name: 'bad', schedule: '61 * * * *', prompt: 'x' });
      if (index === 1) return createCall({ name: 'fixed', schedule: '1 * * * *', prompt: 'x' });
      return { content: 'Fixed the schedule and created the job.' };
    });
    const response = await chat(DEFAULT_TENANT_KEY, {
      messages: [{ role: 'user', content: 'make a job' }],
    });
    expect(response.statusCode).toBe(200);
    const results = toolResults(llm.calls[2]?.body);
    expect(results[0]).toMatchObject({ ok: false, error: { code: 'invalid_schedule' } });
    expect(JSON.stringify(results[0])).toContain('minute');
    expect(results[1]).toMatchObject({ ok: true });
    const names = await withOwner(databaseUrl, (c) =>
      c.query("SELECT name FROM cron_jobs WHERE name IN ('bad', 'fixed')"),
    );
    expect(names.rows).toEqual([{ name: 'fixed' }]);
  });

  it('stops a model that keeps calling tools at the step limit, with an answer', async () => {
    llm.setHandler(() => ({ toolCalls: [{ name: 'cronjob', arguments: '{"action":"list"}' }] }));
    const response = await chat(DEFAULT_TENANT_KEY, {
      messages: [{ role: 'user', content: 'loop' }],
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-hermesx-agent-stopped']).toBe('step_limit');
    expect(response.json().choices[0].message.content).toMatch(
      /stopped before finishing: the agent did not finish within 8 steps\. Nothing was changed/,
    );
    expect(llm.calls).toHaveLength(8);
  });

  it('answers 502 when the model server returns garbage', async () => {
    llm.setHandler(() => ({ rawBody: '<html>not json' }));
    const response = await chat(DEFAULT_TENANT_KEY, {
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(response.statusCode).toBe(502);
    expect(response.json().error.code).toBe('llm_unavailable');
  });

  it('rejects a malformed request with a 400', async () => {
    const response = await chat(DEFAULT_TENANT_KEY, { messages: [] });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('validation_error');
  });

  it('lists the configured model', async () => {
    const response = await api.app.inject({
      method: 'GET',
      url: '/v1/models',
      headers: bearer(DEFAULT_TENANT_KEY),
    });
    expect(response.json()).toEqual({
      object: 'list',
      data: [{ id: 'fake-model', object: 'model', created: 0, owned_by: 'hermesx' }],
    });
  });

  describe('over a real socket', () => {
    let baseUrl: string;
    beforeAll(async () => {
      await api.app.listen({ port: 0, host: '127.0.0.1' });
      baseUrl = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
    });

    it('streams chunks the official openai client reads', async () => {
      const text = 'Here is a fairly long answer that will be split into several streamed chunks.';
      // Paced: deltas that arrive together are merged into one event.
      llm.setHandler(() => ({ content: text, chunkDelayMs: 60 }));
      const client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: DEFAULT_TENANT_KEY });
      const stream = await client.chat.completions.create({
        model: 'fake-model',
        messages: [{ role: 'user', content: 'talk' }],
        stream: true,
      });
      const deltas: string[] = [];
      let finish: string | null = null;
      for await (const chunk of stream) {
        expect(chunk.object).toBe('chat.completion.chunk');
        deltas.push(chunk.choices[0]?.delta.content ?? '');
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      expect(deltas.filter(Boolean).length).toBeGreaterThan(1);
      expect(deltas.join('')).toBe(text);
      expect(finish).toBe('stop');
    });

    it('aborts the model call when the client disconnects', async () => {
      llm.setHandler(() => ({ hang: true }));
      const request = http.request(`${baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { ...bearer(DEFAULT_TENANT_KEY), 'content-type': 'application/json' },
      });
      request.on('error', () => {});
      request.end(JSON.stringify({ messages: [{ role: 'user', content: 'wait' }] }));
      await llm.waitForCalls(1, 10_000);
      request.destroy();
      await waitFor(() => expect(llm.calls[0]?.aborted).toBe(true), { timeoutMs: 10_000 });
    });
  });
});

describe('chat with the model server down', () => {
  it('answers 502 with a message, in bounded time', async () => {
    const databaseUrl = await createTestDatabase();
    const api = await buildTestApp({
      databaseUrl,
      config: { LLM_API_URL: 'http://127.0.0.1:9/v1' },
    });
    try {
      const started = Date.now();
      const response = await api.app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: bearer(DEFAULT_TENANT_KEY),
        payload: { messages: [{ role: 'user', content: 'hi' }] },
      });
      expect(response.statusCode).toBe(502);
      expect(response.json().error).toMatchObject({
        code: 'llm_unavailable',
        message: expect.stringContaining('model server'),
      });
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      await api.close();
    }
  });
});

describe('scheduled runs', () => {
  it('run the prompt without the cronjob tool, in the job time zone', async () => {
    const llm = await startFakeLlm({ handler: () => ({ content: 'It is 10:00.' }) });
    try {
      const runner = createCronRunner(createLlm({ url: llm.url, apiKey: '', model: 'fake-model' }));
      const reply = await runner(
        {
          jobId: 'j1',
          tenantId: 't1',
          name: 'clock',
          prompt: 'Reply with the current time',
          timezone: 'Europe/Paris',
          scheduledAt: new Date('2026-07-01T08:00:00Z'),
        },
        {
          signal: new AbortController().signal,
          deadlineMs: Date.now() + 60_000,
          beforeSend: () => Promise.resolve(),
        },
      );
      expect(reply).toEqual({ ok: true, text: 'It is 10:00.' });
      const body = llm.calls[0]?.body as ChatBody;
      expect(body.tools).toBeUndefined();
      expect(body.messages[0]?.content).toContain('2026-07-01 10:00:00');
      expect(body.messages[0]?.content).toContain('Europe/Paris');
      expect(body.messages[1]).toMatchObject({
        role: 'user',
        content: 'Reply with the current time',
      });
    } finally {
      await llm.close();
    }
  });
});
