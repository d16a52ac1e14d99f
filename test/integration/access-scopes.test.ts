// Scoped API keys and the one permission check: every tenant route names a scope, a key lacking
// it gets 403 insufficient_scope naming it, a key holding it gets past the check; the OpenAPI
// document declares each operation's scope; keys show last_used_at; a tenant holding
// access:manage manages its own keys and cannot grant a scope it lacks.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES, type Scope } from '../../src/domain/scopes.js';
import type { RouteAccess } from '../../src/http/permissions.js';
import {
  ADMIN_TOKEN,
  DEFAULT_TENANT_KEY,
  buildTestApp,
  call,
  createKey,
  createTenant,
  expectError,
  type CreatedKey,
  type TestApp,
} from '../helpers/api.js';
import { createTestDatabase, withOwner } from '../helpers/database.js';
import { waitFor } from '../helpers/process-wait.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
const ABSENT_ID = '7c0e6d1e-2b9a-4f43-9d0f-5f6a1b2c3d4e';

/** A URL of the route with its parameters filled in (an id that names nothing). */
const urlOf = (route: RouteAccess) =>
  route.url.replace(/:id\b/g, ABSENT_ID).replace(/:name\b/g, 'absent-name');

describe('scoped API keys and the permission check', () => {
  let testApp: TestApp;
  let app: FastifyInstance;
  let tenantId: string;
  let url: string;
  const keyWith = new Map<string, CreatedKey>();

  const tenantRoutes = () =>
    app.routeAccess.filter((route) => route.access === 'tenant' && !route.hidden);

  beforeAll(async () => {
    url = await createTestDatabase();
    testApp = await buildTestApp({
      databaseUrl: url,
      config: { HERMES_SECRETS_KEY: 'ab'.repeat(32) },
    });
    app = testApp.app;
    tenantId = (await createTenant(app, { rate_limit_rpm: 100_000 })).id;
    for (const scope of SCOPES) {
      keyWith.set(`only ${scope}`, await createKey(app, tenantId, { scopes: [scope] }));
      const others = SCOPES.filter((other) => other !== scope);
      keyWith.set(`all but ${scope}`, await createKey(app, tenantId, { scopes: others }));
    }
  });

  afterAll(async () => {
    await testApp?.close();
  });

  it('every tenant route names the scope it needs', () => {
    const routes = app.routeAccess.filter((route) => route.access === 'tenant');
    expect(routes.length).toBeGreaterThan(35);
    const unscoped = routes.filter((route) => !route.scope).map((r) => `${r.method} ${r.url}`);
    expect(unscoped, 'tenant routes without config.scope').toEqual([]);
    for (const route of routes) expect(SCOPES).toContain(route.scope);
  });

  it('a key lacking the route’s scope gets 403 insufficient_scope naming it; one holding it does not', async () => {
    const seen: string[] = [];
    for (const route of tenantRoutes()) {
      const scope = route.scope as Scope;
      const method = route.method as Method;
      const body = method === 'GET' || method === 'DELETE' ? undefined : {};
      const lacking = await call(
        app,
        keyWith.get(`all but ${scope}`)!.key,
        method,
        urlOf(route),
        body,
      );
      const message = expectError(lacking, 403, 'insufficient_scope');
      expect(message).toBe(`this request needs the scope ${scope}`);
      const holding = await call(
        app,
        keyWith.get(`only ${scope}`)!.key,
        method,
        urlOf(route),
        body,
      );
      expect(holding.statusCode, `${method} ${route.url}: ${holding.body}`).not.toBe(403);
      expect(holding.statusCode, `${method} ${route.url}: ${holding.body}`).not.toBe(500);
      seen.push(`${method} ${route.url}`);
    }
    expect(seen.length).toBe(tenantRoutes().length);
  });

  it('the admin token passes every scope check (admin routes), the default key holds every scope', async () => {
    const page = await call(app, ADMIN_TOKEN, 'GET', '/v1/admin/audit-log');
    expect(page.statusCode, page.body).toBe(200);
    const own = await call(app, DEFAULT_TENANT_KEY, 'GET', '/v1/audit-log');
    expect(own.statusCode, own.body).toBe(200);
  });

  it('a key made before scopes existed (scopes NULL) holds every scope', async () => {
    const old = await createKey(app, tenantId, { name: 'old' });
    await withOwner(url, (owner) =>
      owner.query('UPDATE api_keys SET scopes = NULL WHERE id = $1', [old.id]),
    );
    for (const path of ['/v1/cron-jobs', '/v1/audit-log', '/v1/tenant/api-keys', '/v1/secrets']) {
      const response = await call(app, old.key, 'GET', path);
      expect(response.statusCode, `${path}: ${response.body}`).toBe(200);
    }
    const listed = await call(app, ADMIN_TOKEN, 'GET', `/v1/api-keys?tenant_id=${tenantId}`);
    const view = listed.json<{ data: CreatedKey[] }>().data.find((key) => key.id === old.id);
    expect(view?.scopes).toEqual([...SCOPES]);
  });

  it('every tenant operation of /openapi.json declares its scope', async () => {
    const document = (await call(app, undefined, 'GET', '/openapi.json')).json<{
      paths: Record<
        string,
        Record<string, { security?: unknown; description?: string; 'x-required-scope'?: string }>
      >;
    }>();
    for (const route of tenantRoutes()) {
      const path = route.url.replace(/:(\w+)/g, '{$1}');
      const operation = document.paths[path]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${path}`).toBeDefined();
      expect(operation?.security).toEqual([{ bearer: [] }]);
      expect(operation?.['x-required-scope']).toBe(route.scope);
      expect(operation?.description).toContain(`Needs the scope \`${route.scope}\`.`);
    }
  });

  it('last_used_at is stamped on use, at most once a minute', async () => {
    const key = await createKey(app, tenantId, { scopes: ['jobs:read'] });
    expect(key.last_used_at).toBeNull();
    expect((await call(app, key.key, 'GET', '/v1/cron-jobs')).statusCode).toBe(200);
    const stamp = async () => {
      const listed = await call(app, ADMIN_TOKEN, 'GET', `/v1/api-keys?tenant_id=${tenantId}`);
      return listed.json<{ data: CreatedKey[] }>().data.find((k) => k.id === key.id)?.last_used_at;
    };
    const first = await waitFor(
      async () => {
        const value = await stamp();
        if (!value) throw new Error('last_used_at not set yet');
        return value;
      },
      { timeoutMs: 5000, what: 'last_used_at set' },
    );
    for (let i = 0; i < 5; i++) await call(app, key.key, 'GET', '/v1/cron-jobs');
    expect(await stamp()).toBe(first);
  });
});

