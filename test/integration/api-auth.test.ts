import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey } from '../../src/db/api-keys.js';
import { SCOPES } from '../../src/domain/scopes.js';
import {
  ADMIN_TOKEN,
  DEFAULT_TENANT_ID,
  DEFAULT_TENANT_KEY,
  buildTestApp,
  call,
  createJob,
  createKey,
  createTenant,
  createTenantWithKey,
  expectError,
  type CreatedKey,
  type TestApp,
} from '../helpers/api.js';
import { createTestDatabase, withOwner } from '../helpers/database.js';
import { waitFor } from '../helpers/process-wait.js';

const NO_AUTH_THROTTLE = { SAAS_AUTH_FAILURES_PER_MINUTE: '1000000' };

describe('API authentication and authorisation', () => {
  let url: string;
  let testApp: TestApp;
  let app: FastifyInstance;

  beforeAll(async () => {
    url = await createTestDatabase();
    // Hundreds of bad credentials from one address: throttling has its own test (api-hardening).
    testApp = await buildTestApp({ databaseUrl: url, config: NO_AUTH_THROTTLE });
    app = testApp.app;
  });

  afterAll(async () => {
    await testApp?.close();
  });

  describe('bad credentials answer 401 unauthorized', () => {
    const cases: [string, Record<string, string>][] = [
      ['no Authorization header', {}],
      ['an empty header', { authorization: '' }],
      ['a non-bearer scheme', { authorization: `Basic ${ADMIN_TOKEN}` }],
      ['Bearer without a token', { authorization: 'Bearer ' }],
      ['a token with spaces inside', { authorization: `Bearer ${ADMIN_TOKEN} extra` }],
      ['a wrong token', { authorization: 'Bearer not-the-token' }],
      ['an unknown hk_ key', { authorization: `Bearer ${generateApiKey()}` }],
      ['an hk_ key of absurd length', { authorization: `Bearer hk_${'a'.repeat(5000)}` }],
      ['the admin token with a suffix', { authorization: `Bearer ${ADMIN_TOKEN}x` }],
    ];
    for (const [label, headers] of cases) {
      for (const url of ['/v1/tenants', '/v1/cron-jobs', '/v1/api-keys']) {
        it(`${label} on GET ${url}`, async () => {
          const response = await app.inject({ method: 'GET', url, headers });
          expectError(response, 401, 'unauthorized');
        });
      }
    }

    it('answers 401 before validating the body', async () => {
      const response = await app.inject({
        method: 'POST',
        url: '/v1/cron-jobs',
        payload: { nonsense: true },
      });
      expectError(response, 401, 'unauthorized');
    });

    it('accepts the scheme case-insensitively', async () => {
      const response = await app.inject({
        method: 'GET',
        url: '/v1/tenants',
        headers: { authorization: `bearer ${ADMIN_TOKEN}` },
      });
      expect(response.statusCode).toBe(200);
    });
  });

  describe('routes are for admins or tenants, not both', () => {
    it('a tenant credential on an admin route answers 403 forbidden', async () => {
      const { key } = await createTenantWithKey(app);
      for (const token of [key, DEFAULT_TENANT_KEY]) {
        expectError(await call(app, token, 'GET', '/v1/tenants'), 403, 'forbidden');
        expectError(await call(app, token, 'POST', '/v1/tenants', { name: 'x' }), 403, 'forbidden');
        expectError(await call(app, token, 'GET', '/v1/api-keys'), 403, 'forbidden');
        expectError(
          await call(app, token, 'GET', `/v1/tenants/${DEFAULT_TENANT_ID}`),
          403,
          'forbidden',
        );
      }
    });

    it('the admin token on a tenant route answers 403 forbidden', async () => {
      expectError(await call(app, ADMIN_TOKEN, 'GET', '/v1/cron-jobs'), 403, 'forbidden');
      expectError(
        await call(app, ADMIN_TOKEN, 'POST', '/v1/cron-jobs', {
          name: 'n',
          schedule: '@daily',
          prompt: 'p',
        }),
        403,
        'forbidden',
      );
      expectError(
        await call(app, ADMIN_TOKEN, 'POST', '/v1/cron-jobs/preview', { schedule: '@daily' }),
        403,
        'forbidden',
      );
    });

    it('public routes need no token', async () => {
      for (const url of ['/health/live', '/openapi.json', '/docs']) {
        expect((await app.inject({ method: 'GET', url })).statusCode, url).toBe(200);
      }
    });
  });

  describe('HERMES_API_KEY', () => {
    it('acts as a user of the default tenant', async () => {
      const job = await createJob(app, DEFAULT_TENANT_KEY, { name: 'default tenant job' });
      const owner = await withOwner(url, (client) =>
        client.query<{ tenant_id: string }>('SELECT tenant_id FROM cron_jobs WHERE id = $1', [
          job.id,
        ]),
      );
      expect(owner.rows[0]?.tenant_id).toBe(DEFAULT_TENANT_ID);
      // A key created for the default tenant sees the same job.
      const key = await createKey(app, DEFAULT_TENANT_ID);
      const response = await call(app, key.key, 'GET', `/v1/cron-jobs/${job.id}`);
      expect(response.statusCode).toBe(200);
    });
  });

  describe('tenant API keys', () => {
    it('work once created; the raw key appears only in the creation response', async () => {
      const tenant = await createTenant(app);
      const created = await createKey(app, tenant.id, { name: 'ci' });
      expect(created).toEqual({
        id: expect.any(String),
        tenant_id: tenant.id,
        name: 'ci',
        key_prefix: created.key.slice(0, 8),
        expires_at: null,
        revoked_at: null,
        created_at: expect.any(String),
        scopes: [...SCOPES],
        last_used_at: null,
        key: expect.stringMatching(/^hk_[A-Za-z0-9_-]{20,}$/),
      });

      const job = await createJob(app, created.key);
      expect((await call(app, created.key, 'GET', `/v1/cron-jobs/${job.id}`)).statusCode).toBe(200);

      for (const listUrl of ['/v1/api-keys', `/v1/api-keys?tenant_id=${tenant.id}`]) {
        const list = await call(app, ADMIN_TOKEN, 'GET', listUrl);
        expect(list.statusCode).toBe(200);
        expect(list.body).not.toContain(created.key);
        const listed = list.json<{ data: Record<string, unknown>[] }>().data;
        const mine = listed.find((k) => k.id === created.id);
        expect(mine).toEqual({
          id: created.id,
          tenant_id: tenant.id,
          name: 'ci',
          key_prefix: created.key_prefix,
          expires_at: null,
          revoked_at: null,
          created_at: created.created_at,
          scopes: [...SCOPES],
          // Stamped in the background (access-scopes.test.ts waits for it).
          last_used_at: mine?.last_used_at === null ? null : expect.any(String),
        });
        for (const key of listed) expect(Object.keys(key)).not.toContain('key');
      }

      const stored = await withOwner(url, (client) =>
        client.query<{ key_hash: string; key_prefix: string }>(
          'SELECT key_hash, key_prefix FROM api_keys WHERE id = $1',
          [created.id],
        ),
      );
      const sha256 = createHash('sha256').update(created.key).digest('hex');
      expect(stored.rows[0]?.key_hash).toBe(sha256);
      expect(stored.rows[0]?.key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(stored.rows[0]?.key_hash).not.toContain(created.key);
      const anywhere = await withOwner(url, (client) =>
        client.query('SELECT 1 FROM api_keys WHERE api_keys::text LIKE $1', [`%${created.key}%`]),
      );
      expect(anywhere.rowCount).toBe(0);
    });

    it('lists only the given tenant with ?tenant_id, and refuses a bad tenant_id', async () => {
      const a = await createTenant(app);
      const b = await createTenant(app);
      const keyA = await createKey(app, a.id);
      await createKey(app, b.id);
      const list = await call(app, ADMIN_TOKEN, 'GET', `/v1/api-keys?tenant_id=${a.id}`);
      const rows = list.json<{ data: CreatedKey[] }>().data;
      expect(rows.map((k) => k.id)).toEqual([keyA.id]);
      expectError(
        await call(app, ADMIN_TOKEN, 'GET', '/v1/api-keys?tenant_id=nope'),
        400,
        'validation_error',
      );
    });

    it('refuses keys for unknown or deleted tenants and bad bodies', async () => {
      expectError(
        await call(app, ADMIN_TOKEN, 'POST', '/v1/api-keys', {
          tenant_id: '6f1c7e0a-1111-4222-8333-444455556666',
          name: 'k',
        }),
        404,
        'not_found',
      );
      const gone = await createTenant(app);
      expect((await call(app, ADMIN_TOKEN, 'DELETE', `/v1/tenants/${gone.id}`)).statusCode).toBe(
        204,
      );
      expectError(
        await call(app, ADMIN_TOKEN, 'POST', '/v1/api-keys', { tenant_id: gone.id, name: 'k' }),
        404,
        'not_found',
      );
      const tenant = await createTenant(app);
      const bad: unknown[] = [
        { tenant_id: tenant.id },
        { tenant_id: tenant.id, name: '' },
        { tenant_id: tenant.id, name: '   ' },
        { tenant_id: tenant.id, name: 'k', extra: 1 },
        { tenant_id: 'not-a-uuid', name: 'k' },
        { tenant_id: tenant.id, name: 'k', expires_at: 'tomorrow' },
        { tenant_id: tenant.id, name: 'k', expires_at: '2001-01-01T00:00:00Z' },
        { tenant_id: tenant.id, name: 'x'.repeat(201) },
      ];
      for (const body of bad) {
        expectError(
          await call(app, ADMIN_TOKEN, 'POST', '/v1/api-keys', body),
          400,
          'validation_error',
        );
      }
    });

    it('a revoked key answers 401; revoking twice or an unknown id answers 404', async () => {
      const { tenant } = await createTenantWithKey(app);
      const key = await createKey(app, tenant.id);
      const other = await createKey(app, tenant.id);
      expect((await call(app, key.key, 'GET', '/v1/cron-jobs')).statusCode).toBe(200);

      const revoke = await call(app, ADMIN_TOKEN, 'DELETE', `/v1/api-keys/${key.id}`);
      expect(revoke.statusCode).toBe(204);
      expect(revoke.body).toBe('');
      expectError(await call(app, key.key, 'GET', '/v1/cron-jobs'), 401, 'unauthorized');
      // The tenant's other key still works.
      expect((await call(app, other.key, 'GET', '/v1/cron-jobs')).statusCode).toBe(200);

      const list = await call(app, ADMIN_TOKEN, 'GET', `/v1/api-keys?tenant_id=${tenant.id}`);
      const revoked = list.json<{ data: CreatedKey[] }>().data.find((k) => k.id === key.id);
      expect(revoked?.revoked_at).toEqual(expect.any(String));

      expectError(
        await call(app, ADMIN_TOKEN, 'DELETE', `/v1/api-keys/${key.id}`),
        404,
        'not_found',
      );
      for (const id of ['6f1c7e0a-1111-4222-8333-444455556666', 'nope', "1' OR '1'='1"]) {
        expectError(
          await call(app, ADMIN_TOKEN, 'DELETE', `/v1/api-keys/${encodeURIComponent(id)}`),
          404,
          'not_found',
        );
      }
    });

    it('an expired key answers 401 (inserted with a past expiry)', async () => {
      const tenant = await createTenant(app);
      const raw = generateApiKey();
      await withOwner(url, (client) =>
        client.query(
          `INSERT INTO api_keys (tenant_id, name, key_hash, key_prefix, expires_at)
           VALUES ($1, 'old', $2, $3, now() - interval '1 second')`,
          [tenant.id, hashApiKey(raw), raw.slice(0, 8)],
        ),
      );
      expectError(await call(app, raw, 'GET', '/v1/cron-jobs'), 401, 'unauthorized');
    });

    it('a key created with a near expiry works until then, and answers 401 after', async () => {
      const tenant = await createTenant(app);
      const expiresAt = new Date(Date.now() + 1500);
      const key = await createKey(app, tenant.id, { expires_at: expiresAt.toISOString() });
      expect(key.expires_at).toBe(expiresAt.toISOString());
      expect((await call(app, key.key, 'GET', '/v1/cron-jobs')).statusCode).toBe(200);
      await waitFor(
        async () => {
          expectError(await call(app, key.key, 'GET', '/v1/cron-jobs'), 401, 'unauthorized');
        },
        { timeoutMs: 10_000, intervalMs: 100, what: 'the key to expire' },
      );
      expect(Date.now()).toBeGreaterThanOrEqual(expiresAt.getTime());
    });
  });

  describe('soft-deleted tenants', () => {
    it('lose their keys at once and their jobs stop being schedulable', async () => {
      const { tenant, key } = await createTenantWithKey(app);
      const job = await createJob(app, key);
      const loaded = async () =>
        withOwner(url, async (client) => {
          const { rows } = await client.query<{ id: string }>(
            'SELECT id FROM scheduler_load_schedules() WHERE tenant_id = $1',
            [tenant.id],
          );
          return rows.map((r) => r.id);
        });
      expect(await loaded()).toEqual([job.id]);

      const response = await call(app, ADMIN_TOKEN, 'DELETE', `/v1/tenants/${tenant.id}`);
      expect(response.statusCode).toBe(204);

      expectError(await call(app, key, 'GET', '/v1/cron-jobs'), 401, 'unauthorized');
      expectError(await call(app, key, 'GET', `/v1/cron-jobs/${job.id}`), 401, 'unauthorized');
      expect(await loaded()).toEqual([]);
      // The rows stay (soft delete), only hidden from the admin API.
      const row = await withOwner(url, (client) =>
        client.query<{ deleted_at: Date | null }>('SELECT deleted_at FROM tenants WHERE id = $1', [
          tenant.id,
        ]),
      );
      expect(row.rows[0]?.deleted_at).toBeInstanceOf(Date);
      expectError(
        await call(app, ADMIN_TOKEN, 'GET', `/v1/tenants/${tenant.id}`),
        404,
        'not_found',
      );
    });
  });
});

describe('HERMES_API_KEY after the default tenant is deleted', () => {
  it('answers 401 (checked on a fresh app, so no cached tenant row is involved)', async () => {
    const url = await createTestDatabase();
    const testApp = await buildTestApp({ databaseUrl: url, config: NO_AUTH_THROTTLE });
    try {
      const { app } = testApp;
      expect(
        (await call(app, ADMIN_TOKEN, 'DELETE', `/v1/tenants/${DEFAULT_TENANT_ID}`)).statusCode,
      ).toBe(204);
      expectError(await call(app, DEFAULT_TENANT_KEY, 'GET', '/v1/cron-jobs'), 401, 'unauthorized');
    } finally {
      await testApp.close();
    }
  });
});
