import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_FIELDS, buildTestApp, type TestApp } from '../helpers/api.js';
import { createTestDatabase } from '../helpers/database.js';

/** Every REST operation of the API (DESIGN.md §1), as path → methods. */
const OPERATIONS: Record<string, string[]> = {
  '/v1/tenants': ['get', 'post'],
  '/v1/tenants/{id}': ['delete', 'get', 'patch'],
  '/v1/api-keys': ['get', 'post'],
  '/v1/api-keys/{id}': ['delete'],
  '/v1/tenant/api-keys': ['get', 'post'],
  '/v1/tenant/api-keys/{id}': ['delete'],
  '/v1/audit-log': ['get'],
  '/v1/audit-log/export': ['get'],
  '/v1/admin/audit-log': ['get'],
  '/v1/cron-jobs': ['get', 'post'],
  '/v1/cron-jobs/{id}': ['delete', 'get', 'patch'],
  '/v1/cron-jobs/{id}/trigger': ['post'],
  '/v1/cron-jobs/{id}/runs': ['get'],
  '/v1/cron-jobs/preview': ['post'],
  '/v1/cron-jobs/{id}/deliveries': ['get'],
  '/v1/webhooks': ['get', 'post'],
  '/v1/webhooks/{id}': ['delete', 'get', 'patch'],
  '/v1/webhooks/{id}/rotate-secret': ['post'],
  '/v1/webhooks/{id}/deliveries': ['get'],
  '/v1/webhook-deliveries/{id}/redeliver': ['post'],
};

interface Schema {
  $ref?: string;
  properties?: Record<string, unknown>;
}

interface Operation {
  operationId?: string;
  summary?: string;
  security?: unknown[];
  parameters?: { in: string; name: string }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}

interface Spec {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  servers?: { url: string }[];
  security?: unknown[];
  components?: { securitySchemes?: Record<string, unknown>; schemas?: Record<string, Schema> };
}