describe('a tenant manages its own keys (access:manage)', () => {
  let testApp: TestApp;
  let app: FastifyInstance;
  let manager: CreatedKey;
  let otherTenantKey: CreatedKey;

  beforeAll(async () => {
    const url = await createTestDatabase();
    testApp = await buildTestApp({ databaseUrl: url });
    app = testApp.app;
    const tenant = await createTenant(app);
    manager = await createKey(app, tenant.id, { scopes: ['access:manage', 'jobs:read', 'chat'] });
    otherTenantKey = await createKey(app, (await createTenant(app)).id);
  });

  afterAll(async () => {
    await testApp?.close();
  });

  it('creates a key with a subset of its own scopes, lists and revokes it', async () => {
    const created = await call(app, manager.key, 'POST', '/v1/tenant/api-keys', {
      name: 'on-call',
      scopes: ['jobs:read'],
    });
    expect(created.statusCode, created.body).toBe(201);
    const key = created.json<CreatedKey>();
    expect(key).toMatchObject({ tenant_id: manager.tenant_id, scopes: ['jobs:read'] });
    expect((await call(app, key.key, 'GET', '/v1/cron-jobs')).statusCode).toBe(200);
    expectError(await call(app, key.key, 'POST', '/v1/cron-jobs', {}), 403, 'insufficient_scope');

    const listed = await call(app, manager.key, 'GET', '/v1/tenant/api-keys');
    const ids = listed.json<{ data: CreatedKey[] }>().data.map((k) => k.id);
    expect(ids).toContain(key.id);
    expect(ids).not.toContain(otherTenantKey.id);

    const revoked = await call(app, manager.key, 'DELETE', `/v1/tenant/api-keys/${key.id}`);
    expect(revoked.statusCode, revoked.body).toBe(204);
    expectError(await call(app, key.key, 'GET', '/v1/cron-jobs'), 401, 'unauthorized');
  });

  it('omitting scopes gives the caller’s own scopes, never more', async () => {
    const created = await call(app, manager.key, 'POST', '/v1/tenant/api-keys', { name: 'copy' });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json<CreatedKey>().scopes.sort()).toEqual([
      'access:manage',
      'chat',
      'jobs:read',
    ]);
  });

  it('cannot grant a scope it lacks', async () => {
    const response = await call(app, manager.key, 'POST', '/v1/tenant/api-keys', {
      name: 'escalate',
      scopes: ['jobs:read', 'secrets:write'],
    });
    const message = expectError(response, 403, 'insufficient_scope');
    expect(message).toContain('secrets:write');
  });

  it('cannot revoke another tenant’s key (404), and a key without access:manage gets 403', async () => {
    expectError(
      await call(app, manager.key, 'DELETE', `/v1/tenant/api-keys/${otherTenantKey.id}`),
      404,
      'not_found',
    );
    expect((await call(app, otherTenantKey.key, 'GET', '/v1/cron-jobs')).statusCode).toBe(200);
    const reader = await call(app, manager.key, 'POST', '/v1/tenant/api-keys', {
      name: 'reader',
      scopes: ['jobs:read'],
    });
    const readerKey = reader.json<CreatedKey>().key;
    expectError(
      await call(app, readerKey, 'GET', '/v1/tenant/api-keys'),
      403,
      'insufficient_scope',
    );
  });

  it('refuses unknown or repeated scopes with 400', async () => {
    for (const scopes of [['jobs:admin'], [], ['jobs:read', 'jobs:read']]) {
      const response = await call(app, manager.key, 'POST', '/v1/tenant/api-keys', {
        name: 'bad',
        scopes,
      });
      expectError(response, 400, 'validation_error');
    }
  });
});
