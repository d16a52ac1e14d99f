// Everything the service keeps in Redis works on a real Redis Cluster (three primaries): the job
// locks, liveness and the peers registry, the rate-limit counters and the operators' cluster
// page, with keys spread over every primary (no cross-slot command, no SCAN on one node).
import { randomBytes, randomUUID } from 'node:crypto';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadInstallationId } from '../../src/db/installation.js';
import { RateLimiter } from '../../src/http/rate-limit.js';
import { createRedis, pingRedis, type Redis } from '../../src/redis/connection.js';
import { createRedisLockStore, livenessKey, lockKey } from '../../src/redis/lock.js';
import type { LockStore } from '../../src/scheduler/ports.js';
import { ADMIN_TOKEN, buildTestApp, call, type TestApp } from '../helpers/api.js';
import { createAppPool, createTestDatabase } from '../helpers/database.js';
import { silentLogger } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';
import { startClusterSetup, type ClusterSetup } from '../helpers/redis-cluster.js';

let setup: ClusterSetup;
let redis: Redis;
let other: Redis;
let locks: LockStore;
let service: TestApp;
let installation: string;
const tag = randomBytes(4).toString('hex');

function connect(): Redis {
  return createRedis(
    {
      kind: 'cluster',
      nodes: setup.nodes.slice(0, 1).map((n) => ({ host: '127.0.0.1', port: n.port })),
      password: setup.password,
    },
    silentLogger(),
  );
}

beforeAll(async () => {
  setup = await startClusterSetup({ replicasPerPrimary: 0 });
  const databaseUrl = await createTestDatabase();
  const pool = createAppPool(databaseUrl);
  installation = await loadInstallationId(pool);
  await pool.end();
  redis = connect();
  other = connect();
  await waitFor(async () => expect(await pingRedis(redis)).toBe(true), {
    timeoutMs: 10_000,
    what: 'the cluster client',
  });
  await waitFor(async () => expect(await pingRedis(other)).toBe(true), { timeoutMs: 10_000 });
  locks = createRedisLockStore(redis, `pod-${tag}`, installation);
  service = await buildTestApp({ databaseUrl, redis });
});

afterAll(async () => {
  await service?.close();
  redis?.disconnect();
  other?.disconnect();
  await setup?.cleanup();
});

/** The primaries (by port) that hold these keys. */
async function primariesOf(keys: string[]): Promise<Set<string>> {
  const cluster = redis as Cluster;
  const owners = await Promise.all(
    keys.map(async (key) => {
      const slot = (await cluster.call('CLUSTER', 'KEYSLOT', key)) as number;
      return cluster.slots[slot]?.[0] ?? 'none';
    }),
  );
  return new Set(owners);
}

describe('on a Redis Cluster', () => {
  it('is available, and the keys of 60 jobs and 30 pods land on all three primaries', async () => {
    expect(redis).toBeInstanceOf(Cluster);
    const jobs = Array.from({ length: 60 }, () => randomUUID());
    const pods = Array.from({ length: 30 }, (_, i) => `pod-${tag}-${i}`);
    expect((await primariesOf(jobs.map(lockKey))).size).toBe(3);
    expect((await primariesOf(pods.map(livenessKey))).size).toBe(3);
  });

  it('locks, releases with a done marker and frees a dead pod’s lock, for jobs in every slot range', async () => {
    const jobs = Array.from({ length: 60 }, () => randomUUID());
    const attempts = await Promise.all(jobs.map((id) => locks.acquire(id, 1000, 60_000)));
    expect(attempts.every((a) => a.acquired)).toBe(true);
    const again = await Promise.all(jobs.map((id) => locks.acquire(id, 1000, 60_000)));
    expect(again.every((a) => !a.acquired && a.holder?.podId === `pod-${tag}`)).toBe(true);
    await Promise.all(
      jobs.map((id, i) => {
        const attempt = attempts[i]!;
        return locks.release(id, attempt.acquired ? attempt.token : '', 1000);
      }),
    );
    // The done marker makes a late pod skip that occurrence and lets the next one through.
    const late = await locks.acquire(jobs[0]!, 1000, 60_000);
    expect(late).toMatchObject({ acquired: false, holder: { state: 'done', scheduledAtMs: 1000 } });
    expect((await locks.acquire(jobs[0]!, 3000, 60_000)).acquired).toBe(true);
    await locks.releaseHeldBy(jobs[0]!, `pod-${tag}`);
    expect((await locks.acquire(jobs[0]!, 3000, 60_000)).acquired).toBe(true);
  });

  it('publishes liveness and the peers registry, and reads back which pods are alive', async () => {
    const pods = Array.from({ length: 30 }, (_, i) => `pod-${tag}-live-${i}`);
    let peers: string[] = [];
    for (const [i, pod] of pods.entries()) {
      peers = await locks.publishLiveness(pod, 60_000, i % 2 === 0);
    }
    expect(peers).toEqual(pods.filter((_, i) => i % 2 === 0).sort());
    const asked = [...pods, `pod-${tag}-never-seen`];
    expect([...(await locks.livePods(asked))].sort()).toEqual([...pods].sort());
  });

  it('counts rate limits across clients, one key per window', async () => {
    const key = `tenant-${tag}`;
    const a = new RateLimiter(redis);
    const b = new RateLimiter(other);
    const now = Date.now();
    expect((await a.hit(key, 3, now)).allowed).toBe(true);
    expect((await b.hit(key, 3, now)).allowed).toBe(true);
    expect((await a.hit(key, 3, now)).remaining).toBe(0);
    const over = await b.hit(key, 3, now);
    expect(over).toMatchObject({ allowed: false, remaining: 0 });
    expect((await a.isOver(key, 3, now)).allowed).toBe(false);
  });

  it('serves the operators’ cluster page from the registry and the liveness keys', async () => {
    const scheduling = `pod-${tag}-page-a`;
    const aliveOnly = `pod-${tag}-page-b`;
    const store = createRedisLockStore(other, scheduling, installation);
    await store.publishLiveness(scheduling, 60_000, true);
    await store.publishLiveness(aliveOnly, 60_000, false);
    const response = await call(service.app, ADMIN_TOKEN, 'GET', '/v1/cluster');
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json<{
      redis: string;
      pods: { pod_id: string; state: string; heartbeat_at: string | null }[];
    }>();
    expect(body.redis).toBe('ok');
    const page = body.pods.find((p) => p.pod_id === scheduling);
    expect(page).toMatchObject({ state: 'scheduling', heartbeat_at: expect.any(String) });
    expect(Date.parse(page!.heartbeat_at!)).toBeGreaterThan(Date.now() - 60_000);
  });
});
