// The dashboard's static route: content types, CSP, cache headers, gzip, the SPA fallback only
// for dashboard paths, and a clear answer when the dashboard was not built.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerErrorHandling } from '../../src/http/errors.js';
import { registerDashboardRoutes } from '../../src/http/routes/dashboard.js';
import { buildTestApp, type TestApp } from '../helpers/api.js';
import { createTestDatabase } from '../helpers/database.js';

const SCRIPT = `console.log(${JSON.stringify('x'.repeat(4000))});\n`;
let webDir: string;
let app: FastifyInstance;

async function appFor(dir: string): Promise<FastifyInstance> {
  const instance = Fastify();
  registerErrorHandling(instance);
  registerDashboardRoutes(instance, { webDir: dir });
  await instance.ready();
  return instance;
}

beforeAll(async () => {
  webDir = mkdtempSync(path.join(os.tmpdir(), 'hermesx-web-'));
  mkdirSync(path.join(webDir, 'assets'));
  writeFileSync(
    path.join(webDir, 'index.html'),
    '<!doctype html><script type="module" src="/assets/index-abc123.js"></script>',
  );
  writeFileSync(path.join(webDir, 'assets', 'index-abc123.js'), SCRIPT);
  writeFileSync(path.join(webDir, 'assets', 'index-abc123.css'), 'body{margin:0}');
  writeFileSync(path.join(webDir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  app = await appFor(webDir);
});

afterAll(async () => {
  await app?.close();
  rmSync(webDir, { recursive: true, force: true });
});

describe('dashboard static files', () => {
  it('serves index.html at / with a strict CSP and no caching', async () => {
    const response = await app.inject({ url: '/' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-cache');
    const csp = String(response.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.body).toContain('/assets/index-abc123.js');
  });

  it('serves hashed assets as immutable, with their content type, gzipped when asked', async () => {
    const plain = await app.inject({ url: '/assets/index-abc123.js' });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(SCRIPT);
    const gzipped = await app.inject({
      url: '/assets/index-abc123.js',
      headers: { 'accept-encoding': 'gzip, br' },
    });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.headers.vary).toBe('accept-encoding');
    expect(gunzipSync(gzipped.rawPayload).toString()).toBe(SCRIPT);
    expect(gzipped.rawPayload.length).toBeLessThan(SCRIPT.length / 10);
    const css = await app.inject({ url: '/assets/index-abc123.css' });
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    const icon = await app.inject({ url: '/favicon.svg' });
    expect(icon.headers['content-type']).toBe('image/svg+xml');
    expect(icon.headers['cache-control']).toBe('no-cache');
  });

  it('answers index.html for dashboard paths only', async () => {
    for (const url of ['/jobs', '/jobs/new', '/jobs/abc/edit', '/tenants/x', '/keys', '/cluster']) {
      const response = await app.inject({ url });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['content-type'], url).toBe('text/html; charset=utf-8');
    }
    for (const url of ['/assets/missing.js', '/assets/../index.html', '/jobsx', '/nothing']) {
      const response = await app.inject({ url });
      expect(response.statusCode, url).toBe(404);
      expect(response.json(), url).toEqual({
        error: { code: 'not_found', message: expect.any(String) as unknown },
      });
    }
  });

  it('answers index.html for any page a browser asks for outside the API', async () => {
    const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
    for (const url of [
      '/secrets',
      '/skills',
      '/skills/new',
      '/skills/daily-summary',
      '/settings',
      '/a/page/added/later?tab=2',
      '/jobsx',
    ]) {
      for (const method of ['GET', 'HEAD'] as const) {
        const response = await app.inject({ method, url, headers: html });
        expect([method, url, response.statusCode], response.body).toEqual([method, url, 200]);
        expect(response.headers['content-type'], url).toBe('text/html; charset=utf-8');
        expect(response.headers['content-security-policy'], url).toContain("default-src 'none'");
      }
    }
    // Pages the dashboard owns answer whoever asks; an unknown one only a browser.
    expect((await app.inject({ url: '/secrets' })).statusCode).toBe(200);
    const api = { accept: 'application/json' };
    expect((await app.inject({ url: '/a/page/added/later', headers: api })).statusCode).toBe(404);
    // The API, probes, metrics, the spec, the docs and assets keep their JSON 404s.
    for (const url of [
      '/v1',
      '/v1/nothing-here',
      '/v1/skills/x/y/z',
      '/health/nothing',
      '/metrics/x',
      '/openapi.json/x',
      '/docs/x',
      '/assets/missing.js',
    ]) {
      const response = await app.inject({ url, headers: html });
      expect([url, response.statusCode]).toEqual([url, 404]);
      expect(response.json(), url).toEqual({
        error: { code: 'not_found', message: expect.any(String) as unknown },
      });
    }
    const post = await app.inject({ method: 'POST', url: '/a/page', headers: html });
    expect(post.statusCode).toBe(404);
    expect(post.headers['content-type']).toContain('application/json');
  });

  it('says how to build the dashboard when dist/web is missing', async () => {
    const empty = mkdtempSync(path.join(os.tmpdir(), 'hermesx-noweb-'));
    const bare = await appFor(empty);
    try {
      for (const url of ['/', '/jobs']) {
        const response = await bare.inject({ url });
        expect(response.statusCode).toBe(503);
        expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
        expect(response.body).toContain('npm run build');
      }
    } finally {
      await bare.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('dashboard routes in the whole app', () => {
  let service: TestApp;
  beforeAll(async () => {
    service = await buildTestApp({ databaseUrl: await createTestDatabase() });
  });
  afterAll(async () => service?.close());

  it('never shadows the API, health, metrics or OpenAPI routes', async () => {
    const notFound = await service.app.inject({ url: '/v1/nothing-here' });
    expect(notFound.statusCode).toBe(404);
    expect(notFound.headers['content-type']).toContain('application/json');
    expect((await service.app.inject({ url: '/health/live' })).json()).toEqual({ status: 'ok' });
    const spec = (await service.app.inject({ url: '/openapi.json' })).json<{
      paths: Record<string, unknown>;
    }>();
    expect(Object.keys(spec.paths)).toContain('/v1/cluster');
    expect(Object.keys(spec.paths)).not.toContain('/');
    expect(Object.keys(spec.paths)).not.toContain('/jobs/*');
    const page = await service.app.inject({
      url: '/v1/nothing-here',
      headers: { accept: 'text/html' },
    });
    expect(page.statusCode).toBe(404);
    expect(page.headers['content-type']).toContain('application/json');
    const root = await service.app.inject({ url: '/' });
    expect([200, 503]).toContain(root.statusCode);
    expect(root.headers['content-security-policy']).toContain("script-src 'self'");
  });
});
