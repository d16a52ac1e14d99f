// The scheduler's LockStore on a real Redis: the peers registry behind job owners, and locks.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createAppPool, createTestDatabase } from '../helpers/database.js';
import { silentLogger } from '../helpers/log.js';
import { loadInstallationId } from '../../src/db/installation.js';
import type { Pool } from '../../src/db/pool.js';
import { createRedis, type Redis } from '../../src/redis/connection.js';
import { createRedisLockStore } from '../../src/redis/lock.js';
import { waitFor } from '../helpers/process-wait.js';
import { describeLockStoreContract } from '../contract/lock-store.contract.js';

describeLockStoreContract('Redis', () => {
  const installation = randomUUID();
  return { forPod: (podId) => createRedisLockStore(contractRedis, podId, installation) };
});

let contractRedis: Redis;
beforeAll(async () => {
  contractRedis = createRedis(inject('redisUrl'), silentLogger());
  await waitFor(
    () => {
      if (contractRedis.status !== 'ready') throw new Error(`redis status ${contractRedis.status}`);
    },
    { timeoutMs: 10_000, what: 'the redis client to connect' },
  );
});
afterAll(() => contractRedis?.disconnect());

describe('Redis lock store', () => {
  let redis: Redis;
  let pool: Pool;

  beforeAll(async () => {
    pool = createAppPool(await createTestDatabase());
    redis = createRedis(inject('redisUrl'), silentLogger());
    await waitFor(
      () => {
        if (redis.status !== 'ready') throw new Error(`redis status ${redis.status}`);
      },
      { timeoutMs: 10_000, what: 'the redis client to connect' },
    );
  });

  afterAll(async () => {
    redis?.disconnect();
    await pool?.end();
  });

  it('each database has its own installation id, readable by the app role', async () => {
    const id = await loadInstallationId(pool);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await loadInstallationId(pool)).toBe(id);
    const other = createAppPool(await createTestDatabase());
    try {
      expect(await loadInstallationId(other)).not.toBe(id);
    } finally {
      await other.end();
    }
  });

  it('publishing liveness registers a scheduling pod and answers the live peers of its installation', async () => {
    const installation = randomUUID();
    const a = createRedisLockStore(redis, 'pod-a', installation);
    const b = createRedisLockStore(redis, 'pod-b', installation);
    const elsewhere = createRedisLockStore(redis, 'pod-x', randomUUID());

    expect(await a.publishLiveness('pod-a', 10_000, true)).toEqual(['pod-a']);
    expect(await elsewhere.publishLiveness('pod-x', 10_000, true)).toEqual(['pod-x']);
    expect(await b.publishLiveness('pod-b', 300, true)).toEqual(['pod-a', 'pod-b']);
    expect(await a.livePods(['pod-a', 'pod-b', 'pod-gone'])).toEqual(new Set(['pod-a', 'pod-b']));

    // pod-b's registration expires with its liveness; pod-a stops scheduling but stays alive.
    await waitFor(
      async () => expect(await a.publishLiveness('pod-a', 10_000, true)).toEqual(['pod-a']),
      { timeoutMs: 5000, what: "pod-b's registration to expire" },
    );
    expect(await a.publishLiveness('pod-a', 10_000, false)).toEqual([]);
    expect(await a.livePods(['pod-a'])).toEqual(new Set(['pod-a']));
  });

  it('a lock is taken once per occurrence, then a done marker lets a later occurrence take it', async () => {
    const locks = createRedisLockStore(redis, 'pod-a', randomUUID());
    const jobId = randomUUID();
    const first = await locks.acquire(jobId, 1000, 60_000);
    expect(first.acquired).toBe(true);
    const again = await locks.acquire(jobId, 1000, 60_000);
    expect(again).toEqual({
      acquired: false,
      holder: { state: 'run', scheduledAtMs: 1000, podId: 'pod-a' },
    });
    if (!first.acquired) throw new Error('unreachable');
    await locks.release(jobId, first.token, 1000);
    expect((await locks.acquire(jobId, 1000, 60_000)).acquired).toBe(false);
    const later = await locks.acquire(jobId, 2000, 60_000);
    expect(later.acquired).toBe(true);
    if (later.acquired) expect(later.token).not.toBe(first.token);
  });
});
