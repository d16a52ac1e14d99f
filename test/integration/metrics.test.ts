// GET /metrics of an app wired as src/main.ts wires it: standard Node.js names, build info, and
// the model-call metrics counting real calls to the (fake) model server.
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLlm } from '../../src/agent/llm.js';
import { createModelMetrics, instrumentLlm } from '../../src/agent/model-metrics.js';
import { loadConfig } from '../../src/config.js';
import type { Pool } from '../../src/db/pool.js';
import { buildApp } from '../../src/http/app.js';
import { createServiceRegistry } from '../../src/http/metrics.js';
import { ADMIN_TOKEN, DEFAULT_TENANT_KEY, bearer } from '../helpers/api.js';
import { createAppPool, createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { silentLogger } from '../helpers/log.js';
import { REPO_ROOT } from '../helpers/process-cli.js';

describe('/metrics', () => {
  let llm: FakeLlm;
  let pool: Pool;
  let app: FastifyInstance;

  beforeAll(async () => {
    llm = await startFakeLlm();
    pool = createAppPool(await createTestDatabase());
    const config = loadConfig({
      HERMES_ACP_TOKEN: ADMIN_TOKEN,
      HERMES_API_KEY: DEFAULT_TENANT_KEY,
      LLM_API_URL: llm.url,
    });
    const registry = createServiceRegistry();
    const llmClient = instrumentLlm(createLlm(config.llm), createModelMetrics(registry), 'chat');
    app = await buildApp({
      config,
      pool,
      redis: undefined,
      log: silentLogger(),
      registry,
      llm: llmClient,
    });
  });
  afterAll(async () => {
    await app?.close();
    await pool?.end();
    await llm?.close();
  });

  const scrape = async () => {
    const response = await app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return response.body;
  };
  const sample = (text: string, series: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };
  const chat = () =>
    app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: bearer(DEFAULT_TENANT_KEY),
      payload: { messages: [{ role: 'user', content: 'hi' }] },
    });

  it('has the Node.js default metrics under their standard names, and the build', async () => {
    const text = await scrape();
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
    expect(text).toMatch(/^# TYPE nodejs_eventloop_lag_seconds gauge$/m);
    expect(text).not.toMatch(/^hermesx_(process|nodejs)_/m);
    expect(text).not.toMatch(/^nodejs_active_\w+_total/m);
    const { version } = JSON.parse(readFileSync(`${REPO_ROOT}/package.json`, 'utf8')) as {
      version: string;
    };
    expect(text).toMatch(
      new RegExp(
        `^hermesx_build_info\\{version="${version.replace(/\./g, '\\.')}",commit="[^"]+"\\} 1$`,
        'm',
      ),
    );
  });

  it('has every model-call outcome at 0 before the first call', async () => {
    const text = await scrape();
    for (const outcome of ['ok', 'timeout', 'unreachable', 'bad_response', 'upstream']) {
      expect(
        sample(text, `hermesx_model_calls_total{caller="scheduler",outcome="${outcome}"}`),
      ).toBe(0);
    }
    expect(sample(text, 'hermesx_model_call_duration_seconds_count{caller="scheduler"}')).toBe(0);
  });

  it('counts model calls by outcome, times them and adds up the reported tokens', async () => {
    llm.setHandler(() => ({ content: 'hello there' }));
    expect((await chat()).statusCode).toBe(200);
    llm.setHandler(() => ({ status: 500 }));
    expect((await chat()).statusCode).toBe(502);
    const text = await scrape();
    expect(sample(text, 'hermesx_model_calls_total{caller="chat",outcome="ok"}')).toBe(1);
    // The failure counts once, under its error kind (whatever llm.ts calls a 500 answer).
    const failures = text
      .split('\n')
      .filter((l) => l.startsWith('hermesx_model_calls_total{caller="chat",outcome='))
      .filter((l) => !l.includes('outcome="ok"'))
      .reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
    expect(failures).toBe(1);
    expect(sample(text, 'hermesx_model_call_duration_seconds_count{caller="chat"}')).toBe(2);
    expect(sample(text, 'hermesx_model_prompt_tokens_total{caller="chat"}')).toBe(10);
    expect(sample(text, 'hermesx_model_completion_tokens_total{caller="chat"}')).toBeGreaterThan(0);
  });
});
