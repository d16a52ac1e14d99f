import cors from '@fastify/cors';
import swagger from '@fastify/swagger';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
} from 'fastify-type-provider-zod';
import type { Registry } from 'prom-client';
import { createLlm, type Llm } from '../agent/llm.js';
import type { Config } from '../config.js';
import type { Pool } from '../db/pool.js';
import type { Logger } from '../log.js';
import type { Redis } from '../redis/connection.js';
import { registerAuth } from './auth.js';
import { frameworkErrorReply, registerErrorHandling } from './errors.js';
import { registerHttpMetrics } from './metrics.js';
import { RateLimiter } from './rate-limit.js';
import { registerAdminClusterRoutes } from './routes/admin-cluster.js';
import { registerApiKeyRoutes } from './routes/api-keys.js';
import { registerChatRoutes } from './routes/chat.js';
import { registerCronJobRoutes } from './routes/cron-jobs.js';
import { registerDashboardRoutes } from './routes/dashboard.js';
import { registerHealthRoutes } from './routes/health.js';
import { registerOpenApiRoutes } from './routes/openapi.js';
import { registerTenantRoutes } from './routes/tenants.js';

export interface AppDeps {
  config: Config;
  pool: Pool;
  redis: Redis | undefined;
  log: Logger;
  registry: Registry;
  now?: () => Date;
  /** Whether this replica's scheduler runs (manual triggers need one). */
  schedulerRunning?: () => boolean;
  /** The model server client (defaults to one built from the LLM_* settings). */
  llm?: Llm;
}

const BODY_LIMIT_BYTES = 256 * 1024;

/** The HTTP application, built but not listening (tests use inject; main.ts listens). */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: true,
    frameworkErrors: frameworkErrorReply,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);
  await app.register(cors, {
    origin: deps.config.allowedOrigins === '*' ? true : [...deps.config.allowedOrigins],
  });
  await app.register(swagger, {
    openapi: {
      info: { title: 'HermesX API', version: '1.0.0' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
    transform: jsonSchemaTransform,
  });
  registerHttpMetrics(app, deps.registry);
  registerAuth(app, {
    config: deps.config,
    pool: deps.pool,
    rateLimiter: new RateLimiter(deps.redis),
  });
  const now = deps.now ?? (() => new Date());
  registerHealthRoutes(app, deps);
  registerTenantRoutes(app, deps);
  registerApiKeyRoutes(app, { pool: deps.pool, now });
  registerCronJobRoutes(app, {
    pool: deps.pool,
    now,
    schedulerRunning: deps.schedulerRunning ?? (() => false),
  });
  registerChatRoutes(app, { pool: deps.pool, now, llm: deps.llm ?? createLlm(deps.config.llm) });
  registerOpenApiRoutes(app);
  registerAdminClusterRoutes(app, deps);
  registerDashboardRoutes(app);
  return app;
}
