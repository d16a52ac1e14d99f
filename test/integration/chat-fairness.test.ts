// One tenant's chat flood must not starve another's: with a slow model, 260 turns of tenant A
// once held every model connection (the clients share one pool of 256) and tenant B's chat took
// 37 s instead of milliseconds. Turns in flight are capped per tenant, across replicas (Redis);
// beyond the cap A gets 429 with Retry-After. A turn also has a deadline.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Pool } from '../../src/db/pool.js';
import { createRedis, type Redis } from '../../src/redis/connection.js';
import {
  bearer,
  buildTestApp,
  createTenantWithKey,
  expectError,
  type TestApp,
} from '../helpers/api.js';
import { createAppPool, createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { silentLogger } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';

const FLOOD = 280;
const SLOW_MS = 4000;

describe('chat turns in flight per tenant', () => {
  let llm: FakeLlm;
  let redis: Redis;
  let pool: Pool;
  let apps: TestApp[] = [];
  let databaseUrl: string;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    llm = await startFakeLlm();
    redis = createRedis(inject('redisUrl'), silentLogger());
    await waitFor(() => expect(redis.status).toBe('ready'), { timeoutMs: 10_000, what: 'redis' });
    pool = createAppPool(databaseUrl);
    const config = { LLM_API_URL: llm.url, CHAT_MAX_TURNS_PER_TENANT: '16' };
    apps = [
      await buildTestApp({ databaseUrl, redis, pool, config }),
      await buildTestApp({ databaseUrl, redis, pool, config }),
    ];
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await pool?.end();
    redis?.disconnect();
    await llm?.close();
  });

  const chat = (app: TestApp, key: string, content: string) =>
    app.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: bearer(key),
      payload: { messages: [{ role: 'user', content }] },
    });

  it("keeps B's chat fast while A floods two replicas with slow turns", async () => {
    llm.setHandler((body) =>
      JSON.stringify(body).includes('flood')
        ? { content: 'slow', delayMs: SLOW_MS }
        : { content: 'fast' },
    );
    const [one, two] = apps as [TestApp, TestApp];
    const a = await createTenantWithKey(one.app, { rate_limit_rpm: 100_000 });
    const b = await createTenantWithKey(one.app, { rate_limit_rpm: 100_000 });
    const aloneStarted = Date.now();
    expect((await chat(one, b.key, 'hello')).statusCode).toBe(200);
    const aloneMs = Date.now() - aloneStarted;

    // All on one replica (its model clients' pool is 256 connections), a few on the other: the
    // cap is shared.
    const flood = Array.from({ length: FLOOD }, (_, i) =>
      chat(i < FLOOD - 20 ? one : two, a.key, `flood ${i}`),
    );
    await waitFor(
      () =>
        expect(
          llm.calls.filter((c) => JSON.stringify(c.body).includes('flood')).length,
        ).toBeGreaterThanOrEqual(16),
      {
        timeoutMs: 30_000,
        what: "A's turns to reach the model",
      },
    );
    const started = Date.now();
    const answer = await chat(one, b.key, 'hello again');
    const underFloodMs = Date.now() - started;
    expect(answer.statusCode).toBe(200);
    const responses = await Promise.all(flood);
    const refused = responses.filter((r) => r.statusCode === 429);
    console.log(
      `B alone ${aloneMs} ms, under A's flood ${underFloodMs} ms; A: ${FLOOD - refused.length} served, ${refused.length} refused`,
    );
    expect(underFloodMs).toBeLessThan(aloneMs + 1000);
    // 16 in flight across both replicas, the rest refused with a time to come back.
    expect(FLOOD - refused.length).toBe(16);
    expectError(refused[0]!, 429, 'too_many_turns');
    expect(Number(refused[0]!.headers['retry-after'])).toBeGreaterThan(0);
    // The slots come back when the turns end.
    expect((await chat(two, a.key, 'after the flood')).statusCode).toBe(200);
  }, 120_000);

  it('ends a turn at its deadline (CHAT_TURN_TIMEOUT) with a 504', async () => {
    const quick = await buildTestApp({
      databaseUrl,
      config: { LLM_API_URL: llm.url, CHAT_TURN_TIMEOUT: '1s' },
    });
    try {
      llm.setHandler(() => ({ hang: true }));
      const { key } = await createTenantWithKey(quick.app);
      const started = Date.now();
      expectError(await chat(quick, key, 'hang'), 504, 'llm_timeout');
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await quick.close();
    }
  });
});
