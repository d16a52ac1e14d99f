import cors from '@fastify/cors';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { Config } from '../config.js';
import type { Pool } from '../db/pool.js';
import type { Logger } from '../log.js';
import type { Redis } from '../redis/connection.js';
import { registerErrorHandling } from './errors.js';
import { registerHttpMetrics } from './metrics.js';
import { registerHealthRoutes } from './routes/health.js';

export interface AppDeps {
  config: Config;
  pool: Pool;
  redis: Redis | undefined;
  log: Logger;
  registry: Registry;
}

const BODY_LIMIT_BYTES = 256 * 1024;

/** The HTTP application, built but not listening (tests use inject; main.ts listens). */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: true,
  });
  registerErrorHandling(app);
  await app.register(cors, {
    origin: deps.config.allowedOrigins === '*' ? true : [...deps.config.allowedOrigins],
  });
  registerHttpMetrics(app, deps.registry);
  registerHealthRoutes(app, deps);
  return app;
}
