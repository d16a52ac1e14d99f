// Whether the model server answers is visible: GET /health/model, and the start log of the
// service (hermesx dev's banner says it too: test/e2e/dev-env-file.test.ts). /health/ready
// stays the guide's JSON whatever the model does.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createModelProbe } from '../../src/agent/model-probe.js';
import { loadConfig } from '../../src/config.js';
import { startService } from '../../src/main.js';
import { buildTestApp } from '../helpers/api.js';
import { createTestDatabase } from '../helpers/database.js';
import { FAKE_MODEL, startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { capturingLogger, loggedLine } from '../helpers/log.js';

let databaseUrl: string;
let llm: FakeLlm;
let closedUrl: string;

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  llm = await startFakeLlm();
  // A port that was just free: nothing listens there.
  const server = http.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  closedUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  await new Promise((resolve) => server.close(resolve));
});

afterAll(async () => {
  await llm?.close();
});

describe('GET /health/model', () => {
  it('answers 200 with the configured model listed when the server answers GET /models', async () => {
    const test = await buildTestApp({
      databaseUrl,
      config: { LLM_API_URL: llm.url, LLM_MODEL: FAKE_MODEL },
    });
    try {
      const response = await test.app.inject({ method: 'GET', url: '/health/model' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        status: 'ok',
        model: FAKE_MODEL,
        model_listed: true,
        checked_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        latency_ms: expect.any(Number),
        error: null,
      });
      const ready = await test.app.inject({ method: 'GET', url: '/health/ready' });
      expect(ready.json()).toEqual({
        status: 'degraded',
        checks: { database: 'ok', redis: 'error' },
      });
    } finally {
      await test.close();
    }
  });

  it('answers 503 with why when nothing answers, and /health/ready stays as the guide has it', async () => {
    const test = await buildTestApp({ databaseUrl, config: { LLM_API_URL: closedUrl } });
    try {
      const response = await test.app.inject({ method: 'GET', url: '/health/model' });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toMatchObject({
        status: 'unreachable',
        model: 'qwen3:30b',
        model_listed: null,
        error: 'connection refused',
      });
      const ready = await test.app.inject({ method: 'GET', url: '/health/ready' });
      expect(Object.keys(ready.json<Record<string, unknown>>()).sort()).toEqual([
        'checks',
        'status',
      ]);
    } finally {
      await test.close();
    }
  });

  it('asks the model server at most once per 10 s however often it is called', async () => {
    let nowMs = 0;
    const probe = createModelProbe(
      { url: llm.url, apiKey: '', model: 'not-served' },
      { now: () => nowMs },
    );
    const before = llm.calls.length;
    const answers = await Promise.all(Array.from({ length: 20 }, () => probe.check()));
    expect(answers.every((a) => a.reachable && a.modelListed === false)).toBe(true);
    nowMs = 9_999;
    await probe.check();
    expect(llm.calls.length - before).toBe(0); // GET /models is not recorded as a completion
    nowMs = 10_000;
    expect((await probe.check()).checkedAt.getTime()).toBe(10_000);
  });

  it('says timeout for a server that accepts but never answers', async () => {
    const silent = http.createServer(() => {}).listen(0, '127.0.0.1');
    await new Promise((resolve) => silent.once('listening', resolve));
    try {
      const port = (silent.address() as AddressInfo).port;
      const probe = createModelProbe(
        { url: `http://127.0.0.1:${port}/v1`, apiKey: '', model: 'm' },
        { timeoutMs: 200 },
      );
      expect(await probe.check()).toMatchObject({ reachable: false, error: 'timeout' });
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

describe('the start log', () => {
  it.each([
    { what: 'answers', url: () => llm.url, message: 'msg="model server answered"' },
    {
      what: 'does not answer',
      url: () => closedUrl,
      message:
        'msg="model server not answering GET /models: runs will fail with model_unreachable"',
    },
  ])('names the model server and says whether it $what', async ({ url, message }) => {
    const { log, lines } = capturingLogger('text');
    const service = await startService(
      loadConfig({
        DATABASE_URL: databaseUrl,
        REDIS_URL: inject('redisUrl'),
        LLM_API_URL: url(),
        LLM_MODEL: FAKE_MODEL,
        SAAS_API_PORT: '0',
        SAAS_API_HOST: '127.0.0.1',
        HERMES_POD_ID: `model-log-${Math.random().toString(36).slice(2, 8)}`,
        SCHEDULER_SHUTDOWN_GRACE: '1s',
      }),
      log,
    );
    try {
      const line = await loggedLine(lines, 'msg="model server');
      expect(line).toContain(message);
      expect(line).toContain(`llm_url=${url()}`);
      expect(line).toContain(`model=${FAKE_MODEL}`);
      expect(lines.some((l) => l.includes('msg="object store ready"'))).toBe(true);
    } finally {
      await service.stop();
    }
  });
});
