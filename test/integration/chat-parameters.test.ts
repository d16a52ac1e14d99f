// OpenAI parameters the agent cannot honour are refused by name, not dropped.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_TENANT_KEY,
  bearer,
  buildTestApp,
  expectError,
  type TestApp,
} from '../helpers/api.js';
import { createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';

describe('the OpenAI surface of chat completions', () => {
  let llm: FakeLlm;
  let api: TestApp;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    llm = await startFakeLlm({ handler: () => ({ content: 'fine' }) });
    api = await buildTestApp({
      databaseUrl,
      config: { LLM_API_URL: llm.url, LLM_MODEL: 'fake-model', CHAT_MAX_TOKENS: '1000' },
    });
  });
  afterAll(async () => {
    await api?.close();
    await llm?.close();
  });
  beforeEach(() => {
    llm.calls.length = 0;
  });

  const chat = (extra: object) =>
    api.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: bearer(DEFAULT_TENANT_KEY),
      payload: { messages: [{ role: 'user', content: 'hi' }], ...extra },
    });

  it.each([
    ['tools', { tools: [{ type: 'function', function: { name: 'f' } }] }],
    ['tool_choice', { tool_choice: 'required' }],
    ['n', { n: 2 }],
    ['stop', { stop: ['\n'] }],
    ['seed', { seed: 7 }],
    ['logprobs', { logprobs: true }],
    ['max_tokens', { max_tokens: 1001 }],
    ['max_completion_tokens', { max_completion_tokens: 5000 }],
    ['messages[0].content[0]', { messages: [{ role: 'user', content: [{ type: 'image_url' }] }] }],
  ])('refuses %s with a 400 naming it', async (name, extra) => {
    const message = expectError(await chat(extra), 400, 'unsupported_parameter');
    expect(message.startsWith(`${name}:`)).toBe(true);
    expect(llm.calls).toHaveLength(0);
  });

  it('accepts the defaults clients send, and passes max_completion_tokens on', async () => {
    const response = await chat({
      n: 1,
      tools: [],
      tool_choice: 'auto',
      response_format: { type: 'text' },
      top_p: 1,
      user: 'someone',
      max_completion_tokens: 1000,
    });
    expect(response.statusCode, response.body).toBe(200);
    expect((llm.calls[0]?.body as { max_tokens?: number }).max_tokens).toBe(1000);
  });

  it('refuses a response_format it cannot honour with a 400 naming it', async () => {
    for (const format of [
      { type: 'json_schema', json_schema: {} },
      { type: 'xml' },
      { type: 'json_schema', json_schema: { name: 'has space', schema: { type: 'object' } } },
    ]) {
      const message = expectError(await chat({ response_format: format }), 400, 'validation_error');
      expect(message).toContain('response_format');
    }
    expect(llm.calls).toHaveLength(0);
  });

  it('has GET /v1/models/{id} for the model it serves', async () => {
    const get = (id: string) =>
      api.app.inject({
        method: 'GET',
        url: `/v1/models/${id}`,
        headers: bearer(DEFAULT_TENANT_KEY),
      });
    expect((await get('fake-model')).json()).toEqual({
      id: 'fake-model',
      object: 'model',
      created: 0,
      owned_by: 'hermesx',
    });
    expectError(await get('gpt-4o'), 404, 'model_not_found');
  });
});
