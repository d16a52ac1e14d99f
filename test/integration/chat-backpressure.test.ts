// Streamed chat under clients that stop reading: the server waits for them (it honours `drain`)
// instead of buffering every delta, merges small deltas, and answers with the model that
// answered, never the client's string. Ten stalled streams of 64 KB in 1-byte deltas, each asking
// for a 200-character model name, once took a replica from 88 to 515 MB.
import net from 'node:net';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatStream, MAX_UNSENT_BYTES } from '../../src/http/chat-stream.js';
import { DEFAULT_TENANT_KEY, bearer, buildTestApp, type TestApp } from '../helpers/api.js';
import { createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { spawnProcess, type CliProcess } from '../helpers/process-cli.js';
import { waitFor } from '../helpers/process-wait.js';

const CONTENT_CHARS = 64 * 1024;
const STREAMS = 10;
const LONG_MODEL = 'm'.repeat(200);

/** Sends a request and never reads the answer (the bytes come in only once `resume` is called). */
function stalledRequest(port: number, request: string): net.Socket {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => {});
  socket.write(request);
  socket.pause();
  return socket;
}

/** A client that sends a streamed chat request and never reads the answer. */
function stalledClient(port: number): net.Socket {
  const body = JSON.stringify({
    model: LONG_MODEL,
    stream: true,
    messages: [{ role: 'user', content: 'write a lot' }],
  });
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => {});
  socket.write(
    `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: ${bearer(DEFAULT_TENANT_KEY).authorization}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  socket.pause();
  return socket;
}

v8.setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/**
 * Memory held after a full collection (JavaScript heap plus buffers): what the streams keep, not
 * garbage not yet collected. RSS also counts the heap's growth to its working size under any
 * load, and V8 keeps those pages.
 */
const heldMb = () => {
  collectGarbage();
  const usage = process.memoryUsage();
  return (usage.heapUsed + usage.external) / 1024 / 1024;
};

/** The fake model in its own process, so its buffers do not count in this process's RSS. */
async function startModelProcess(): Promise<{ process: CliProcess; url: string }> {
  const child = spawnProcess(
    process.execPath,
    ['--import', 'tsx', 'test/helpers/fake-llm.ts', '--port', '0', '--print-answers'].concat([
      '--content-chars',
      String(CONTENT_CHARS),
      '--chunk-chars',
      '1',
    ]),
    { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  );
  const line = await waitFor(
    () => {
      const first = child.stdout().split('\n')[0] ?? '';
      expect(first).toMatch(/^\{"url"/);
      return first;
    },
    { timeoutMs: 30_000, what: 'the fake model to print its URL' },
  );
  return { process: child, url: (JSON.parse(line) as { url: string }).url };
}

describe('streamed chat backpressure', () => {
  let llm: FakeLlm;
  let api: TestApp;
  let stalledApi: TestApp;
  let model: { process: CliProcess; url: string };
  let databaseUrl: string;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    llm = await startFakeLlm();
    api = await buildTestApp({ databaseUrl, config: { LLM_API_URL: llm.url } });
    model = await startModelProcess();
    stalledApi = await buildTestApp({ databaseUrl, config: { LLM_API_URL: model.url } });
    await stalledApi.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await stalledApi?.close();
    await model?.process.kill();
    await api?.close();
    await llm?.close();
  });

  it('adds less than 30 MB for ten streams whose clients stopped reading', async () => {
    const port = (stalledApi.app.server.address() as AddressInfo).port;
    const answered = () =>
      model.process
        .stdout()
        .split('\n')
        .filter((l) => l === 'answered').length;
    const serverSockets: net.Socket[] = [];
    const onConnection = (socket: net.Socket) => serverSockets.push(socket);
    stalledApi.app.server.on('connection', onConnection);
    const before = heldMb();
    const sockets = Array.from({ length: STREAMS }, () => stalledClient(port));
    try {
      await waitFor(
        async () => {
          expect(answered()).toBe(STREAMS);
        },
        {
          timeoutMs: 90_000,
          intervalMs: 200,
          what: 'every turn to have its model answer',
        },
      );
      let peak = heldMb();
      let last = 0;
      await waitFor(
        () => {
          const now = heldMb();
          peak = Math.max(peak, now);
          const change = Math.abs(now - last);
          last = now;
          expect(change).toBeLessThan(1);
        },
        { timeoutMs: 30_000, intervalMs: 250, what: 'the memory to settle' },
      );
      const addedMb = peak - before;
      console.log(
        `held: ${before.toFixed(0)} MB → peak ${peak.toFixed(0)} MB (+${addedMb.toFixed(1)} MB)`,
      );
      expect(addedMb).toBeLessThan(30);
      // What each replica-side socket still buffers for its client stays under the bound.
      expect(serverSockets).toHaveLength(STREAMS);
      for (const socket of serverSockets) {
        expect(socket.writableLength).toBeLessThanOrEqual(MAX_UNSENT_BYTES);
      }
    } finally {
      stalledApi.app.server.off('connection', onConnection);
      for (const socket of sockets) socket.destroy();
    }
  }, 120_000);

  it(`ends a stream whose client stopped reading once ${MAX_UNSENT_BYTES / 1024} KB wait unsent`, async () => {
    // The answer limit keeps a chat turn's content far under the bound, so the bound is tested on
    // the stream itself, over a real socket, with a content limit large enough to pass it.
    const server = Fastify();
    const closed: { finished: boolean }[] = [];
    const contentBytes = 8 * 1024 * 1024;
    server.get('/stream', async (_request, reply) => {
      const stream = new ChatStream(
        reply,
        { id: 'chatcmpl-bound', created: 0, model: 'm' },
        { heartbeatMs: 60_000, maxContentBytes: contentBytes },
      );
      reply.raw.once('close', () => closed.push({ finished: reply.raw.writableFinished }));
      const piece = 'x'.repeat(64 * 1024);
      for (let sent = 0; sent < contentBytes; sent += piece.length) {
        stream.delta(piece);
        // The socket gets its chance to tell the stream it is full.
        await new Promise((resolve) => setImmediate(resolve));
      }
      stream.finish(undefined, undefined);
      return reply;
    });
    await server.listen({ port: 0, host: '127.0.0.1' });
    const port = (server.server.address() as AddressInfo).port;
    const socket = stalledRequest(port, 'GET /stream HTTP/1.1\r\nHost: x\r\n\r\n');
    try {
      // The server drops the connection with the answer unfinished, while the client still reads
      // nothing (the route then aborts the turn, as for a client that went away).
      await waitFor(() => expect(closed).toEqual([{ finished: false }]), {
        timeoutMs: 30_000,
        what: 'the stalled stream to be ended',
      });
      let received = 0;
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        received += chunk.length;
        text = (text + chunk.toString('latin1')).slice(-64);
      });
      const ended = new Promise((resolve) => socket.once('close', resolve));
      socket.resume();
      await ended;
      // What the client gets is what the kernel had taken, far from the 8 MB, and no [DONE].
      expect(received).toBeGreaterThan(0);
      expect(received).toBeLessThan(contentBytes / 2);
      expect(text).not.toContain('[DONE]');
    } finally {
      socket.destroy();
      await server.close();
    }
  });

  it('answers with the model that answered, not the string the client sent', async () => {
    llm.setHandler(() => ({ content: 'short' }));
    const response = await api.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: bearer(DEFAULT_TENANT_KEY),
      payload: { model: LONG_MODEL, messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json<{ model: string }>().model).toBe('qwen3:30b');
    const streamed = await api.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: bearer(DEFAULT_TENANT_KEY),
      payload: { model: LONG_MODEL, stream: true, messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(streamed.body).not.toContain(LONG_MODEL);
    expect(streamed.body).toContain('"model":"qwen3:30b"');
  });

  it('merges small deltas into few events, the whole content kept', async () => {
    llm.setHandler(() => ({ content: 'y'.repeat(4000), chunkChars: 1 }));
    const streamed = await api.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: bearer(DEFAULT_TENANT_KEY),
      payload: { stream: true, messages: [{ role: 'user', content: 'hi' }] },
    });
    const events = streamed.body
      .split('\n\n')
      .filter((e) => e.startsWith('data: {'))
      .map((e) => JSON.parse(e.slice(6)) as { choices: { delta: { content?: string } }[] });
    const content = events.map((e) => e.choices[0]?.delta.content ?? '').join('');
    expect(content).toBe('y'.repeat(4000));
    expect(events.length).toBeLessThan(400);
  });
});
