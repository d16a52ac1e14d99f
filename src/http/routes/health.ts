import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ModelProbe } from '../../agent/model-probe.js';
import type { Pool } from '../../db/pool.js';
import { pingRedis, type Redis } from '../../redis/connection.js';
import { NoQuery, PUBLIC, errorResponses } from '../responses.js';

export interface HealthDeps {
  pool: Pool;
  redis: Redis | undefined;
  model: ModelProbe;
}

const CHECK_TIMEOUT_MS = 2000;

const Liveness = z.object({ status: z.literal('ok') }).meta({ id: 'Liveness' });
const Readiness = z
  .object({
    status: z.enum(['ok', 'degraded', 'error']),
    checks: z.object({ database: z.enum(['ok', 'error']), redis: z.enum(['ok', 'error']) }),
  })
  .meta({ id: 'Readiness' });
const ModelHealth = z
  .object({
    status: z.enum(['ok', 'unreachable']),
    model: z.string().describe('LLM_MODEL, the model runs ask for'),
    model_listed: z
      .boolean()
      .nullable()
      .describe('whether the server lists that model (null when it answered no list)'),
    checked_at: z.string().meta({ format: 'date-time' }),
    latency_ms: z.number().int().min(0),
    error: z
      .string()
      .nullable()
      .describe('why it is unreachable: connection refused, timeout, HTTP 401, …'),
  })
  .meta({ id: 'ModelHealth' });
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
  r.get(
    '/health/model',
    {
      schema: {
        tags,
        security: PUBLIC,
        summary: 'Model server: does it answer GET /models',
        description:
          'Public. 200 when the configured model server (LLM_API_URL) answers GET /models, 503 when it does not (runs would fail with model_unreachable). Checked at most every 10 s; not part of readiness.',
        operationId: 'getModelHealth',
        querystring: NoQuery,
        response: {
          200: ModelHealth,
          503: ModelHealth.describe('The model server does not answer'),
          ...errorResponses(400),
        },
      },
    },
    async (_request, reply) => {
      const status = await deps.model.check();
      return reply.code(status.reachable ? 200 : 503).send({
        status: status.reachable ? ('ok' as const) : ('unreachable' as const),
        model: deps.model.model,
        model_listed: status.modelListed,
        checked_at: status.checkedAt.toISOString(),
        latency_ms: Math.round(status.latencyMs),
        error: status.error,
      });
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
