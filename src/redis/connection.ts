import { Cluster, Redis as SingleRedis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { Logger } from '../log.js';
import { describeTarget, type RedisTarget } from './target.js';

/**
 * A connection to one Redis, to a primary found through Sentinel, or to a Redis Cluster. Every
 * caller uses only single-key commands (and scripts over one key), so any of the three serves.
 */
export type Redis = SingleRedis | Cluster;

export interface ConnectionOptions {
  commandTimeoutMs?: number;
  /** A new primary took over (Sentinel or Cluster failover); for the metrics. */
  onFailover?: () => void;
}

// Fail fast while Redis is down (no offline queue, one retry, a command timeout) and reconnect by
// itself with a capped back-off: the scheduler pauses and resumes on its own availability check.
const RETRY_CAP_MS = 1000;
const CLUSTER_SLOTS = 16384;
const retryStrategy = (attempt: number) => Math.min(attempt * 250, RETRY_CAP_MS);

function commonOptions(commandTimeoutMs: number): RedisOptions {
  return {
    lazyConnect: true,
    // Commands issued in the same event-loop turn (a burst of lock attempts) share one round trip.
    enableAutoPipelining: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: commandTimeoutMs,
    connectTimeout: 2000,
    retryStrategy,
    reconnectOnError: () => false,
  };
}

/**
 * Connects to the target (a URL string: one server); outages are logged once, not per retry, and
 * failovers by name.
 */
export function createRedis(
  to: RedisTarget | string,
  log: Logger,
  options: ConnectionOptions = {},
): Redis {
  const target: RedisTarget =
    typeof to === 'string' ? { kind: 'single', url: to, password: undefined } : to;
  const common = commonOptions(options.commandTimeoutMs ?? 2000);
  const redis = connect(target, common);
  log.info({ redis: describeTarget(target) }, 'redis: connecting');
  let down = false;
  const onError = (err: Error) => {
    if (down) return;
    down = true;
    log.warn({ error: err.message }, 'redis: connection lost, reconnecting');
  };
  redis.on('error', onError);
  redis.on('ready', () => {
    if (down) log.info('redis: connection restored');
    down = false;
  });
  const failover = (primary: string, previous: string) => {
    log.warn({ primary, previous }, `redis failover: new primary ${primary}`);
    options.onFailover?.();
  };
  if (redis instanceof Cluster) watchClusterPrimaries(redis, log, failover);
  else if (target.kind === 'sentinel') {
    watchSentinelPrimary(redis, log, failover);
    reconnectAfterAbortedAttempt(redis, log);
  }
  redis.connect().catch(() => {
    // The error listener reports it; ioredis keeps retrying.
  });
  return redis;
}

function connect(target: RedisTarget, common: RedisOptions): Redis {
  switch (target.kind) {
    case 'single':
      return new SingleRedis(target.url, {
        ...common,
        ...(target.password ? { password: target.password } : {}),
      });
    case 'sentinel':
      // ioredis asks the sentinels for the primary on every (re)connect, checks its role, and
      // with failoverDetector reconnects at once when the sentinels announce +switch-master.
      return new SingleRedis({
        ...common,
        sentinels: target.sentinels.map(({ host, port }) => ({ host, port })),
        name: target.name,
        role: 'master',
        username: target.username,
        password: target.password,
        sentinelPassword: target.sentinelPassword,
        db: target.db,
        failoverDetector: true,
        sentinelRetryStrategy: retryStrategy,
        sentinelCommandTimeout: 1000,
      });
    case 'cluster': {
      // The cluster connects its nodes itself.
      const { lazyConnect: _lazy, ...nodeOptions } = common;
      const clusterOptions: ClusterOptions = {
        lazyConnect: true,
        enableAutoPipelining: true,
        enableOfflineQueue: false,
        clusterRetryStrategy: retryStrategy,
        // A promoted replica is learnt from MOVED replies or this periodic CLUSTER SLOTS.
        slotsRefreshInterval: 2000,
        slotsRefreshTimeout: 1000,
        retryDelayOnClusterDown: 200,
        retryDelayOnFailover: 200,
        redisOptions: {
          ...nodeOptions,
          ...(target.password ? { password: target.password } : {}),
        },
      };
      return new Cluster(
        target.nodes.map(({ host, port }) => ({ host, port })),
        clusterOptions,
      );
    }
  }
}

/** Logs "redis failover: new primary …" when a (re)connection lands on another primary. */
function watchSentinelPrimary(
  redis: SingleRedis,
  log: Logger,
  failover: (primary: string, previous: string) => void,
): void {
  let primary: string | undefined;
  redis.on('ready', () => {
    const socket = redis.stream as { remoteAddress?: string; remotePort?: number } | undefined;
    if (!socket?.remoteAddress) return;
    const now = `${socket.remoteAddress}:${socket.remotePort}`;
    if (primary === undefined) log.info({ primary: now }, 'redis: connected to the primary');
    else if (now !== primary) failover(now, primary);
    primary = now;
  });
}

/**
 * ioredis ends a client for good when a connection attempt itself fails, and its Sentinel
 * failover detector makes one fail: a `+switch-master` that arrives while the client asks the
 * sentinels for the primary aborts that attempt ("Connection is closed."), and the client never
 * tries again, so the pod would stay paused after the promotion. An end that was not asked for
 * (quit and disconnect() set `manuallyClosing`, and an end after a closed connection comes
 * through 'close' first) is such an abort: connect again after the usual back-off.
 */
function reconnectAfterAbortedAttempt(redis: SingleRedis, log: Logger): void {
  let attempting = false;
  redis.on('connecting', () => (attempting = true));
  redis.on('connect', () => (attempting = false));
  redis.on('close', () => (attempting = false));
  redis.on('end', () => {
    const askedFor = (redis as unknown as { manuallyClosing?: boolean }).manuallyClosing === true;
    if (!attempting || askedFor) return;
    attempting = false;
    log.warn('redis: connection attempt aborted, connecting again');
    setTimeout(() => {
      if (redis.status === 'end') redis.connect().catch(() => {});
    }, RETRY_CAP_MS).unref();
  });
}

/**
 * Same for a Cluster: a primary that was not one at the last slots refresh has taken over from
 * one that is gone (a primary added beside the others, e.g. by resharding, is no failover).
 */
function watchClusterPrimaries(
  cluster: Cluster,
  log: Logger,
  failover: (primary: string, previous: string) => void,
): void {
  let primaries: Set<string> | undefined;
  cluster.on('refresh', () => {
    const now = new Set(
      cluster.nodes('master').map((node) => `${node.options.host}:${node.options.port}`),
    );
    if (primaries) {
      const gone = [...primaries].filter((address) => !now.has(address));
      for (const address of now) {
        if (primaries.has(address)) continue;
        if (gone.length > 0) failover(address, gone.join(','));
        else log.info({ primary: address }, 'redis: cluster primary added');
      }
    } else {
      log.info({ primaries: [...now].sort().join(',') }, 'redis: connected to the cluster');
    }
    primaries = now;
  });
}

/**
 * Whether Redis can serve the lock now (bounded by the command timeout): the primary answers PING;
 * on a Cluster, every primary known answers and reports the cluster state ok (all slots served),
 * because with one shard down the lock of a third of the jobs cannot be taken.
 */
export async function pingRedis(redis: Redis | undefined): Promise<boolean> {
  if (!redis) return false;
  if (redis.status === 'connecting' || redis.status === 'connect') await waitForReady(redis, 1000);
  try {
    if (redis instanceof Cluster) return await pingCluster(redis);
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  }
}

async function pingCluster(cluster: Cluster): Promise<boolean> {
  if (cluster.status !== 'ready') return false;
  // A killed primary's connection leaves the pool at once, while the slots still name it until
  // its replica is promoted: when a slot has no live primary, ask the cluster again (so a
  // promotion is seen at this check, not at the next periodic refresh).
  if (!coversEverySlot(cluster)) {
    await new Promise<void>((resolve) => cluster.refreshSlotsCache(() => resolve()));
    if (!coversEverySlot(cluster)) return false;
  }
  const states = await Promise.all(
    cluster.nodes('master').map((node) => node.call('CLUSTER', 'INFO') as Promise<string>),
  );
  return states.every((info) => /^cluster_state:ok\r?$/m.test(info));
}

/** Whether every slot's primary is a node the client is connected to. */
function coversEverySlot(cluster: Cluster): boolean {
  const live = new Set(
    cluster.nodes('master').map((node) => `${node.options.host}:${node.options.port}`),
  );
  for (let slot = 0; slot < CLUSTER_SLOTS; slot++) {
    const owner = cluster.slots[slot]?.[0];
    if (owner === undefined || !live.has(owner)) return false;
  }
  return true;
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
