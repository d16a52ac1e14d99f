import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Pool } from '../../db/pool.js';
import { pingRedis, type Redis } from '../../redis/connection.js';
import { NoQuery, PUBLIC, errorResponses } from '../responses.js';

export interface HealthDeps {
  pool: Pool;
  redis: Redis | undefined;
}

const CHECK_TIMEOUT_MS = 2000;

const Liveness = z.object({ status: z.literal('ok') }).meta({ id: 'Liveness' });
const Readiness = z
  .object({
    status: z.enum(['ok', 'degraded', 'error']),
    checks: z.object({ database: z.enum(['ok', 'error']), redis: z.enum(['ok', 'error']) }),
  })
  .meta({ id: 'Readiness' });
const tags = ['operations'];

/**
 * /health/live: the process runs. /health/ready: the database decides readiness (503 without it);
 * Redis only degrades it (200), since the API serves without Redis and only scheduling pauses.
 */
export function registerHealthRoutes(app: FastifyInstance, deps: HealthDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/health/live',
    {
      schema: {
        tags,
        security: PUBLIC,
        summary: 'Liveness: the process runs',
        description: 'Public. For a liveness probe; checks nothing else.',
        operationId: 'getLiveness',
        querystring: NoQuery,
        response: { 200: Liveness, ...errorResponses(400) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );
  r.get(
    '/health/ready',
    {
      schema: {
        tags,
        security: PUBLIC,
        summary: 'Readiness: the database answers',
        description:
          'Public. 200 while PostgreSQL answers (status degraded without Redis: scheduling pauses), 503 without it.',
        operationId: 'getReadiness',
        querystring: NoQuery,
        response: {
          200: Readiness,
          503: Readiness.describe('Not ready: the database does not answer'),
          ...errorResponses(400),
        },
      },
    },
    async (_request, reply) => {
      const [database, redis] = await Promise.all([pingDatabase(deps.pool), pingRedis(deps.redis)]);
      const checks = {
        database: database ? ('ok' as const) : ('error' as const),
        redis: redis ? ('ok' as const) : ('error' as const),
      };
      const status = !database ? 'error' : redis ? 'ok' : 'degraded';
      return reply.code(database ? 200 : 503).send({ status, checks });
    },
  );
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
