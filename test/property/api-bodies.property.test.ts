// Whatever JSON arrives as a body, the API answers 2xx or 4xx with {"error":{"code","message"}},
// never a 5xx. Runs against a real PostgreSQL, through app.inject.
import fc from 'fast-check';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  buildTestApp,
  createJob,
  createTenantWithKey,
  type TestApp,
} from '../helpers/api.js';
import { createTestDatabase } from '../helpers/database.js';

const RUNS = 200;
const ZONES = Intl.supportedValuesOf('timeZone');

const text = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom('', ' ', '\u0000', 'a\u0000b', '\uD800', '🙂', "'; DROP TABLE cron_jobs; --"),
  fc.string({ unit: 'grapheme', minLength: 190, maxLength: 210 }),
);
const json = fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' });
/** Any JSON value, biased towards the kinds each field expects. */
const anyOf = (...typical: fc.Arbitrary<unknown>[]) =>
  fc.oneof({ weight: 4, arbitrary: fc.oneof(...typical) }, { weight: 1, arbitrary: json });

const schedule = anyOf(
  fc.constantFrom('@hourly', '@daily', '*/5 * * * *', '0 9 * * 1-5', '* * * * * *', '@every 1s'),
  fc.constantFrom('61 * * * *', '0 0 30 2 *', '@every 0s', '* * *', 'CRON_TZ=Mars/X * * * *'),
  fc.integer({ min: 0, max: 59 }).map((m) => `${m} * * * *`),
  text,
);
const timezone = anyOf(fc.constantFrom(...ZONES), fc.constantFrom('UTC', 'Mars/Olympus', ''), text);
const instant = fc
  .date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z') })
  .map((d) => (Number.isNaN(d.getTime()) ? 'invalid' : d.toISOString()));
const count = anyOf(fc.integer({ min: -5, max: 120 }), fc.double());
const quota = anyOf(
  fc.integer({ min: -10, max: 2_000_000 }),
  fc.constantFrom(0, 1, 1e12, -0, 1.5, Number.MAX_SAFE_INTEGER),
);
const extraKey = fc.constantFrom('id', 'tenant_id', 'run_count', '__proto__', 'constructor', 'x');

const validName = fc
  .string({ unit: 'grapheme', minLength: 1, maxLength: 60 })
  .filter((t) => t.trim().length > 0);
const validSchedule = fc.constantFrom(
  '@hourly',
  '@daily',
  '*/5 * * * *',
  '0 9 * * 1-5',
  '* * * * * *',
  '@every 90s',
  'CRON_TZ=Asia/Tokyo 30 6 * * *',
  '0 0 L * *',
  '0 12 * * MON#2',
);
const validJob = fc.record(
  {
    name: validName,
    schedule: validSchedule,
    prompt: validName,
    timezone: fc.constantFrom(...ZONES),
    enabled: fc.boolean(),
  },
  { requiredKeys: ['name', 'schedule', 'prompt'] },
);

const jobBody = fc.oneof(
  json,
  validJob,
  validJob.map((body) => {
    const { name: _n, schedule: _s, prompt: _p, ...rest } = body;
    return rest;
  }),
  fc.record(
    {
      name: anyOf(text),
      schedule,
      timezone,
      prompt: anyOf(text, fc.string({ minLength: 16_000, maxLength: 16_500 })),
      enabled: anyOf(fc.boolean()),
    },
    { requiredKeys: [] },
  ),
  fc
    .tuple(
      fc.record({ name: text, schedule, prompt: text }),
      fc.dictionary(extraKey, json, { maxKeys: 2 }),
    )
    .map(([body, extra]) => ({ ...body, ...extra })),
);
const previewBody = fc.oneof(
  json,
  fc.record(
    {
      schedule: validSchedule,
      timezone: fc.constantFrom(...ZONES),
      count: fc.integer({ min: 1, max: 100 }),
      from: instant,
    },
    { requiredKeys: ['schedule'] },
  ),
  fc.record({ schedule, timezone, count, from: anyOf(instant, text) }, { requiredKeys: [] }),
);
const tenantBody = fc.oneof(
  json,
  fc.record(
    {
      name: validName,
      max_cron_jobs: fc.integer({ min: 0, max: 1_000_000 }),
      min_schedule_interval_seconds: fc.integer({ min: 0, max: 31_536_000 }),
      rate_limit_rpm: fc.integer({ min: 1, max: 1_000_000 }),
    },
    { requiredKeys: ['name'] },
  ),
  fc.record(
    {
      name: anyOf(text),
      max_cron_jobs: quota,
      min_schedule_interval_seconds: quota,
      rate_limit_rpm: quota,
    },
    { requiredKeys: [] },
  ),
);

/** Statuses seen per endpoint: the bodies must reach both the success and the error paths. */
const seen = new Map<string, number[]>();

function expectBothOutcomes(endpoint: string): void {
  const statuses = seen.get(endpoint) ?? [];
  const ok = statuses.filter((s) => s < 300).length;
  expect(ok, `${endpoint}: successes among ${statuses.length}`).toBeGreaterThan(
    statuses.length / 20,
  );
  expect(statuses.length - ok, `${endpoint}: errors`).toBeGreaterThan(statuses.length / 20);
}

