// GET /v1/cluster: pods from the Redis liveness keys and peers registry, run figures of the last
// hour from PostgreSQL through admin_cluster_runs(), admin only.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createRedis, type Redis } from '../../src/redis/connection.js';
import { livenessKey, peersKey } from '../../src/redis/lock.js';
import {
  ADMIN_TOKEN,
  DEFAULT_TENANT_ID,
  DEFAULT_TENANT_KEY,
  buildTestApp,
  call,
  expectError,
  type TestApp,
} from '../helpers/api.js';
import { createAppPool, createTestDatabase, withOwner } from '../helpers/database.js';
import { silentLogger } from '../helpers/log.js';

let databaseUrl: string;
let redis: Redis;
let service: TestApp;
const tag = randomBytes(4).toString('hex');
const scheduling = `cluster-${tag}-a`;
const heartbeatOnly = `cluster-${tag}-b`;
const gone = `cluster-${tag}-c`;
const foreign = `cluster-${tag}-other-installation`;

interface ClusterBody {
  redis: string;
  window_seconds: number;
  totals: Record<string, number | null>;
  pods: { pod_id: string; state: string; heartbeat_at: string | null; [k: string]: unknown }[];
}

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  redis = createRedis(inject('redisUrl'), silentLogger());
  await readyWithin(redis, 10_000);
  service = await buildTestApp({ databaseUrl, redis });
  const installation = await withOwner(databaseUrl, async (db) => {
    const { rows } = await db.query<{ id: string }>('SELECT id FROM installation');
    const { rows: jobs } = await db.query<{ id: string }>(
      `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt)
       VALUES ($1, 'cluster job', '0 * * * *', 'p') RETURNING id`,
      [DEFAULT_TENANT_ID],
    );
    const jobId = jobs[0]!.id;
    // Fire lags 100 ms … 1 s on pod a, one run on pod b, one failure on pod c, one run in flight
    // on pod a, and an
    // old run (two hours ago) that the window leaves out.
    const runs: [string, string, number, number][] = [
      [scheduling, 'success', 100, 5],
      [scheduling, 'success', 200, 10],
      [scheduling, 'success', 1000, 15],
      [scheduling, 'running', 300, 1],
      [gone, 'failed', 400, 20],
      [gone, 'success', 50, 130],
      [heartbeatOnly, 'success', 20, 30],
    ];
    for (const [pod, status, lagMs, minutesAgo] of runs) {
      await db.query(
        `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, started_at, status, pod_id, created_at)
         VALUES ($1, $2, now() - make_interval(mins => $3), now() - make_interval(mins => $3) + make_interval(secs => $4 / 1000.0), $5, $6, now() - make_interval(mins => $3))`,
        [jobId, DEFAULT_TENANT_ID, minutesAgo, lagMs, status, pod],
      );
    }
    return rows[0]!.id;
  });
  const [seconds] = await redis.time();
  await redis.set(livenessKey(scheduling), String(Date.now()), 'PX', 60_000);
  await redis.set(livenessKey(heartbeatOnly), String(Date.now()), 'PX', 60_000);
  // A pod of another database on the same Redis: a liveness key, nothing else here.
  await redis.set(livenessKey(foreign), String(Date.now()), 'PX', 60_000);
  await redis.zadd(peersKey(installation), Number(seconds) * 1000 + 60_000, scheduling);
  await redis.zadd(peersKey(installation), Number(seconds) * 1000 - 60_000, `${tag}-expired`);
});

function readyWithin(client: Redis, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('redis not ready in time')), timeoutMs);
    client.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

afterAll(async () => {
  await redis?.del(livenessKey(scheduling), livenessKey(heartbeatOnly), livenessKey(foreign));
  await service?.close();
  redis?.disconnect();
});

describe('GET /v1/cluster', () => {
  it('lists live pods and the last hour of runs, per pod and in total', async () => {
    const response = await call(service.app, ADMIN_TOKEN, 'GET', '/v1/cluster');
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json<ClusterBody>();
    expect(body.redis).toBe('ok');
    expect(body.window_seconds).toBe(3600);
    const mine = body.pods.filter((p) => p.pod_id.startsWith(`cluster-${tag}`));
    expect(mine.map((p) => [p.pod_id, p.state])).toEqual([
      [scheduling, 'scheduling'],
      [heartbeatOnly, 'live'],
      [gone, 'gone'],
    ]);
    expect(body.pods.some((p) => p.pod_id.includes('expired'))).toBe(false);
    expect(body.pods.some((p) => p.pod_id === foreign)).toBe(false);
    const [a, b, c] = mine;
    expect(a).toMatchObject({
      runs_in_flight: 1,
      runs_last_hour: 4,
      failures_last_hour: 0,
      heartbeat_at: expect.any(String) as unknown,
    });
    // p99 of 100, 200, 300, 1000 ms (interpolated, as percentile_cont does).
    expect(a!.fire_lag_p99_ms).toBeGreaterThan(900);
    expect(a!.fire_lag_p99_ms).toBeLessThanOrEqual(1000);
    expect(b).toMatchObject({
      runs_in_flight: 0,
      runs_last_hour: 1,
      fire_lag_p99_ms: 20,
      heartbeat_at: expect.any(String) as unknown,
    });
    expect(c).toMatchObject({ runs_last_hour: 1, failures_last_hour: 1, heartbeat_at: null });
    expect(body.totals).toMatchObject({
      runs_in_flight: 1,
      runs_last_hour: 6,
      failures_last_hour: 1,
    });
    expect(body.totals.live_pods).toBeGreaterThanOrEqual(2);
  });

  it('without Redis, says so and lists the pods of the run history', async () => {
    const noRedis = await buildTestApp({ databaseUrl });
    try {
      const response = await call(noRedis.app, ADMIN_TOKEN, 'GET', '/v1/cluster');
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json<ClusterBody>();
      expect(body.redis).toBe('error');
      expect(body.pods.map((p) => [p.pod_id, p.state])).toEqual([
        [scheduling, 'gone'],
        [heartbeatOnly, 'gone'],
        [gone, 'gone'],
      ]);
      expect(body.totals).toMatchObject({ live_pods: 0, runs_last_hour: 6 });
    } finally {
      await noRedis.close();
    }
  });

  it('is for the admin only', async () => {
    expectError(await call(service.app, undefined, 'GET', '/v1/cluster'), 401, 'unauthorized');
    expectError(
      await call(service.app, DEFAULT_TENANT_KEY, 'GET', '/v1/cluster'),
      403,
      'forbidden',
    );
  });

  it('refuses the cross-tenant function outside an admin transaction', async () => {
    const pool = createAppPool(databaseUrl);
    try {
      await expect(pool.query('SELECT * FROM admin_cluster_runs(now())')).rejects.toThrow(
        /admin transaction/,
      );
    } finally {
      await pool.end();
    }
  });
});
