import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { migrate } from '../../src/db/migrate.js';
import { createPool, type Pool } from '../../src/db/pool.js';
import { startPostgres, startRedis, type LocalServer } from '../../src/dev/processes.js';
import { buildApp } from '../../src/http/app.js';
import { createRedis, type Redis } from '../../src/redis/connection.js';
import { createAppPool, createTestDatabase } from '../helpers/database.js';
import { silentLogger } from '../helpers/log.js';
import { isAlive, waitFor } from '../helpers/process-wait.js';

/** A readiness answer must never hang: every check is bounded well below this. */
const MAX_READY_MS = 3000;

interface ReadyAnswer {
  statusCode: number;
  body: unknown;
  ms: number;
}

/** The slowest readiness answer of the current test (asserted after each test, not retried). */
let slowestReadyMs = 0;

async function ready(app: FastifyInstance): Promise<ReadyAnswer> {
  const started = performance.now();
  const response = await app.inject({ method: 'GET', url: '/health/ready' });
  const ms = performance.now() - started;
  slowestReadyMs = Math.max(slowestReadyMs, ms);
  return { statusCode: response.statusCode, body: response.json(), ms };
}

beforeEach(() => {
  slowestReadyMs = 0;
});

afterEach(() => {
  expect(slowestReadyMs, 'slowest /health/ready answer (ms)').toBeLessThan(MAX_READY_MS);
});

/** Resolves once the client is connected (or at once when it already is). */
function redisReady(redis: Redis, timeoutMs: number): Promise<void> {
  return waitFor(
    () => {
      if (redis.status !== 'ready') throw new Error(`redis status ${redis.status}`);
    },
    { timeoutMs, what: 'the redis client to connect' },
  );
}

function build(pool: Pool, redis: Redis | undefined): Promise<FastifyInstance> {
  return buildApp({
    config: loadConfig({}),
    pool,
    redis,
    log: silentLogger(),
    registry: new Registry(),
  });
}

const OK = { status: 'ok', checks: { database: 'ok', redis: 'ok' } };
const DEGRADED = { status: 'degraded', checks: { database: 'ok', redis: 'error' } };

