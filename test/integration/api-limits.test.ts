import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { findFreePort } from '../../src/dev/processes.js';
import { createRedis, type Redis } from '../../src/redis/connection.js';
import {
  ADMIN_TOKEN,
  buildTestApp,
  call,
  createJob,
  createTenantWithKey,
  expectError,
  type TestApp,
} from '../helpers/api.js';
import { createAppPool, createTestDatabase } from '../helpers/database.js';
import { silentLogger } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';

const JOB = { name: 'job', schedule: '@hourly', prompt: 'hello' };

describe('request validation and limits', () => {
  let testApp: TestApp;
  let app: FastifyInstance;
  let key: string;

  beforeAll(async () => {
    testApp = await buildTestApp({ databaseUrl: await createTestDatabase() });
    app = testApp.app;
    key = (await createTenantWithKey(app, { max_cron_jobs: 1000 })).key;
  });

  afterAll(async () => {
    await testApp?.close();
  });

  const create = (body: unknown, token = key) => call(app, token, 'POST', '/v1/cron-jobs', body);

  it('unknown fields answer 400 validation_error', async () => {
    for (const extra of [{ owner: 'x' }, { id: 'x' }, { tenant_id: 'x' }, { run_count: 1 }]) {
      expectError(await create({ ...JOB, ...extra }), 400, 'validation_error');
    }
  });

  it('missing or mistyped fields answer 400 validation_error', async () => {
    const bodies: unknown[] = [
      {},
      { name: 'n', prompt: 'p' },
      { name: 'n', schedule: '@daily' },
      { schedule: '@daily', prompt: 'p' },
      { ...JOB, name: 5 },
      { ...JOB, enabled: 'true' },
      { ...JOB, timezone: null },
      { ...JOB, schedule: ['@daily'] },
      [JOB],
      'job',
      7,
      null,
    ];
    for (const body of bodies) {
      const response = await app.inject({
        method: 'POST',
        url: '/v1/cron-jobs',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
      expectError(response, 400, 'validation_error');
    }
  });

  it('names are 1 to 200 characters (after trimming)', async () => {
    expect((await create({ ...JOB, name: 'n'.repeat(200) })).statusCode).toBe(201);
    const tooLong = expectError(
      await create({ ...JOB, name: 'n'.repeat(201) }),
      400,
      'validation_error',
    );
    expect(tooLong).toMatch(/name/);
    expectError(await create({ ...JOB, name: '' }), 400, 'validation_error');
    expectError(await create({ ...JOB, name: ' \t ' }), 400, 'validation_error');
    expectError(await create({ ...JOB, name: 'n'.repeat(20_000) }), 400, 'validation_error');
  });

  it('prompts are at most 16 KiB in UTF-8 bytes, and not empty', async () => {
    expect((await create({ ...JOB, prompt: 'a'.repeat(16 * 1024) })).statusCode).toBe(201);
    expectError(
      await create({ ...JOB, prompt: 'a'.repeat(16 * 1024 + 1) }),
      400,
      'validation_error',
    );
    // 6000 characters, but 18000 bytes.
    const message = expectError(
      await create({ ...JOB, prompt: '€'.repeat(6000) }),
      400,
      'validation_error',
    );
    expect(message).toMatch(/prompt must be at most 16384 bytes/);
    expectError(await create({ ...JOB, prompt: '' }), 400, 'validation_error');
    expectError(await create({ ...JOB, prompt: '   ' }), 400, 'validation_error');
  });

  it('text with NUL characters answers 400, not a database error', async () => {
    for (const field of ['name', 'prompt']) {
      expectError(await create({ ...JOB, [field]: 'a\u0000b' }), 400, 'validation_error');
    }
    expectError(await create({ ...JOB, schedule: '@daily\u0000' }), 422, 'invalid_schedule');
    expectError(await create({ ...JOB, timezone: 'UTC\u0000' }), 422, 'invalid_schedule');
    const job = await createJob(app, key);
    for (const field of ['name', 'prompt']) {
      expectError(
        await call(app, key, 'PATCH', `/v1/cron-jobs/${job.id}`, { [field]: '\u0000' }),
        400,
        'validation_error',
      );
    }
    expectError(
      await call(app, ADMIN_TOKEN, 'POST', '/v1/tenants', { name: 'a\u0000' }),
      400,
      'validation_error',
    );
    const tenant = await call(app, ADMIN_TOKEN, 'POST', '/v1/tenants', { name: 't' });
    expectError(
      await call(app, ADMIN_TOKEN, 'PATCH', `/v1/tenants/${tenant.json<{ id: string }>().id}`, {
        name: '\u0000',
      }),
      400,
      'validation_error',
    );
    expectError(
      await call(app, ADMIN_TOKEN, 'POST', '/v1/api-keys', {
        tenant_id: tenant.json<{ id: string }>().id,
        name: 'k\u0000',
      }),
      400,
      'validation_error',
    );
  });

  it('an invalid time zone answers 422 naming it', async () => {
    for (const timezone of ['Mars/Olympus', 'utc+25', '', ' ', 'Europe/Nowhere']) {
      const message = expectError(await create({ ...JOB, timezone }), 422, 'invalid_schedule');
      expect(message).toMatch(/unknown time zone/);
    }
    expect((await create({ ...JOB, timezone: 'Australia/Lord_Howe' })).statusCode).toBe(201);
  });

  it("a schedule more frequent than the tenant's minimum answers 422 schedule_too_frequent", async () => {
    const strict = await createTenantWithKey(app, { min_schedule_interval_seconds: 300 });
    for (const schedule of ['* * * * *', '*/4 * * * *', '@every 299s', '*/10 * * * * *']) {
      const message = expectError(
        await create({ ...JOB, schedule }, strict.key),
        422,
        'schedule_too_frequent',
      );
      expect(message).toMatch(/300s/);
    }
    expect((await create({ ...JOB, schedule: '*/5 * * * *' }, strict.key)).statusCode).toBe(201);
    expect((await create({ ...JOB, schedule: '@every 5m' }, strict.key)).statusCode).toBe(201);
    // Two fires a minute apart once a day are still too frequent.
    expectError(
      await create({ ...JOB, schedule: '0,1 9 * * *' }, strict.key),
      422,
      'schedule_too_frequent',
    );

    const free = await createTenantWithKey(app, { min_schedule_interval_seconds: 0 });
    for (const schedule of ['* * * * * *', '@every 1s', '* * * * *']) {
      expect((await create({ ...JOB, schedule }, free.key)).statusCode, schedule).toBe(201);
    }
  });

  it('the job quota: the third job of a tenant allowed two answers 409 quota_exceeded', async () => {
    const small = await createTenantWithKey(app, { max_cron_jobs: 2 });
    const first = await createJob(app, small.key);
    await createJob(app, small.key);
    const message = expectError(await create(JOB, small.key), 409, 'quota_exceeded');
    expect(message).toMatch(/at most 2/);
    // Deleting one makes room again.
    expect((await call(app, small.key, 'DELETE', `/v1/cron-jobs/${first.id}`)).statusCode).toBe(
      204,
    );
    expect((await create(JOB, small.key)).statusCode).toBe(201);

    const none = await createTenantWithKey(app, { max_cron_jobs: 0 });
    expectError(await create(JOB, none.key), 409, 'quota_exceeded');
  });

  it('concurrent creates cannot overshoot the quota', async () => {
    const small = await createTenantWithKey(app, { max_cron_jobs: 3 });
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => create({ ...JOB, name: `c${i}` }, small.key)),
    );
    const statuses = responses.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([201, 201, 201, 409, 409, 409, 409, 409, 409, 409]);
    const list = await call(app, small.key, 'GET', '/v1/cron-jobs');
    expect(list.json<{ data: unknown[] }>().data).toHaveLength(3);
  });

  it('a body over 256 KiB answers 413 payload_too_large', async () => {
    const huge = JSON.stringify({ ...JOB, prompt: 'x'.repeat(300 * 1024) });
    const response = await app.inject({
      method: 'POST',
      url: '/v1/cron-jobs',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: huge,
    });
    expectError(response, 413, 'payload_too_large');
    const admin = await app.inject({
      method: 'POST',
      url: '/v1/tenants',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(300 * 1024) }),
    });
    expectError(admin, 413, 'payload_too_large');
  });

  it('invalid JSON answers 400 invalid_json; other media types 415', async () => {
    for (const payload of ['{', '{"name":}', "{'name':'x'}", '[1,]', 'undefined', '']) {
      const response = await app.inject({
        method: 'POST',
        url: '/v1/cron-jobs',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        payload,
      });
      expectError(response, 400, 'invalid_json');
    }
    const poisoned = await app.inject({
      method: 'POST',
      url: '/v1/cron-jobs',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: '{"__proto__":{"x":1},"name":"n","schedule":"@daily","prompt":"p"}',
    });
    expect(poisoned.statusCode).toBe(400);
    expect(poisoned.json()).toEqual({
      error: { code: expect.any(String), message: expect.any(String) },
    });
    // The API takes JSON only: text/plain is refused like any other media type.
    const text = await app.inject({
      method: 'POST',
      url: '/v1/cron-jobs',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain' },
      payload: 'name=x',
    });
    expectError(text, 415, 'unsupported_media_type');
    const xml = await app.inject({
      method: 'POST',
      url: '/v1/cron-jobs',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/xml' },
      payload: '<job/>',
    });
    expectError(xml, 415, 'unsupported_media_type');
  });
});

