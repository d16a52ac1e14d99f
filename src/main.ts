import { Registry, collectDefaultMetrics } from 'prom-client';
import { requireDatabaseUrl, redactUrl, type Config } from './config.js';
import { migrate } from './db/migrate.js';
import { createPool } from './db/pool.js';
import { buildApp } from './http/app.js';
import type { Logger } from './log.js';
import { createRedis } from './redis/connection.js';

export interface RunningService {
  url: string;
  /** Stops accepting work, drains, closes connections. */
  stop(): Promise<void>;
}

/** The composition root: migrate, connect, serve. */
export async function startService(config: Config, log: Logger): Promise<RunningService> {
  const databaseUrl = requireDatabaseUrl(config);
  log.info({ database: redactUrl(databaseUrl), pod: config.podId }, 'starting');
  await migrate(databaseUrl, log);

  const pool = createPool(databaseUrl, log);
  const redis = config.redisUrl ? createRedis(config.redisUrl, log) : undefined;
  if (!redis) log.warn('scheduler disabled: redis unavailable');
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'hermesx_' });

  const app = await buildApp({ config, pool, redis, log, registry });
  const address = await app.listen({ port: config.port, host: config.host });
  log.info({ address, pod: config.podId }, 'http server listening');

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      log.info('shutting down');
      await app.close();
      if (redis) await redis.quit().catch(() => redis.disconnect());
      await pool.end();
      log.info('stopped');
    })();
    return stopping;
  };
  return { url: address, stop };
}