describe('health with the shared database and Redis', () => {
  let pool: Pool;
  let redis: Redis;
  let app: FastifyInstance;

  beforeAll(async () => {
    pool = createAppPool(await createTestDatabase());
    redis = createRedis(inject('redisUrl'), silentLogger());
    await redisReady(redis, 10_000);
    app = await build(pool, redis);
  });

  afterAll(async () => {
    await app?.close();
    redis?.disconnect();
    await pool?.end();
  });

  it('/health/ready answers 200 and exactly the ok body', async () => {
    const response = await app.inject({ method: 'GET', url: '/health/ready' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body).toBe('{"status":"ok","checks":{"database":"ok","redis":"ok"}}');
  });

  it('/health/live answers 200', async () => {
    const response = await app.inject({ method: 'GET', url: '/health/live' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
  });

  it('/metrics returns Prometheus text with the request counter', async () => {
    await app.inject({ method: 'GET', url: '/health/live' });
    const response = await app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    expect(response.body).toContain('# TYPE hermesx_http_requests_total counter');
    expect(response.body).toMatch(
      /hermesx_http_requests_total\{method="GET",route="\/health\/live",status="200"\} [1-9]/,
    );
  });

  it('an unknown route answers 404 with the error body', async () => {
    const response = await app.inject({ method: 'GET', url: '/no/such/route?x=1' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({
      error: { code: 'not_found', message: 'no route for GET /no/such/route' },
    });
  });
});

describe('health while Redis goes away and comes back', () => {
  let pool: Pool;
  let server: LocalServer | undefined;
  let redis: Redis | undefined;
  let app: FastifyInstance | undefined;

  beforeAll(async () => {
    pool = createAppPool(await createTestDatabase());
  });

  afterEach(async () => {
    await app?.close();
    redis?.disconnect();
    await server?.stop();
  });

  afterAll(async () => {
    await pool?.end();
  });

  it('degrades (HTTP 200, redis error) when redis-server dies and recovers by itself', async () => {
    const first = await startRedis();
    server = first;
    redis = createRedis(first.url, silentLogger());
    await redisReady(redis, 10_000);
    app = await build(pool, redis);
    const appNow = app;
    expect(await ready(appNow)).toMatchObject({ statusCode: 200, body: OK });

    // Crash redis-server: SIGKILL by its PID, then wait until it is really gone.
    process.kill(first.pid, 'SIGKILL');
    await first.stop();
    expect(isAlive(first.pid)).toBe(false);

    await waitFor(
      async () => expect(await ready(appNow)).toMatchObject({ statusCode: 200, body: DEGRADED }),
      {
        timeoutMs: 10_000,
        intervalMs: 100,
        what: 'readiness to report redis error',
      },
    );
    // It stays degraded, and answers quickly, while Redis is away.
    const degraded = await ready(appNow);
    expect(degraded).toMatchObject({ statusCode: 200, body: DEGRADED });

    // A new redis-server on the same port: the client reconnects by itself.
    server = await startRedis({ port: first.port });
    await waitFor(
      async () => expect(await ready(appNow)).toMatchObject({ statusCode: 200, body: OK }),
      {
        timeoutMs: 15_000,
        intervalMs: 200,
        what: 'readiness to recover once redis is back',
      },
    );
  });

  it('answers within the bound while redis-server hangs (alive but not answering)', async () => {
    const hung = await startRedis();
    server = hung;
    redis = createRedis(hung.url, silentLogger());
    await redisReady(redis, 10_000);
    app = await build(pool, redis);
    const appNow = app;
    expect(await ready(appNow)).toMatchObject({ statusCode: 200, body: OK });

    process.kill(hung.pid, 'SIGSTOP');
    try {
      const answer = await ready(appNow);
      expect(answer).toMatchObject({ statusCode: 200, body: DEGRADED });
    } finally {
      process.kill(hung.pid, 'SIGCONT');
    }
    await waitFor(
      async () => expect(await ready(appNow)).toMatchObject({ statusCode: 200, body: OK }),
      { timeoutMs: 15_000, intervalMs: 200, what: 'readiness to recover once redis answers' },
    );
  });
});

describe('health while the database goes away', () => {
  let dataDir: string;
  let postgres: LocalServer | undefined;
  let pool: Pool | undefined;
  let redis: Redis | undefined;
  let app: FastifyInstance | undefined;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'hermesx-health-pg-'));
    postgres = await startPostgres({ dataDir, persistent: false });
  });

  afterAll(async () => {
    await app?.close();
    redis?.disconnect();
    await pool?.end().catch(() => {});
    await postgres?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 503 with database error once PostgreSQL is stopped', async () => {
    const server = postgres!;
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    try {
      await admin.query('CREATE DATABASE health_down');
    } finally {
      await admin.end();
    }
    const url = new URL(server.url);
    url.pathname = '/health_down';
    await migrate(url.toString(), silentLogger());

    pool = createPool(url.toString(), silentLogger(), { max: 3, connectionTimeoutMs: 1000 });
    redis = createRedis(inject('redisUrl'), silentLogger());
    await redisReady(redis, 10_000);
    app = await build(pool, redis);
    const appNow = app;
    expect(await ready(appNow)).toMatchObject({ statusCode: 200, body: OK });

    await server.stop();
    expect(isAlive(server.pid)).toBe(false);

    const down = await waitFor(
      async () => {
        const answer = await ready(appNow);
        expect(answer.statusCode).toBe(503);
        return answer;
      },
      { timeoutMs: 10_000, intervalMs: 100, what: 'readiness to report the database down' },
    );
    expect(down.body).toEqual({ status: 'error', checks: { database: 'error', redis: 'ok' } });
    // Still answering, and still quickly, on the next request.
    expect(await ready(appNow)).toMatchObject({
      statusCode: 503,
      body: { checks: { database: 'error' } },
    });
    expect((await appNow.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
  });
});