/** Sends requests as `key` until one is refused; the statuses, and whether a minute boundary passed. */
async function hitUntilLimited(
  apps: FastifyInstance[],
  key: string,
  max: number,
): Promise<{
  statuses: number[];
  limited: LightMyRequestResponse | undefined;
  sameWindow: boolean;
}> {
  const window = () => Math.floor(Date.now() / 60_000);
  const start = window();
  const statuses: number[] = [];
  let limited: LightMyRequestResponse | undefined;
  for (let i = 0; i < max && !limited; i++) {
    const response = await call(apps[i % apps.length]!, key, 'GET', '/v1/cron-jobs');
    statuses.push(response.statusCode);
    if (response.statusCode === 429) limited = response;
  }
  return { statuses, limited, sameWindow: window() === start };
}

/**
 * A fresh tenant limited to 5 requests a minute makes requests until refused; retried (with a new
 * tenant) in the rare case the one-minute window rolled over in the middle.
 */
async function expectLimitedAtSixth(
  admin: FastifyInstance,
  apps: FastifyInstance[],
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const { key } = await createTenantWithKey(admin, { rate_limit_rpm: 5 });
    const { statuses, limited, sameWindow } = await hitUntilLimited(apps, key, 8);
    if (!sameWindow && attempt < 2) continue;
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expectError(limited!, 429, 'rate_limited');
    const retryAfter = Number(limited!.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited!.headers['x-ratelimit-limit']).toBe('5');
    expect(limited!.headers['x-ratelimit-remaining']).toBe('0');
    return;
  }
}

