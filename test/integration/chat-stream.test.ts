// stream: true sends content as the model produces it, keeps tool rounds server-side, is
// chunked, and sends keep-alive comments while a tool round is silent.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_KEY, bearer, buildTestApp, type TestApp } from '../helpers/api.js';
import { createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';

interface RawStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Each piece of the body with the time it arrived. */
  pieces: { at: number; text: string }[];
}

function postRaw(url: string, body: object): Promise<RawStream> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      method: 'POST',
      headers: { ...bearer(DEFAULT_TENANT_KEY), 'content-type': 'application/json' },
    });
    request.on('error', reject);
    request.on('response', (res) => {
      const pieces: RawStream['pieces'] = [];
      res.setEncoding('utf8');
      res.on('data', (text: string) => pieces.push({ at: Date.now(), text }));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, pieces }));
    });
    request.end(JSON.stringify(body));
  });
}

describe('streamed chat', () => {
  let llm: FakeLlm;
  let api: TestApp;
  let baseUrl: string;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    llm = await startFakeLlm();
    api = await buildTestApp({
      databaseUrl,
      config: { LLM_API_URL: llm.url, CHAT_STREAM_HEARTBEAT: '100ms' },
    });
    await api.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await api?.close();
    await llm?.close();
  });
  beforeEach(() => {
    llm.calls.length = 0;
  });

  it('names the model the model server answered with in every chunk', async () => {
    llm.setHandler(() => ({ content: 'served text', model: 'qwen3:30b-a3b-q4_K_M' }));
    const raw = await postRaw(`${baseUrl}/v1/chat/completions`, {
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    expect(raw.status).toBe(200);
    const chunks = raw.pieces
      .map((p) => p.text)
      .join('')
      .split('\n\n')
      .filter((e) => e.startsWith('data: {'))
      .map((e) => JSON.parse(e.slice(6)) as { model: string });
    expect(chunks.length).toBeGreaterThan(0);
    expect(new Set(chunks.map((chunk) => chunk.model))).toEqual(new Set(['qwen3:30b-a3b-q4_K_M']));
  });

  it('forwards deltas while the model is still answering, chunked, after a silent tool round', async () => {
    llm.setHandler((_body, index) =>
      index === 0
        ? {
            toolCalls: [{ name: 'cronjob', arguments: '{"action":"list"}' }],
            delayMs: 400,
          }
        : { content: 'one two three four five six', chunkDelayMs: 150 },
    );
    const raw = await postRaw(`${baseUrl}/v1/chat/completions`, {
      messages: [{ role: 'user', content: 'what do I have?' }],
      stream: true,
    });
    expect(raw.status).toBe(200);
    expect(raw.headers['content-type']).toContain('text/event-stream');
    expect(raw.headers['content-length']).toBeUndefined();
    expect(raw.headers['transfer-encoding']).toBe('chunked');
    const text = raw.pieces.map((p) => p.text).join('');
    // The 400 ms tool round was covered by keep-alive comments.
    expect(text).toContain(': keep-alive\n\n');
    // The model was asked to stream; tool calls stayed on the server.
    expect((llm.calls[1]?.body as { stream?: boolean }).stream).toBe(true);
    expect(text).not.toContain('tool_calls');
    const contentPieces = raw.pieces.filter((p) => p.text.includes('"content":"'));
    const answered = llm.calls[1]?.answeredAt ?? 0;
    const firstContent = contentPieces.find((p) => !p.text.includes('"content":""'));
    expect(firstContent?.at).toBeLessThan(answered);
    const deltas = text
      .split('\n\n')
      .filter((e) => e.startsWith('data: {'))
      .map((e) => JSON.parse(e.slice(6)) as { choices: { delta: { content?: string } }[] });
    expect(deltas.map((d) => d.choices[0]?.delta.content ?? '').join('')).toBe(
      'one two three four five six',
    );
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  it('works with the openai stream helper, usage included on request', async () => {
    llm.setHandler(() => ({ content: 'helper text' }));
    const client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: DEFAULT_TENANT_KEY });
    const runner = client.chat.completions.stream({
      model: 'fake-model',
      messages: [{ role: 'user', content: 'hi' }],
      stream_options: { include_usage: true },
    });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]?.message.content).toBe('helper text');
    expect(final.choices[0]?.finish_reason).toBe('stop');
  });

  it('sends an error event when the model fails after the stream started', async () => {
    llm.setHandler((_body, index) =>
      index === 0
        ? { toolCalls: [{ name: 'cronjob', arguments: '{"action":"list"}' }], delayMs: 300 }
        : { status: 500 },
    );
    const client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: DEFAULT_TENANT_KEY });
    const stream = await client.chat.completions.create({
      model: 'fake-model',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    const read = async () => {
      for await (const chunk of stream) void chunk;
    };
    await expect(read()).rejects.toThrow(/the model server failed/);
  });

  it('answers the Responses API with an error naming /v1/chat/completions', async () => {
    const client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: DEFAULT_TENANT_KEY });
    const error: unknown = await client.responses.create({ model: 'fake-model', input: 'hi' }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as Error).message).toContain('use POST /v1/chat/completions');
    const raw = await fetch(`${baseUrl}/v1/responses`, { method: 'POST' });
    expect(raw.status).toBe(404);
    expect(((await raw.json()) as { error: { code: string } }).error.code).toBe('unsupported_api');
  });
});
