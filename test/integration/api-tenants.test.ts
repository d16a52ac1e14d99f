import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  DEFAULT_TENANT_ID,
  buildTestApp,
  call,
  createTenant,
  expectError,
  type TenantView,
  type TestApp,
} from '../helpers/api.js';
import { createTestDatabase } from '../helpers/database.js';

const TENANT_SHAPE = {
  id: expect.stringMatching(/^[0-9a-f-]{36}$/),
  name: expect.any(String),
  max_cron_jobs: expect.any(Number),
  min_schedule_interval_seconds: expect.any(Number),
  rate_limit_rpm: expect.any(Number),
  // A number (default 10), or null where the admin lifted the cap.
  max_concurrent_runs: expect.toBeOneOf([null, expect.any(Number)]),
  run_retention_days: expect.any(Number),
  audit_retention_days: expect.any(Number),
  // null: the server's TENANT_RESULT_BYTES_QUOTA.
  result_bytes_quota: expect.toBeOneOf([null, expect.any(Number)]),
  result_bytes_stored: expect.any(Number),
  result_bytes_quota_in_force: expect.any(Number),
  created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
  updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
};

describe('tenants (admin)', () => {
  let testApp: TestApp;
  let app: FastifyInstance;

  beforeAll(async () => {
    testApp = await buildTestApp({ databaseUrl: await createTestDatabase() });
    app = testApp.app;
  });

  afterAll(async () => {
    await testApp?.close();
  });

  it('creates a tenant with the default quotas', async () => {
    const response = await call(app, ADMIN_TOKEN, 'POST', '/v1/tenants', { name: 'Acme' });
    expect(response.statusCode).toBe(201);
    const tenant = response.json<TenantView>();
    expect(tenant).toEqual({
      ...TENANT_SHAPE,
      name: 'Acme',
      max_cron_jobs: 50,
      min_schedule_interval_seconds: 60,
      rate_limit_rpm: 600,
      max_concurrent_runs: 10,
      run_retention_days: 30,
      audit_retention_days: 365,
    });
    expect(Object.keys(tenant)).not.toContain('deleted_at');
  });

  it('creates a tenant with explicit quotas (0 allowed where it means "none"/"no minimum")', async () => {
    const tenant = await createTenant(app, {
      name: '  Globex  ',
      max_cron_jobs: 0,
      min_schedule_interval_seconds: 0,
      rate_limit_rpm: 1,
    });
    expect(tenant).toEqual({
      ...TENANT_SHAPE,
      name: 'Globex',
      max_cron_jobs: 0,
      min_schedule_interval_seconds: 0,
      rate_limit_rpm: 1,
    });
    const big = await createTenant(app, {
      max_cron_jobs: 1_000_000,
      min_schedule_interval_seconds: 31_536_000,
      rate_limit_rpm: 1_000_000,
      max_concurrent_runs: 25,
    });
    expect(big.max_cron_jobs).toBe(1_000_000);
    expect(big.max_concurrent_runs).toBe(25);
    // The cap can be lifted again (null: unlimited), and it cannot be negative.
    const lifted = await call(app, ADMIN_TOKEN, 'PATCH', `/v1/tenants/${big.id}`, {
      max_concurrent_runs: null,
    });
    expect(lifted.json()).toMatchObject({ max_concurrent_runs: null });
    const negative = await call(app, ADMIN_TOKEN, 'PATCH', `/v1/tenants/${big.id}`, {
      max_concurrent_runs: -1,
    });
    expect(negative.statusCode).toBe(400);
  });

  it('sets how long a tenant keeps its run history (1 to 3650 days, default 30)', async () => {
    const tenant = await createTenant(app, { name: 'short memory', run_retention_days: 7 });
    expect(tenant.run_retention_days).toBe(7);
    const longer = await call(app, ADMIN_TOKEN, 'PATCH', `/v1/tenants/${tenant.id}`, {
      run_retention_days: 90,
    });
    expect(longer.json()).toMatchObject({ run_retention_days: 90 });
    for (const bad of [0, 3651, 1.5, '30']) {
      const refused = await call(app, ADMIN_TOKEN, 'PATCH', `/v1/tenants/${tenant.id}`, {
        run_retention_days: bad,
      });
      expectError(refused, 400, 'validation_error');
    }
  });

  it('sets how long a tenant keeps its audit log (1 to 3650 days, default 365)', async () => {
    const tenant = await createTenant(app, { name: 'audited', audit_retention_days: 90 });
    expect(tenant.audit_retention_days).toBe(90);
    const longer = await call(app, ADMIN_TOKEN, 'PATCH', `/v1/tenants/${tenant.id}`, {
      audit_retention_days: 730,
    });
    expect(longer.json()).toMatchObject({ audit_retention_days: 730 });
    for (const bad of [0, 3651, 1.5, '365']) {
      const refused = await call(app, ADMIN_TOKEN, 'PATCH', `/v1/tenants/${tenant.id}`, {
        audit_retention_days: bad,
      });
      expectError(refused, 400, 'validation_error');
    }
  });

  it('sets a quota of stored result bytes (null: the server default, 0: unlimited)', async () => {
    const tenant = await createTenant(app, { name: 'results', result_bytes_quota: 5_000_000 });
    expect(tenant).toMatchObject({
      result_bytes_quota: 5_000_000,
      result_bytes_stored: 0,
      result_bytes_quota_in_force: 5_000_000,
    });
    const back = await call(app, ADMIN_TOKEN, 'PATCH', `/v1/tenants/${tenant.id}`, {
      result_bytes_quota: null,
    });
    expect(back.json()).toMatchObject({
      result_bytes_quota: null,
      result_bytes_quota_in_force: 1024 ** 3,
    });
    const unlimited = await call(app, ADMIN_TOKEN, 'PATCH', `/v1/tenants/${tenant.id}`, {
      result_bytes_quota: 0,
    });
    expect(unlimited.json()).toMatchObject({
      result_bytes_quota: 0,
      result_bytes_quota_in_force: 0,
    });
    for (const bad of [-1, 1.5, '10', 2 ** 50 + 1]) {
      const refused = await call(app, ADMIN_TOKEN, 'PATCH', `/v1/tenants/${tenant.id}`, {
        result_bytes_quota: bad,
      });
      expectError(refused, 400, 'validation_error');
    }
  });

  it('lists live tenants (the default one included), gets one by id', async () => {
    const a = await createTenant(app, { name: 'list a' });
    const b = await createTenant(app, { name: 'list b' });
    const list = await call(app, ADMIN_TOKEN, 'GET', '/v1/tenants');
    expect(list.statusCode).toBe(200);
    const data = list.json<{ data: TenantView[] }>().data;
    for (const tenant of data) expect(tenant).toEqual(TENANT_SHAPE);
    const ids = data.map((t) => t.id);
    expect(ids).toContain(DEFAULT_TENANT_ID);
    expect(ids.indexOf(a.id)).toBeLessThan(ids.indexOf(b.id));
    expect(new Set(ids).size).toBe(ids.length);

    const one = await call(app, ADMIN_TOKEN, 'GET', `/v1/tenants/${a.id}`);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual(a);
    const fallback = await call(app, ADMIN_TOKEN, 'GET', `/v1/tenants/${DEFAULT_TENANT_ID}`);
    expect(fallback.json()).toMatchObject({ id: DEFAULT_TENANT_ID, name: 'default' });
  });

  it('patches some fields, keeps the others, and moves updated_at', async () => {
    const tenant = await createTenant(app, { name: 'before', max_cron_jobs: 7 });
    const response = await call(app, ADMIN_TOKEN, 'PATCH', `/v1/tenants/${tenant.id}`, {
      name: 'after',
      rate_limit_rpm: 42,
    });
    expect(response.statusCode).toBe(200);
    const patched = response.json<TenantView>();
    expect(patched).toEqual({
      ...tenant,
      name: 'after',
      rate_limit_rpm: 42,
      updated_at: expect.any(String),
    });
    expect(Date.parse(patched.updated_at)).toBeGreaterThanOrEqual(Date.parse(tenant.updated_at));
    const again = await call(app, ADMIN_TOKEN, 'GET', `/v1/tenants/${tenant.id}`);
    expect(again.json()).toEqual(patched);

    const quotas = await call(app, ADMIN_TOKEN, 'PATCH', `/v1/tenants/${tenant.id}`, {
      max_cron_jobs: 0,
      min_schedule_interval_seconds: 0,
    });
    expect(quotas.json()).toMatchObject({ max_cron_jobs: 0, min_schedule_interval_seconds: 0 });
  });

  it('deletes (204, empty body), then the tenant is 404 everywhere and gone from the list', async () => {
    const tenant = await createTenant(app);
    const response = await call(app, ADMIN_TOKEN, 'DELETE', `/v1/tenants/${tenant.id}`);
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expectError(await call(app, ADMIN_TOKEN, 'GET', `/v1/tenants/${tenant.id}`), 404, 'not_found');
    expectError(
      await call(app, ADMIN_TOKEN, 'PATCH', `/v1/tenants/${tenant.id}`, { name: 'zombie' }),
      404,
      'not_found',
    );
    expectError(
      await call(app, ADMIN_TOKEN, 'DELETE', `/v1/tenants/${tenant.id}`),
      404,
      'not_found',
    );
    const list = await call(app, ADMIN_TOKEN, 'GET', '/v1/tenants');
    expect(list.json<{ data: TenantView[] }>().data.map((t) => t.id)).not.toContain(tenant.id);
  });

  describe('validation', () => {
    const badCreates: [string, unknown][] = [
      ['an unknown field', { name: 'x', plan: 'gold' }],
      ['no name', {}],
      ['an empty name', { name: '' }],
      ['a blank name', { name: '   ' }],
      ['a name over 200 characters', { name: 'n'.repeat(201) }],
      ['a name that is not a string', { name: 42 }],
      ['a negative max_cron_jobs', { name: 'x', max_cron_jobs: -1 }],
      ['a negative min interval', { name: 'x', min_schedule_interval_seconds: -5 }],
      ['a zero rate limit', { name: 'x', rate_limit_rpm: 0 }],
      ['a negative rate limit', { name: 'x', rate_limit_rpm: -10 }],
      ['a fractional quota', { name: 'x', max_cron_jobs: 1.5 }],
      ['a quota as a string', { name: 'x', max_cron_jobs: '5' }],
      ['a huge quota', { name: 'x', max_cron_jobs: 1e12 }],
      ['a null quota', { name: 'x', rate_limit_rpm: null }],
      ['an array body', [{ name: 'x' }]],
      ['a string body', 'x'],
      ['a null body', null],
    ];
    for (const [label, body] of badCreates) {
      it(`POST with ${label} answers 400 validation_error`, async () => {
        const response = await app.inject({
          method: 'POST',
          url: '/v1/tenants',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
          payload: JSON.stringify(body),
        });
        expectError(response, 400, 'validation_error');
      });
    }

    it('PATCH refuses {}, unknown fields and bad values', async () => {
      const tenant = await createTenant(app);
      for (const body of [
        {},
        { plan: 'gold' },
        { name: '' },
        { max_cron_jobs: -1 },
        { rate_limit_rpm: 0 },
        { id: tenant.id },
        { deleted_at: null },
      ]) {
        expectError(
          await call(app, ADMIN_TOKEN, 'PATCH', `/v1/tenants/${tenant.id}`, body),
          400,
          'validation_error',
        );
      }
    });

    it('invalid JSON answers 400 invalid_json', async () => {
      const response = await app.inject({
        method: 'POST',
        url: '/v1/tenants',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        payload: '{"name": ',
      });
      expectError(response, 400, 'invalid_json');
    });

    const unknownIds = [
      '6f1c7e0a-1111-4222-8333-444455556666',
      '00000000-0000-0000-0000-000000000000',
      'nope',
      '123',
      "x' OR 1=1 --",
      'ü-ñ-🙂',
      '%00',
      'a'.repeat(100),
    ];
    for (const id of unknownIds) {
      it(`unknown or invalid id ${JSON.stringify(id.slice(0, 20))} answers 404 on GET/PATCH/DELETE`, async () => {
        const path = `/v1/tenants/${encodeURIComponent(id)}`;
        expectError(await call(app, ADMIN_TOKEN, 'GET', path), 404, 'not_found');
        expectError(await call(app, ADMIN_TOKEN, 'PATCH', path, { name: 'x' }), 404, 'not_found');
        expectError(await call(app, ADMIN_TOKEN, 'DELETE', path), 404, 'not_found');
      });
    }

    it('an id over 100 characters answers 414 uri_too_long in the error shape, not 500', async () => {
      const response = await call(app, ADMIN_TOKEN, 'GET', `/v1/tenants/${'a'.repeat(5000)}`);
      expectError(response, 414, 'uri_too_long');
    });

    it('a badly percent-encoded id answers 400 bad_request in the error shape', async () => {
      for (const id of ['%E0%A4%A', '%', '%zz']) {
        expectError(await call(app, ADMIN_TOKEN, 'GET', `/v1/tenants/${id}`), 400, 'bad_request');
      }
    });
  });
});