describe('per-tenant rate limit', () => {
  let url: string;

  beforeAll(async () => {
    url = await createTestDatabase();
  });

  it('with Redis: the 6th request in a minute of a 5 rpm tenant answers 429, shared by replicas', async () => {
    const redis = createRedis(inject('redisUrl'), silentLogger());
    const pool = createAppPool(url);
    const apps: TestApp[] = [];
    try {
      await waitFor(
        () => {
          if (redis.status !== 'ready') throw new Error(redis.status);
        },
        { timeoutMs: 10_000, what: 'redis' },
      );
      apps.push(await buildTestApp({ databaseUrl: url, redis, pool }));
      apps.push(await buildTestApp({ databaseUrl: url, redis, pool }));
      const [one, two] = apps.map((a) => a.app) as [FastifyInstance, FastifyInstance];
      await expectLimitedAtSixth(one, [one]);
      // Two replicas share the count through Redis.
      await expectLimitedAtSixth(one, [one, two]);

      // Other tenants, and admin routes, are not affected.
      const { key: other } = await createTenantWithKey(one, { rate_limit_rpm: 5 });
      expect((await call(one, other, 'GET', '/v1/cron-jobs')).statusCode).toBe(200);
      const successful = await call(one, other, 'GET', '/v1/cron-jobs');
      expect(successful.headers['x-ratelimit-limit']).toBe('5');
      expect(Number(successful.headers['x-ratelimit-remaining'])).toBeLessThanOrEqual(3);
    } finally {
      for (const a of apps) await a.close();
      await pool.end();
      redis.disconnect();
    }
  });

  it('without Redis the limit still applies, counted in-process', async () => {
    const testApp = await buildTestApp({ databaseUrl: url, redis: undefined });
    try {
      await expectLimitedAtSixth(testApp.app, [testApp.app]);
    } finally {
      await testApp.close();
    }
  });

  it('with Redis unreachable the limit still applies, counted in-process', async () => {
    const port = await findFreePort();
    const redis: Redis = createRedis(`redis://127.0.0.1:${port}`, silentLogger(), {
      commandTimeoutMs: 200,
    });
    const testApp = await buildTestApp({ databaseUrl: url, redis });
    try {
      expect(redis.status).not.toBe('ready');
      await expectLimitedAtSixth(testApp.app, [testApp.app]);
    } finally {
      await testApp.close();
      redis.disconnect();
    }
  });
});

