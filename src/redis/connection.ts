import { Redis } from 'ioredis';
import type { Logger } from '../log.js';

export type { Redis };

export interface RedisOptions {
  commandTimeoutMs?: number;
}

/**
 * A Redis client that fails fast while Redis is down (no offline queue, one retry, a command
 * timeout) and reconnects by itself with a capped back-off. Outages are logged once, not per retry.
 */
export function createRedis(url: string, log: Logger, options: RedisOptions = {}): Redis {
  const redis = new Redis(url, {
    lazyConnect: true,
    // Commands issued in the same event-loop turn (a burst of lock attempts) share one round trip.
    enableAutoPipelining: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: options.commandTimeoutMs ?? 2000,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 250, 2000),
    reconnectOnError: () => false,
  });
  let down = false;
  redis.on('error', (err: Error) => {
    if (down) return;
    down = true;
    log.warn({ error: err.message }, 'redis: connection lost, reconnecting');
  });
  redis.on('ready', () => {
    if (down) log.info('redis: connection restored');
    down = false;
  });
  redis.connect().catch(() => {
    // The error listener reports it; ioredis keeps retrying.
  });
  return redis;
}

/** Whether Redis answers PING now (bounded by the command timeout). */
export async function pingRedis(redis: Redis | undefined): Promise<boolean> {
  if (!redis) return false;
  if (redis.status === 'connecting' || redis.status === 'connect') await waitForReady(redis, 1000);
  try {
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  }
}

/** Waits (bounded) for a connection attempt in progress, so a fresh client is not reported down. */
function waitForReady(redis: Redis, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      redis.off('error', done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    redis.once('ready', done);
    redis.once('error', done);
  });
}
