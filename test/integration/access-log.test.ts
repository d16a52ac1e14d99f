// The request log: one line per request with method, route, status, duration, request id and
// tenant, never the Authorization header; model failures in chat at WARN with the request id.
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { Pool } from '../../src/db/pool.js';
import { buildApp } from '../../src/http/app.js';
import { ADMIN_TOKEN, DEFAULT_TENANT_ID, DEFAULT_TENANT_KEY, bearer } from '../helpers/api.js';
import { createAppPool, createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { capturingLogger } from '../helpers/log.js';

const logfmt = createRequire(import.meta.url)('logfmt') as {
  parse(line: string): Record<string, string | boolean | null>;
};

describe('request logging', () => {
  let llm: FakeLlm;
  let pool: Pool;
  let app: FastifyInstance;
  let lines: string[];

  beforeAll(async () => {
    llm = await startFakeLlm();
    pool = createAppPool(await createTestDatabase());
    const captured = capturingLogger('text');
    lines = captured.lines;
    const config = loadConfig({
      HERMES_ACP_TOKEN: ADMIN_TOKEN,
      HERMES_API_KEY: DEFAULT_TENANT_KEY,
      LLM_API_URL: llm.url,
    });
    app = await buildApp({
      config,
      pool,
      redis: undefined,
      log: captured.log,
      registry: new Registry(),
    });
  });
  afterAll(async () => {
    await app?.close();
    await pool?.end();
    await llm?.close();
  });
  beforeEach(() => {
    lines.length = 0;
  });

  const requestLines = () =>
    lines.map((line) => logfmt.parse(line)).filter((record) => record.msg === 'request');

  it('logs one INFO line per request with route, status, duration, request id and tenant', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/v1/cron-jobs?limit=5',
      headers: bearer(DEFAULT_TENANT_KEY),
    });
    expect(response.statusCode).toBe(200);
    const requestId = response.headers['x-request-id'];
    expect(requestId).toMatch(/^req_[0-9a-f]{16}$/);
    const records = requestLines();
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      level: 'INFO',
      method: 'GET',
      route: '/v1/cron-jobs',
      status: '200',
      request_id: requestId,
      tenant_id: DEFAULT_TENANT_ID,
    });
    expect(Number(records[0]?.duration_ms)).toBeGreaterThanOrEqual(0);
    expect(lines.join('')).not.toContain(DEFAULT_TENANT_KEY);
    expect(lines.join('')).not.toMatch(/bearer|authorization/i);
  });

  it('gives every request its own id, whatever X-Request-Id the caller sends', async () => {
    const refused = await app.inject({
      method: 'GET',
      url: '/v1/tenants',
      headers: { authorization: 'Bearer wrong-token', 'x-request-id': 'chosen-by-caller' },
    });
    expect(refused.statusCode).toBe(401);
    const id = refused.headers['x-request-id'];
    expect(id).toMatch(/^req_[0-9a-f]{16}$/);
    expect(requestLines()).toEqual([
      expect.objectContaining({ route: '/v1/tenants', status: '401', request_id: id }),
    ]);
    expect(lines.join('')).not.toContain('wrong-token');
  });

  it('logs probes answered fine at DEBUG, and unknown routes by their pattern', async () => {
    await app.inject({ method: 'GET', url: '/health/live' });
    await app.inject({ method: 'GET', url: '/no/such/path' });
    expect(requestLines()).toEqual([
      expect.objectContaining({ level: 'DEBUG', route: '/health/live', status: '200' }),
      expect.objectContaining({ level: 'INFO', route: 'unmatched', status: '404' }),
    ]);
  });

  it('logs a 5xx answer at WARN with its request id', async () => {
    llm.setHandler(() => ({ status: 500 }));
    const response = await app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: bearer(DEFAULT_TENANT_KEY),
      payload: { messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(response.statusCode).toBe(502);
    expect(requestLines()).toEqual([
      expect.objectContaining({
        level: 'WARN',
        route: '/v1/chat/completions',
        status: '502',
        request_id: response.headers['x-request-id'],
      }),
    ]);
  });
});