function expectNo5xx(response: LightMyRequestResponse, body: unknown, endpoint: string): void {
  seen.set(endpoint, [...(seen.get(endpoint) ?? []), response.statusCode]);
  const context = `${response.statusCode} ${response.body.slice(0, 300)} for ${JSON.stringify(body)?.slice(0, 300)}`;
  expect(response.statusCode, context).toBeLessThan(500);
  expect(response.statusCode, context).toBeGreaterThanOrEqual(200);
  if (response.statusCode >= 400) {
    const parsed = response.json<unknown>();
    expect(parsed, context).toEqual({
      error: { code: expect.stringMatching(/^[a-z_]+$/), message: expect.any(String) },
    });
  }
}

describe('request bodies (property-based): never a 5xx', () => {
  let testApp: TestApp;
  let app: FastifyInstance;
  let key: string;
  let jobId: string;

  beforeAll(async () => {
    testApp = await buildTestApp({ databaseUrl: await createTestDatabase() });
    app = testApp.app;
    // Generous quotas, so valid bodies succeed and rate limiting never interferes.
    ({ key } = await createTenantWithKey(app, {
      max_cron_jobs: 1_000_000,
      min_schedule_interval_seconds: 0,
      rate_limit_rpm: 1_000_000,
    }));
    jobId = (await createJob(app, key)).id;
  });

  afterAll(async () => {
    await testApp?.close();
  });

  const send = (token: string, method: 'POST' | 'PATCH', url: string, body: unknown) =>
    app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: JSON.stringify(body) ?? 'null',
    });

  it('POST /v1/cron-jobs', async () => {
    await fc.assert(
      fc.asyncProperty(jobBody, async (body) => {
        const response = await send(key, 'POST', '/v1/cron-jobs', body);
        expectNo5xx(response, body, 'create');
        if (response.statusCode === 201) {
          expect(response.json()).toMatchObject({ id: expect.any(String), run_count: 0 });
        }
      }),
      { numRuns: RUNS },
    );
    expectBothOutcomes('create');
  });

  it('PATCH /v1/cron-jobs/{id}', async () => {
    await fc.assert(
      fc.asyncProperty(jobBody, async (body) => {
        const response = await send(key, 'PATCH', `/v1/cron-jobs/${jobId}`, body);
        expectNo5xx(response, body, 'patch');
        if (response.statusCode === 200) expect(response.json()).toMatchObject({ id: jobId });
      }),
      { numRuns: RUNS },
    );
    expectBothOutcomes('patch');
  });

  it('POST /v1/cron-jobs/preview', async () => {
    await fc.assert(
      fc.asyncProperty(previewBody, async (body) => {
        const response = await send(key, 'POST', '/v1/cron-jobs/preview', body);
        expectNo5xx(response, body, 'preview');
        if (response.statusCode === 200) {
          const { next } = response.json<{ next: string[] }>();
          expect(next.length).toBeLessThanOrEqual(100);
        }
      }),
      { numRuns: RUNS },
    );
    expectBothOutcomes('preview');
  });

  it('POST /v1/tenants', async () => {
    await fc.assert(
      fc.asyncProperty(tenantBody, async (body) => {
        const response = await send(ADMIN_TOKEN, 'POST', '/v1/tenants', body);
        expectNo5xx(response, body, 'tenant');
        if (response.statusCode === 201) {
          expect(response.json()).toMatchObject({ id: expect.any(String) });
        }
      }),
      { numRuns: RUNS },
    );
    expectBothOutcomes('tenant');
  });

  it('PATCH /v1/tenants/{id}', async () => {
    const tenant = await send(ADMIN_TOKEN, 'POST', '/v1/tenants', { name: 'patched' });
    const id = tenant.json<{ id: string }>().id;
    await fc.assert(
      fc.asyncProperty(tenantBody, async (body) => {
        const response = await send(ADMIN_TOKEN, 'PATCH', `/v1/tenants/${id}`, body);
        expectNo5xx(response, body, 'tenant patch');
        if (response.statusCode === 200) expect(response.json()).toMatchObject({ id });
      }),
      { numRuns: RUNS },
    );
    expectBothOutcomes('tenant patch');
  });

  it('POST /v1/api-keys', async () => {
    const tenant = await send(ADMIN_TOKEN, 'POST', '/v1/tenants', { name: 'keys' });
    const tenantId = tenant.json<{ id: string }>().id;
    const keyBody = fc.oneof(
      json,
      fc.record(
        {
          tenant_id: fc.constantFrom(tenantId, '00000000-0000-0000-0000-000000000001'),
          name: validName,
          expires_at: fc
            .date({ min: new Date(Date.now() + 86_400_000), max: new Date('9999-12-31T00:00:00Z') })
            .map((d) => (Number.isNaN(d.getTime()) ? 'invalid' : d.toISOString())),
        },
        { requiredKeys: ['tenant_id', 'name'] },
      ),
      fc.record(
        {
          tenant_id: anyOf(fc.constant(tenantId), fc.uuid(), text),
          name: anyOf(text),
          expires_at: anyOf(instant, text),
        },
        { requiredKeys: [] },
      ),
    );
    await fc.assert(
      fc.asyncProperty(keyBody, async (body) => {
        const response = await send(ADMIN_TOKEN, 'POST', '/v1/api-keys', body);
        expectNo5xx(response, body, 'key');
        if (response.statusCode === 201) {
          expect(response.json()).toMatchObject({ key: expect.stringMatching(/^hk_/) });
        }
      }),
      { numRuns: RUNS },
    );
    expectBothOutcomes('key');
  });
});
