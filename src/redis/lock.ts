import { randomBytes } from 'node:crypto';
import { LOCK_STATES, lockValueOf, type LockState } from '../domain/vocabulary.js';
import type { LockAttempt, LockHolder, LockStore } from '../scheduler/ports.js';
import { pingRedis, type Redis } from './connection.js';

export const lockKey = (jobId: string) => `hermesx:cron:lock:${jobId}`;
export const livenessKey = (podId: string) => `hermesx:pod:${podId}`;
/** Scheduling pods of one installation, scored by when their registration expires (Redis time, ms). */
export const peersKey = (installationId: string) => `hermesx:peers:${installationId}`;

// A lock value is "<state>|<scheduled ms>|<random>|<pod id>" (lockValueOf). Its states are the
// life cycle's (LOCK_STATES): "run" while an occurrence runs; "done" for a short while after, so
// pods that come late to that occurrence skip it without asking PostgreSQL, while a later
// occurrence takes it. The scripts below are written with those words, not their own.
const DONE_MARKER_TTL_MS = 120_000;
const RUN = 'run' satisfies LockState;
const DONE = 'done' satisfies LockState;

const ACQUIRE = `
local cur = redis.call('GET', KEYS[1])
if cur then
  local state, ms = string.match(cur, '^(%a+)|(%d+)|')
  if not (state == '${DONE}' and (ARGV[4] == '1' or tonumber(ms) < tonumber(ARGV[2]))) then return cur end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
return false`;

const RELEASE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] ~= '' then redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
else redis.call('DEL', KEYS[1]) end
return 1`;

const RELEASE_HELD_BY = `
local cur = redis.call('GET', KEYS[1])
if not cur then return 0 end
local state, pod = string.match(cur, '^(%a+)|%d+|[^|]*|(.*)$')
if state == '${RUN}' and pod == ARGV[1] then redis.call('DEL', KEYS[1]) return 1 end
return 0`;

// Redis's own clock scores the registrations, so pods with skewed clocks still agree. One key per
// script, so that it also runs on Redis Cluster.
const REGISTER_PEER = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if ARGV[3] == '1' then redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
else redis.call('ZREM', KEYS[1], ARGV[1]) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZRANGE', KEYS[1], 0, -1)`;

type ScriptRedis = Redis & {
  hxAcquire(
    key: string,
    value: string,
    scheduledMs: string,
    ttlMs: string,
    overDone: string,
  ): Promise<string | null>;
  hxRelease(key: string, token: string, done: string, ttlMs: string): Promise<number>;
  hxReleaseHeldBy(key: string, podId: string): Promise<number>;
  hxRegisterPeer(peers: string, podId: string, ttlMs: string, schedules: string): Promise<string[]>;
};

// Tokens only need to be unique per lock key: a random prefix per process and a counter.
const tokenPrefix = randomBytes(6).toString('hex');
let tokenSeq = 0;

/** The scheduler's LockStore on Redis: SET-if-free by Lua, compare-and-delete by token. */
export function createRedisLockStore(
  redis: Redis,
  podId: string,
  installationId: string,
): LockStore {
  const client = redis as ScriptRedis;
  client.defineCommand('hxAcquire', { numberOfKeys: 1, lua: ACQUIRE });
  client.defineCommand('hxRelease', { numberOfKeys: 1, lua: RELEASE });
  client.defineCommand('hxReleaseHeldBy', { numberOfKeys: 1, lua: RELEASE_HELD_BY });
  client.defineCommand('hxRegisterPeer', { numberOfKeys: 1, lua: REGISTER_PEER });
  return {
    async acquire(jobId, scheduledAtMs, ttlMs, options = {}): Promise<LockAttempt> {
      const random = `${tokenPrefix}${(tokenSeq++).toString(36)}`;
      const token = lockValueOf(RUN, scheduledAtMs, random, podId);
      const held = await client.hxAcquire(
        lockKey(options.key ?? jobId),
        token,
        String(scheduledAtMs),
        String(ttlMs),
        options.overDone ? '1' : '0',
      );
      return held === null
        ? { acquired: true, token }
        : { acquired: false, holder: parseHolder(held) };
    },
    async release(jobId, token, doneAtMs, key) {
      const done = doneAtMs === null ? '' : lockValueOf(DONE, doneAtMs, '-', podId);
      await client.hxRelease(lockKey(key ?? jobId), token, done, String(DONE_MARKER_TTL_MS));
    },
    async releaseHeldBy(jobId, holderPodId) {
      await client.hxReleaseHeldBy(lockKey(jobId), holderPodId);
    },
    async publishLiveness(ownPodId, ttlMs, schedules) {
      // Sent in the same turn, so one round trip (auto-pipelining).
      const [, peers] = await Promise.all([
        redis.set(livenessKey(ownPodId), String(Date.now()), 'PX', ttlMs),
        client.hxRegisterPeer(
          peersKey(installationId),
          ownPodId,
          String(ttlMs),
          schedules ? '1' : '0',
        ),
      ]);
      return [...peers].sort();
    },
    async livePods(podIds) {
      const present = await readLiveness(redis, podIds);
      return new Set(podIds.filter((podId) => present.has(podId)));
    },
    ping: () => pingRedis(redis),
  };
}

/**
 * Pod id → heartbeat (ms) of those whose liveness key exists. One GET per key, not MGET: on a
 * Cluster the keys live in different slots, and auto-pipelining still sends them in one round
 * trip per node.
 */
export async function readLiveness(
  redis: Redis,
  podIds: readonly string[],
): Promise<Map<string, number>> {
  const values = await Promise.all(podIds.map((podId) => redis.get(livenessKey(podId))));
  const present = new Map<string, number>();
  podIds.forEach((podId, i) => {
    const value = values[i];
    if (value != null) present.set(podId, Number(value));
  });
  return present;
}

const HOLDER_PATTERN = new RegExp(`^(${LOCK_STATES.join('|')})\\|(\\d+)\\|[^|]*\\|(.*)$`);

/** Reads a lock value ("<state>|<scheduled ms>|<token>|<pod id>"); null for anything else. */
export function parseHolder(value: string): LockHolder | null {
  const match = HOLDER_PATTERN.exec(value);
  if (!match) return null;
  return {
    state: match[1] as LockHolder['state'],
    scheduledAtMs: Number(match[2]),
    podId: match[3] as string,
  };
}
