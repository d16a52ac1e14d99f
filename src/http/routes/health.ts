import type { FastifyInstance } from 'fastify';
import type { Pool } from '../../db/pool.js';
import { pingRedis, type Redis } from '../../redis/connection.js';

export interface HealthDeps {
  pool: Pool;
  redis: Redis | undefined;
}

const CHECK_TIMEOUT_MS = 2000;

/**
 * /health/live: the process runs. /health/ready: the database decides readiness (503 without it);
 * Redis only degrades it (200), since the API serves without Redis and only scheduling pauses.
 */
export function registerHealthRoutes(app: FastifyInstance, deps: HealthDeps): void {
  app.get('/health/live', async () => ({ status: 'ok' }));
  app.get('/health/ready', async (_request, reply) => {
    const [database, redis] = await Promise.all([pingDatabase(deps.pool), pingRedis(deps.redis)]);
    const checks = { database: database ? 'ok' : 'error', redis: redis ? 'ok' : 'error' };
    const status = !database ? 'error' : redis ? 'ok' : 'degraded';
    return reply.code(database ? 200 : 503).send({ status, checks });
  });
}

async function pingDatabase(pool: Pool): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), CHECK_TIMEOUT_MS);
  });
  const ping = pool.query('SELECT 1').then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([ping, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
