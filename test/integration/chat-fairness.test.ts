// One tenant's chat flood must not starve another's: with a slow model, 260 turns of tenant A
// once held every model connection (the clients share one pool of 256) and tenant B's chat took
// 37 s instead of milliseconds. Turns in flight are capped per tenant, across replicas (Redis);
// beyond the cap A gets 429 with Retry-After. Model requests wait for a connection in their
// tenant's turn, and one tenant holds at most its share of the pool (model-gate.ts). A turn also
// has a deadline. The model here holds A's requests until the test lets them go, so "B is not
// kept waiting" is asserted as an order of events (B answered while every A request was still
// held), not as a duration on a loaded machine.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createModelConnections } from '../../src/agent/model-connections.js';
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
import { startFakeLlm, type FakeLlm, type FakeReply } from '../helpers/fake-llm.js';
import { silentLogger } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';

const FLOOD = 280;
const TURNS_PER_TENANT = 16;

const isFlood = (body: unknown) => JSON.stringify(body).includes('flood');

/** A model that holds the flood's requests until `releaseAll`, and answers the rest at once. */
function holdFlood(llm: FakeLlm) {
  const waiting: (() => void)[] = [];
  let open = false;
  llm.setHandler((body) => {
    if (!isFlood(body)) return { content: 'fast' };
    const reply: FakeReply = { content: 'slow' };
    if (open) return reply;
    return new Promise<FakeReply>((resolve) => waiting.push(() => resolve(reply)));
  });
  return {
    held: () => waiting.length,
    releaseAll() {
      open = true;
      for (const release of waiting.splice(0)) release();
    },
  };
}

const floodCalls = (llm: FakeLlm) => llm.calls.filter((c) => isFlood(c.body));

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
    const config = { LLM_API_URL: llm.url, CHAT_MAX_TURNS_PER_TENANT: String(TURNS_PER_TENANT) };
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

  const chat = (app: TestApp, key: string, content: string, stream = false) =>
    app.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: bearer(key),
      payload: { stream, messages: [{ role: 'user', content }] },
    });

  it("keeps B's chat fast while A floods two replicas with slow turns", async () => {
    const model = holdFlood(llm);
    const [one, two] = apps as [TestApp, TestApp];
    const a = await createTenantWithKey(one.app, { rate_limit_rpm: 100_000 });
    const b = await createTenantWithKey(one.app, { rate_limit_rpm: 100_000 });
    const aloneStarted = Date.now();
    expect((await chat(one, b.key, 'hello')).statusCode).toBe(200);
    const aloneMs = Date.now() - aloneStarted;

    // All on one replica (its model clients' pool is 256 connections), a few on the other: the
    // cap is shared.
    const flood = Array.from({ length: FLOOD }, (_, i) =>
      chat(i < FLOOD - 20 ? one : two, a.key, `flood ${i}`, true),
    );
    await waitFor(() => expect(model.held()).toBe(TURNS_PER_TENANT), {
      timeoutMs: 30_000,
      what: "A's turns to reach the model",
    });
    const started = Date.now();
    const answer = await chat(one, b.key, 'hello again');
    const underFloodMs = Date.now() - started;
    expect(answer.statusCode).toBe(200);
    // B was answered while every one of A's turns was still held by the model.
    expect(model.held()).toBe(TURNS_PER_TENANT);
    expect(floodCalls(llm).every((c) => c.answeredAt === undefined)).toBe(true);
    model.releaseAll();
    const responses = await Promise.all(flood);
    const refused = responses.filter((r) => r.statusCode === 429);
    console.log(
      `B alone ${aloneMs} ms, under A's flood ${underFloodMs} ms; A: ${FLOOD - refused.length} served, ${refused.length} refused`,
    );
    // 16 in flight across both replicas, the rest refused with a time to come back.
    expect(FLOOD - refused.length).toBe(TURNS_PER_TENANT);
    expect(floodCalls(llm)).toHaveLength(TURNS_PER_TENANT);
    expectError(refused[0]!, 429, 'too_many_turns');
    expect(Number(refused[0]!.headers['retry-after'])).toBeGreaterThan(0);
    // The slots come back when the turns end.
    expect((await chat(two, a.key, 'after the flood')).statusCode).toBe(200);
  }, 120_000);

  it("puts B ahead of A's queue when A's turns fill a small model pool (LLM_MAX_CONNECTIONS)", async () => {
    llm.calls.length = 0;
    // 8 connections, of which one tenant holds at most 6: the last quarter is for the others.
    const connections = createModelConnections(llm.url, { maxConnections: 8 });
    const small = await buildTestApp({
      databaseUrl,
      redis,
      pool,
      config: { LLM_API_URL: llm.url, CHAT_MAX_TURNS_PER_TENANT: String(TURNS_PER_TENANT) },
      modelConnections: connections,
    });
    try {
      const model = holdFlood(llm);
      const a = await createTenantWithKey(small.app, { rate_limit_rpm: 100_000 });
      const b = await createTenantWithKey(small.app, { rate_limit_rpm: 100_000 });
      const aloneStarted = Date.now();
      expect((await chat(small, b.key, 'hello', true)).statusCode).toBe(200);
      const aloneMs = Date.now() - aloneStarted;

      // Up to A's limits: 16 streamed turns in flight (and more refused), 6 of them at the model.
      const flood = Array.from({ length: TURNS_PER_TENANT + 4 }, (_, i) =>
        chat(small, a.key, `flood ${i}`, true),
      );
      await waitFor(
        () => {
          expect(model.held()).toBe(6);
          expect(connections.gate.snapshot().queued).toEqual({ [a.tenant.id]: 10 });
        },
        { timeoutMs: 30_000, what: "A's share of the pool taken and the rest of A queued" },
      );
      const started = Date.now();
      const answer = await chat(small, b.key, 'hello again', true);
      const underFloodMs = Date.now() - started;
      expect(answer.statusCode).toBe(200);
      expect(answer.body).toContain('fast');
      // B went past A's ten waiting requests, while A's six still held their connections.
      expect(model.held()).toBe(6);
      expect(floodCalls(llm).every((c) => c.answeredAt === undefined)).toBe(true);
      expect(connections.gate.snapshot()).toEqual({
        active: 6,
        held: { [a.tenant.id]: 6 },
        queued: { [a.tenant.id]: 10 },
      });
      model.releaseAll();
      const responses = await Promise.all(flood);
      console.log(
        `pool of 8: B alone ${aloneMs} ms, under A's flood ${underFloodMs} ms (A: 6 at the model, 10 queued)`,
      );
      expect(responses.filter((r) => r.statusCode === 200)).toHaveLength(TURNS_PER_TENANT);
      expect(responses.filter((r) => r.statusCode === 429)).toHaveLength(4);
      expect(floodCalls(llm)).toHaveLength(TURNS_PER_TENANT);
      expect(connections.gate.snapshot()).toEqual({ active: 0, held: {}, queued: {} });
    } finally {
      await small.close();
    }
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