describe('OpenAPI description and /docs', () => {
  let testApp: TestApp;
  let spec: Spec;
  let raw: string;

  beforeAll(async () => {
    testApp = await buildTestApp({ databaseUrl: await createTestDatabase() });
    const response = await testApp.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    raw = response.body;
    spec = JSON.parse(raw) as Spec;
  });

  afterAll(async () => {
    await testApp?.close();
  });

  it('is an OpenAPI 3 document with a bearer security scheme', () => {
    expect(spec.openapi).toMatch(/^3\./);
    expect(spec.info.title).toBe('HermesX API');
    expect(spec.components?.securitySchemes?.bearer).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
  });

  it('lists every REST operation, each with a summary and bearer security', () => {
    for (const [path, methods] of Object.entries(OPERATIONS)) {
      const operations = spec.paths[path];
      expect(operations, path).toBeDefined();
      expect(
        Object.keys(operations ?? {})
          .filter((m) => m !== 'options' && m !== 'head')
          .sort(),
        path,
      ).toEqual(methods);
      for (const method of methods) {
        const op = operations?.[method];
        expect(op?.summary, `${method} ${path}`).toEqual(expect.any(String));
        expect(op?.security, `${method} ${path}`).toEqual([{ bearer: [] }]);
        if (path.includes('{id}')) {
          expect(op?.parameters, `${method} ${path}`).toContainEqual(
            expect.objectContaining({ in: 'path', name: 'id' }),
          );
        }
      }
    }
  });

  /** A schema, or the named component it refers to. */
  const resolve = (schema: Schema | undefined): Schema | undefined =>
    schema?.$ref
      ? spec.components?.schemas?.[schema.$ref.replace('#/components/schemas/', '')]
      : schema;

  it('is OpenAPI 3.1 with servers, default bearer security, the package version, named schemas', async () => {
    const { readFile } = await import('node:fs/promises');
    const pkg = JSON.parse(await readFile('package.json', 'utf8')) as { version: string };
    expect(spec.openapi).toBe('3.1.0');
    expect(spec.info.version).toBe(pkg.version);
    expect(spec.servers?.length).toBeGreaterThan(0);
    expect(spec.security).toEqual([{ bearer: [] }]);
    for (const name of ['CronJob', 'Run', 'Tenant', 'ApiKey', 'ApiKeyCreated', 'Error']) {
      expect(spec.components?.schemas?.[name], name).toBeDefined();
    }
  });

  it('gives every operation a unique operationId; public routes need no token; 204s have no body', () => {
    const ids = Object.values(spec.paths).flatMap((ops) =>
      Object.values(ops).map((op) => op.operationId),
    );
    expect(ids.every((id) => typeof id === 'string')).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const path of ['/health/live', '/health/ready', '/metrics']) {
      expect(spec.paths[path]?.get?.security, path).toEqual([]);
    }
    for (const [path, ops] of Object.entries(spec.paths)) {
      const deleted = ops.delete?.responses['204'];
      if (ops.delete) expect(deleted, path).toBeDefined();
      expect(deleted?.content, path).toBeUndefined();
    }
  });

  it('states the bounds the server enforces', () => {
    const list = spec.paths['/v1/cron-jobs']?.get?.parameters as
      { name: string; schema: { minimum?: number; maximum?: number } }[] | undefined;
    expect(list?.find((p) => p.name === 'limit')?.schema).toMatchObject({
      minimum: 1,
      maximum: 100,
    });
    const preview = resolve(
      spec.paths['/v1/cron-jobs/preview']?.post?.requestBody?.content['application/json']?.schema,
    );
    expect(preview?.properties?.count).toMatchObject({ minimum: 1, maximum: 100 });
    const job = resolve(spec.components?.schemas?.CronJob);
    expect(job?.properties?.created_at).toMatchObject({ type: 'string', format: 'date-time' });
    // An empty PATCH is a 400: the document says so too.
    expect(spec.components?.schemas?.CronJobPatch).toMatchObject({ minProperties: 1 });
    expect(spec.components?.schemas?.TenantPatch).toMatchObject({ minProperties: 1 });
  });

  it('describes the job with all its fields, and the request bodies', () => {
    const created = spec.paths['/v1/cron-jobs']?.post;
    const job = resolve(created?.responses['201']?.content?.['application/json']?.schema);
    expect(Object.keys(job?.properties ?? {}).sort()).toEqual([...JOB_FIELDS].sort());
    const body = resolve(created?.requestBody?.content['application/json']?.schema);
    expect(Object.keys(body?.properties ?? {}).sort()).toEqual(
      [
        'enabled',
        'name',
        'prompt',
        'schedule',
        'timezone',
        'description',
        'labels',
        'paused_reason',
        'pause_after_failures',
        'ends_at',
        'max_runs',
        'max_run_tokens',
        'daily_budget_micros',
        'timeout',
        'model',
        'models',
        'output_schema',
        'jitter',
        'overlap',
        'retry',
        'context',
        'mcp_servers',
        'skills',
        'notify',
      ].sort(),
    );
    const preview = resolve(
      spec.paths['/v1/cron-jobs/preview']?.post?.requestBody?.content['application/json']?.schema,
    );
    expect(Object.keys(preview?.properties ?? {}).sort()).toEqual(
      ['count', 'from', 'schedule', 'timezone'].sort(),
    );
    const key = resolve(
      spec.paths['/v1/api-keys']?.post?.responses['201']?.content?.['application/json']?.schema,
    );
    expect(Object.keys(key?.properties ?? {})).toContain('key');
    const list = resolve(
      spec.paths['/v1/api-keys']?.get?.responses['200']?.content?.['application/json']?.schema,
    );
    expect(JSON.stringify(list)).toContain('#/components/schemas/ApiKey"');
    expect(JSON.stringify(spec.components?.schemas?.ApiKey)).not.toContain('"key"');
  });

  it('does not list /openapi.json and /docs themselves', () => {
    expect(Object.keys(spec.paths)).not.toContain('/openapi.json');
    expect(Object.keys(spec.paths)).not.toContain('/docs');
  });

  it('/docs is an HTML page listing every operation', async () => {
    const response = await testApp.app.inject({ method: 'GET', url: '/docs' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    const html = response.body;
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain('href="/openapi.json"');
    for (const [path, methods] of Object.entries(OPERATIONS)) {
      for (const method of methods) {
        expect(html, `${method} ${path}`).toContain(
          `<td><code>${method.toUpperCase()}</code></td><td><code>${path}</code></td>`,
        );
      }
    }
  });
});
