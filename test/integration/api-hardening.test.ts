// Transport and authentication limits: silent clients are cut, failed authentications are
// throttled per client address (and X-Forwarded-For is believed only from trusted proxies),
// routes are private unless marked public, CORS allows the API's methods, and a client that
// goes away is not logged as a server error.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import {
  ADMIN_TOKEN,
  DEFAULT_TENANT_KEY,
  bearer,
  buildTestApp,
  expectError,
  type TestApp,
} from '../helpers/api.js';
import { createAppPool, createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { capturingLogger, silentLogger } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';
import { awaitMinuteWithRoom } from '../helpers/minute-window.js';

const wrongKey = (i: number) => bearer(`hk_wrong_${i}_${'x'.repeat(40)}`);

describe('API hardening', () => {
  let databaseUrl: string;
  let llm: FakeLlm;
  let api: TestApp;
  let port: number;
  const logged = capturingLogger('json');

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    llm = await startFakeLlm();
    api = await buildTestApp({
      databaseUrl,
      log: logged.log,
      config: {
        LLM_API_URL: llm.url,
        SAAS_HTTP_REQUEST_TIMEOUT: '1s',
        SAAS_AUTH_FAILURES_PER_MINUTE: '5',
        SAAS_ALLOWED_ORIGINS: 'https://app.example',
      },
    });
    await api.app.listen({ port: 0, host: '127.0.0.1' });
    port = (api.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await api?.close();
    await llm?.close();
  });

  it('closes a connection that announces a body and never sends it', async () => {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const started = Date.now();
    socket.write(
      'POST /v1/cron-jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n',
    );
    socket.on('data', () => {});
    socket.on('error', () => {});
    await new Promise<void>((resolve) => socket.once('close', () => resolve()));
    // 1 s request timeout, checked every second by Node.
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('does not cut an answer that takes longer than the request timeout', async () => {
    llm.setHandler(() => ({ content: 'slow but whole', delayMs: 2500 }));
    const response = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...bearer(DEFAULT_TENANT_KEY), 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'take your time' }] }),
    });
    expect(response.status).toBe(200);
    expect(
      ((await response.json()) as { choices: { message: { content: string } }[] }).choices[0]
        ?.message.content,
    ).toBe('slow but whole');
  });

  it('throttles failed authentications per address, but always serves a right key', async () => {
    const other = await buildTestApp({
      databaseUrl,
      config: { SAAS_AUTH_FAILURES_PER_MINUTE: '3' },
    });
    try {
      const get = (headers: Record<string, string>, remoteAddress = '10.0.0.1') =>
        other.app.inject({ method: 'GET', url: '/v1/cron-jobs', headers, remoteAddress });
      // Failures count per clock minute: the steps below must not straddle two.
      await awaitMinuteWithRoom(20_000);
      for (let i = 0; i < 3; i++) expectError(await get(wrongKey(i)), 401, 'unauthorized');
      const throttled = await get(wrongKey(9));
      expectError(throttled, 429, 'auth_throttled');
      expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
      // A right key is a hash compare away: refusing it would let anyone sharing the address
      // (a NAT, a proxy) lock every tenant out.
      expect((await get(bearer(DEFAULT_TENANT_KEY))).statusCode).toBe(200);
      const admin = await other.app.inject({
        method: 'GET',
        url: '/v1/tenants',
        headers: bearer(ADMIN_TOKEN),
        remoteAddress: '10.0.0.1',
      });
      expect(admin.statusCode).toBe(200);
      expectError(await get(wrongKey(11)), 429, 'auth_throttled');
      // Another address is not affected; a spoofed X-Forwarded-For does not make one.
      expectError(await get(wrongKey(12), '10.0.0.2'), 401, 'unauthorized');
      const spoofed = await get({ ...wrongKey(10), 'x-forwarded-for': '192.0.2.7' });
      expectError(spoofed, 429, 'auth_throttled');
    } finally {
      await other.close();
    }
  });

  it('serves a valid key after 80 wrong ones from the same address (default limit)', async () => {
    const other = await buildTestApp({ databaseUrl });
    try {
      const get = (headers: Record<string, string>) =>
        other.app.inject({
          method: 'GET',
          url: '/v1/cron-jobs',
          headers,
          remoteAddress: '10.9.0.1',
        });
      let throttled = 0;
      for (let i = 0; i < 80; i++) {
        if ((await get(wrongKey(100 + i))).statusCode === 429) throttled++;
      }
      expect(throttled).toBe(60);
      let served = 0;
      for (let i = 0; i < 10; i++)
        if ((await get(bearer(DEFAULT_TENANT_KEY))).statusCode === 200) served++;
      expect(served).toBe(10);
    } finally {
      await other.close();
    }
  });

  it('believes X-Forwarded-For from a trusted proxy only', async () => {
    const proxied = await buildTestApp({
      databaseUrl,
      config: { SAAS_AUTH_FAILURES_PER_MINUTE: '1', SAAS_TRUSTED_PROXIES: '10.1.0.0/16' },
    });
    try {
      const get = (client: string) =>
        proxied.app.inject({
          method: 'GET',
          url: '/v1/cron-jobs',
          headers: { ...wrongKey(1), 'x-forwarded-for': client },
          remoteAddress: '10.1.2.3',
        });
      expectError(await get('198.51.100.1'), 401, 'unauthorized');
      expectError(await get('198.51.100.2'), 401, 'unauthorized');
      expectError(await get('198.51.100.1'), 429, 'auth_throttled');
    } finally {
      await proxied.close();
    }
  });

  it('keeps routes private unless marked public', async () => {
    const pool = createAppPool(databaseUrl);
    const app = await buildApp({
      config: loadConfig({ HERMES_ACP_TOKEN: ADMIN_TOKEN, HERMES_API_KEY: DEFAULT_TENANT_KEY }),
      pool,
      redis: undefined,
      log: silentLogger(),
      registry: new Registry(),
    });
    try {
      app.get('/v1/unmarked', async () => ({ secret: true }));
      expectError(await app.inject({ method: 'GET', url: '/v1/unmarked' }), 401, 'unauthorized');
      const asTenant = await app.inject({
        method: 'GET',
        url: '/v1/unmarked',
        headers: bearer(DEFAULT_TENANT_KEY),
      });
      expectError(asTenant, 403, 'forbidden');
      expect((await app.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
      expect((await app.inject({ method: 'GET', url: '/nowhere' })).statusCode).toBe(404);
    } finally {
      await app.close();
      await pool.end();
    }
  });

  it('allows PATCH and DELETE in a CORS preflight', async () => {
    const response = await api.app.inject({
      method: 'OPTIONS',
      url: '/v1/cron-jobs/00000000-0000-0000-0000-000000000000',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'PATCH',
        'access-control-request-headers': 'authorization, content-type, idempotency-key',
      },
    });
    expect(response.statusCode).toBe(204);
    const methods = String(response.headers['access-control-allow-methods']);
    expect(methods).toContain('PATCH');
    expect(methods).toContain('DELETE');
    expect(String(response.headers['access-control-allow-headers'])).toContain('idempotency-key');
  });

  it('logs a client that disconnects mid-chat as a disconnect, not a 500', async () => {
    llm.setHandler(() => ({ hang: true }));
    llm.calls.length = 0;
    const request = http.request(`http://127.0.0.1:${port}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...bearer(DEFAULT_TENANT_KEY), 'content-type': 'application/json' },
    });
    request.on('error', () => {});
    request.end(JSON.stringify({ messages: [{ role: 'user', content: 'wait' }] }));
    await llm.waitForCalls(1, 10_000);
    request.destroy();
    await waitFor(
      () => expect(logged.lines.some((line) => line.includes('client disconnected'))).toBe(true),
      { timeoutMs: 10_000 },
    );
    expect(logged.lines.filter((line) => line.includes('request failed'))).toEqual([]);
  });
});