describe('CORS', () => {
  let testApp: TestApp;

  beforeAll(async () => {
    testApp = await buildTestApp({
      databaseUrl: await createTestDatabase(),
      config: { SAAS_ALLOWED_ORIGINS: 'https://a.example, https://c.example' },
    });
  });

  afterAll(async () => {
    await testApp?.close();
  });

  const preflight = (origin: string, url = '/v1/cron-jobs') =>
    testApp.app.inject({
      method: 'OPTIONS',
      url,
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });

  it('answers a preflight from an allowed origin with that origin', async () => {
    for (const url of ['/v1/cron-jobs', '/v1/cron-jobs/6f1c7e0a-1111-4222-8333-444455556666']) {
      const response = await preflight('https://a.example', url);
      expect(response.statusCode).toBeLessThan(300);
      expect(response.headers['access-control-allow-origin']).toBe('https://a.example');
      expect(String(response.headers['access-control-allow-methods'])).toMatch(/POST/);
    }
    const second = await preflight('https://c.example');
    expect(second.headers['access-control-allow-origin']).toBe('https://c.example');
  });

  it('gives no allow-origin to other origins', async () => {
    for (const origin of ['https://b.example', 'https://a.example.evil.com', 'http://a.example']) {
      const response = await preflight(origin);
      expect(response.headers['access-control-allow-origin'], origin).toBeUndefined();
    }
  });

  it('adds the header to real responses (errors included) for allowed origins only', async () => {
    const allowed = await testApp.app.inject({
      method: 'GET',
      url: '/v1/cron-jobs',
      headers: { origin: 'https://a.example' },
    });
    expect(allowed.statusCode).toBe(401);
    expect(allowed.headers['access-control-allow-origin']).toBe('https://a.example');
    const other = await testApp.app.inject({
      method: 'GET',
      url: '/health/live',
      headers: { origin: 'https://b.example' },
    });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('without SAAS_ALLOWED_ORIGINS no origin is allowed', async () => {
    const plain = await buildTestApp({ databaseUrl: await createTestDatabase() });
    try {
      const response = await plain.app.inject({
        method: 'OPTIONS',
        url: '/v1/cron-jobs',
        headers: { origin: 'https://a.example', 'access-control-request-method': 'GET' },
      });
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await plain.close();
    }
  });
});
