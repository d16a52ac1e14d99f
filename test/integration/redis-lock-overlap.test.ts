// The lock options the overlap policies use, on a real Redis: allow_all's lock of its own per
// occurrence, and a waiting occurrence taking the job's lock over a "done" marker of a later one.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createRedis, type Redis } from '../../src/redis/connection.js';
import { createRedisLockStore, lockKey } from '../../src/redis/lock.js';
import type { LockStore } from '../../src/scheduler/ports.js';
import { lockKeyOf } from '../../src/scheduler/overlap.js';
import { silentLogger } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';

const TTL_MS = 60_000;
const T1 = 1_000_000;
const T2 = T1 + 60_000;
const T3 = T2 + 60_000;

describe('Redis locks for the overlap policies', () => {
  let redis: Redis;
  let podA: LockStore;
  let podB: LockStore;

  beforeAll(async () => {
    redis = createRedis(inject('redisUrl'), silentLogger());
    await waitFor(
      () => {
        if (redis.status !== 'ready') throw new Error(`redis status ${redis.status}`);
      },
      { timeoutMs: 10_000, what: 'the redis client to connect' },
    );
    const installation = randomUUID();
    podA = createRedisLockStore(redis, 'pod-a', installation);
    podB = createRedisLockStore(redis, 'pod-b', installation);
  });

  afterAll(() => redis?.disconnect());

  it('allow_all: two occurrences of one job hold locks side by side; one occurrence, one lock', async () => {
    const job = randomUUID();
    const key1 = lockKeyOf('allow_all', job, T1)!;
    const key2 = lockKeyOf('allow_all', job, T2)!;
    const first = await podA.acquire(job, T1, TTL_MS, { key: key1 });
    const second = await podB.acquire(job, T2, TTL_MS, { key: key2 });
    expect(first.acquired && second.acquired).toBe(true);
    const again = await podB.acquire(job, T1, TTL_MS, { key: key1 });
    expect(again).toEqual({
      acquired: false,
      holder: { state: 'run', scheduledAtMs: T1, podId: 'pod-a' },
    });
    // The job's own key is untouched, and a release goes to the occurrence's key.
    expect(await redis.get(lockKey(job))).toBeNull();
    if (first.acquired) await podA.release(job, first.token, T1, key1);
    expect(await redis.get(lockKey(key1))).toMatch(/^done\|/);
  });

  it('a waiting occurrence takes the lock over a done marker of any occurrence, never over a run', async () => {
    const job = randomUUID();
    const running = await podA.acquire(job, T1, TTL_MS);
    expect(running.acquired).toBe(true);
    const held = await podB.acquire(job, T2, TTL_MS, { overDone: true });
    expect(held).toMatchObject({ acquired: false, holder: { state: 'run', scheduledAtMs: T1 } });
    if (running.acquired) await podA.release(job, running.token, T1);
    // A later occurrence came, was refused at the claim and left its done marker.
    const later = await podA.acquire(job, T3, TTL_MS);
    if (later.acquired) await podA.release(job, later.token, T3);
    expect(await podB.acquire(job, T2, TTL_MS)).toMatchObject({
      acquired: false,
      holder: { state: 'done', scheduledAtMs: T3 },
    });
    expect((await podB.acquire(job, T2, TTL_MS, { overDone: true })).acquired).toBe(true);
  });
});
