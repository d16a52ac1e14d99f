// The agent's caps: tool calls per step and per turn, tool result size, conversation size, and
// the abort signal between tool calls. A model that misbehaves ends the turn with an answer.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLlm } from '../../src/agent/llm.js';
import { runAgent } from '../../src/agent/loop.js';
import type { AgentTool } from '../../src/agent/tool.js';
import { MAX_ANSWER_BYTES } from '../../src/http/routes/chat.js';
import {
  DEFAULT_TENANT_KEY,
  bearer,
  buildTestApp,
  createJob,
  createTenantWithKey,
  type TestApp,
} from '../helpers/api.js';
import { createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';

interface SentBody {
  messages: { role: string; content: string | null; tool_calls?: unknown[] }[];
}

const listCalls = (n: number) => ({
  toolCalls: Array.from({ length: n }, () => ({ name: 'cronjob', arguments: '{"action":"list"}' })),
});

describe('a bounded agent', () => {
  let llm: FakeLlm;
  let api: TestApp;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    llm = await startFakeLlm();
    api = await buildTestApp({ databaseUrl, config: { LLM_API_URL: llm.url } });
  });
  afterAll(async () => {
    await api?.close();
    await llm?.close();
  });
  beforeEach(() => {
    llm.calls.length = 0;
  });

  const chat = (content: string) =>
    api.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: bearer(DEFAULT_TENANT_KEY),
      payload: { messages: [{ role: 'user', content }] },
    });

  it('answers a model asking for 300 parallel tool calls without running them', async () => {
    llm.setHandler(() => listCalls(300));
    const response = await chat('list everything');
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-hermesx-agent-stopped']).toBe('tool_call_limit');
    expect(response.json().choices[0].message.content).toContain(
      'the model asked for 300 tool calls at once, more than the limit of 16',
    );
    // No second model request carrying 300 results.
    expect(llm.calls).toHaveLength(1);
  });

  it('stops at 32 tool calls in one turn', async () => {
    llm.setHandler(() => listCalls(10));
    const response = await chat('list again and again');
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-hermesx-agent-stopped']).toBe('tool_call_limit');
    expect(response.json().choices[0].message.content).toContain(
      'more than 32 tool calls in one turn',
    );
    // Three steps of 10 calls ran; the fourth asked for 10 more.
    expect(llm.calls).toHaveLength(4);
    const last = llm.calls[3]?.body as SentBody;
    expect(last.messages.filter((m) => m.role === 'tool')).toHaveLength(30);
  });

  it('shows the model only the beginning of long prompts', async () => {
    await createJob(api.app, DEFAULT_TENANT_KEY, { name: 'long', prompt: 'x'.repeat(16_000) });
    llm.setHandler((_body, index) =>
      index === 0 ? listCalls(1) : { content: 'There is one long job.' },
    );
    expect((await chat('what jobs do I have?')).statusCode).toBe(200);
    const result = (llm.calls[1]?.body as SentBody).messages.find((m) => m.role === 'tool');
    const listed = JSON.parse(result?.content ?? '{}') as { data: { prompt: string }[] };
    const prompt = listed.data.find((job) => job.prompt.startsWith('x'))?.prompt ?? '';
    expect(Buffer.byteLength(prompt)).toBeLessThanOrEqual(500);
    expect(prompt).toContain('[truncated from 16000 bytes]');
  });
});

describe('tenant limits and answer size in chat', () => {
  let llm: FakeLlm;
  let api: TestApp;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    llm = await startFakeLlm();
    api = await buildTestApp({ databaseUrl, config: { LLM_API_URL: llm.url } });
  });
  afterAll(async () => {
    await api?.close();
    await llm?.close();
  });

  it("counts every model call of a turn against the tenant's requests per minute", async () => {
    const { key } = await createTenantWithKey(api.app, { rate_limit_rpm: 3 });
    llm.calls.length = 0;
    llm.setHandler(() => listCalls(1));
    const response = await api.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: bearer(key),
      payload: { messages: [{ role: 'user', content: 'loop' }] },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-hermesx-agent-stopped']).toBe('tenant_limit');
    expect(response.json().choices[0].message.content).toContain(
      "this tenant's limit of 3 requests per minute was reached",
    );
    // The request itself and two more model calls: three in all.
    expect(llm.calls).toHaveLength(3);
  });

  it('cuts an oversized model answer before it reaches the tenant', async () => {
    llm.setHandler(() => ({ content: 'z'.repeat(200_000) }));
    const response = await api.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: bearer(DEFAULT_TENANT_KEY),
      payload: { messages: [{ role: 'user', content: 'say a lot' }] },
    });
    const content = response.json().choices[0].message.content as string;
    expect(Buffer.byteLength(content)).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
    expect(content).toContain('[truncated from 200000 bytes]');
  });
});

describe('the agent loop on its own', () => {
  let llm: FakeLlm;
  beforeAll(async () => {
    llm = await startFakeLlm();
  });
  afterAll(async () => {
    await llm?.close();
  });

  const echo = (run: AgentTool['run']): AgentTool => ({
    definition: { type: 'function', function: { name: 'echo', parameters: { type: 'object' } } },
    run,
  });
  const client = () => createLlm({ url: llm.url, apiKey: '', model: 'fake-model' });

  it('cuts a long tool result and stops when the conversation outgrows its cap', async () => {
    llm.calls.length = 0;
    llm.setHandler(() => ({ toolCalls: [{ name: 'echo', arguments: '{}' }] }));
    const answer = await runAgent(client(), {
      messages: [{ role: 'user', content: 'go' }],
      tools: [echo(async () => 'y'.repeat(100_000))],
      context: { tenantId: 't', signal: new AbortController().signal },
      limits: { maxToolResultBytes: 4096, maxConversationBytes: 10_000 },
      answerOnStop: true,
    });
    expect(answer.stopped).toBe('conversation_limit');
    expect(answer.content).toContain('the conversation grew past 10000 bytes');
    const sent = llm.calls.map((call) => JSON.stringify(call.body).length);
    expect(Math.max(...sent)).toBeLessThan(20_000);
    const tool = (llm.calls[1]?.body as SentBody).messages.find((m) => m.role === 'tool');
    expect(Buffer.byteLength(tool?.content ?? '')).toBeLessThanOrEqual(4096);
  });

  it('throws the limit for callers that want a failure (scheduled runs)', async () => {
    llm.setHandler(() => ({ toolCalls: [{ name: 'echo', arguments: '{}' }] }));
    const turn = runAgent(client(), {
      messages: [{ role: 'user', content: 'go' }],
      tools: [echo(async () => 'ok')],
      context: { tenantId: 't', signal: new AbortController().signal },
      limits: { maxSteps: 2 },
    });
    await expect(turn).rejects.toMatchObject({
      name: 'AgentError',
      code: 'step_limit',
      message: 'the agent did not finish within 2 steps',
    });
  });

  it('checks the abort signal between tool calls', async () => {
    llm.calls.length = 0;
    llm.setHandler(() => ({
      toolCalls: [1, 2, 3].map(() => ({ name: 'echo', arguments: '{}' })),
    }));
    const controller = new AbortController();
    let runs = 0;
    const gone = new Error('client disconnected');
    const turn = runAgent(client(), {
      messages: [{ role: 'user', content: 'go' }],
      tools: [
        echo(async () => {
          runs++;
          controller.abort(gone);
          return 'ok';
        }),
      ],
      context: { tenantId: 't', signal: controller.signal },
    });
    await expect(turn).rejects.toBe(gone);
    expect(runs).toBe(1);
    expect(llm.calls).toHaveLength(1);
  });
});
