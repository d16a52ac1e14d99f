import { randomBytes } from 'node:crypto';
import cors from '@fastify/cors';
import swagger from '@fastify/swagger';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Registry } from 'prom-client';
import { loadChatTools } from '../agent/chat-tools.js';
import { createLlm, type Llm } from '../agent/llm.js';
import type { ToolMetrics } from '../agent/tool-metrics.js';
import type { Tracing } from '../tracing/tracing.js';
import type { HttpSender } from '../agent/tools/http-request.js';
import { createStreamingLlm, type StreamingLlm } from '../agent/llm-stream.js';
import { createModelConnections, type ModelConnections } from '../agent/model-connections.js';
import { registerModelPoolGauges } from '../agent/model-metrics.js';
import { createModelCatalog, withRoutedModels } from '../agent/model-catalog.js';
import type { RunModelSettings } from '../agent/run-model.js';
import { createModelProbe, type ModelProbe } from '../agent/model-probe.js';
import { createMcpToolkit, type McpToolkitDeps } from '../agent/mcp-offers.js';
import type { Config } from '../config.js';
import { loadInstallationId } from '../db/installation.js';
import type { Pool } from '../db/pool.js';
import type { Logger } from '../log.js';
import type { ObjectStore } from '../storage/object-store.js';
import type { Redis } from '../redis/connection.js';
import { registerAccessLog } from './access-log.js';
import { registerAuth } from './auth.js';
import { registerPermissions } from './permissions.js';
import { registerAuditHook } from './audit-hook.js';
import { frameworkErrorReply, registerErrorHandling } from './errors.js';
import { registerHttpMetrics } from './metrics.js';
import { RateLimiter } from './rate-limit.js';
import { createSecretsVault, type SecretsVault } from '../secrets/vault.js';
import type { SkillLibrary } from '../skills/library.js';
import { registerAdminClusterRoutes } from './routes/admin-cluster.js';
import { registerAgentSettingsRoutes } from './routes/agent-settings.js';
import { registerApiKeyRoutes } from './routes/api-keys.js';
import { registerAuditLogRoutes } from './routes/audit-log.js';
import { registerChatRoutes } from './routes/chat.js';
import { registerUsageRoutes } from './routes/usage.js';
import type { UsageDeps } from '../usage/metered-step.js';
import { createUsage } from '../usage/setup.js';
import { ChatTurnLimiter } from './chat-turns.js';
import { registerCronJobRoutes } from './routes/cron-jobs.js';
import { registerDashboardRoutes } from './routes/dashboard.js';
import { registerHealthRoutes } from './routes/health.js';
import { registerApiReference } from './routes/api-reference.js';
import { openApiOptions, registerOpenApiRoutes } from './routes/openapi.js';
import { registerMemberRoutes } from './routes/members.js';
import { registerMcpServerRoutes } from './routes/mcp-servers.js';
import { registerSecretRoutes } from './routes/secrets.js';
import { registerSignInRoutes } from './routes/sign-in.js';
import { createOidcClient, type OidcClient } from '../sso/oidc-client.js';
import { registerSkillRoutes } from './routes/skills.js';
import { registerQueuedRunRoutes } from './routes/queued-runs.js';
import { registerRunRoutes } from './routes/runs.js';
import { registerTenantRoutes } from './routes/tenants.js';
import { registerWebhookRoutes } from './routes/webhooks.js';
import { registerChannelRoutes } from './routes/channels.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

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
  /** The streaming model client (defaults to one built from the LLM_* settings). */
  streamingLlm?: StreamingLlm;
  /** Model fallback and structured answers (default: from the settings, fallbacks not counted). */
  modelSettings?: RunModelSettings;
  /** The pending lease of a chat's Idempotency-Key (default 10 min; tests shorten it). */
  idempotencyLeaseMs?: number;
  /** The process's pool to the model server, shared with the scheduler's client (default: new). */
  modelConnections?: ModelConnections;
  /** Tenant secrets (defaults to a vault over HERMES_SECRETS_KEY). */
  vault?: SecretsVault;
  /** Tenant skills; absent: the skills routes answer 503 (no object store). */
  skills?: SkillLibrary | undefined;
  /** The outbound guard for chat's http_request tool; absent: chat has no http_request. */
  sendHttp?: HttpSender | undefined;
  toolMetrics?: ToolMetrics | undefined;
  /** Chat turns as traces (src/tracing/); absent: none. */
  tracing?: Tracing | undefined;
  /** Where long run results are (src/storage); without it only inline results are read. */
  objects?: ObjectStore;
  /** Answers GET /health/model (defaults to one for the LLM_* settings). */
  modelProbe?: ModelProbe;
  /** The OpenID Connect client (defaults to one for the OIDC_* settings; none: no SSO). */
  oidc?: OidcClient;
  /** The pod's MCP gates and directory, shared with its runs (default: new ones). */
  mcp?: McpToolkitDeps;
  /** Prices, budgets and usage metrics (main.ts shares its set with the scheduler). */
  usage?: UsageDeps;
}

const BODY_LIMIT_BYTES = 256 * 1024;
const PUBLIC_PATHS = new Set([
  '/health/live',
  '/health/ready',
  '/health/model',
  '/metrics',
  '/openapi.json',
  '/docs',
]);

/** The HTTP application, built but not listening (tests use inject; main.ts listens). */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    // X-Forwarded-For is believed only from the proxies listed in SAAS_TRUSTED_PROXIES: from
    // anyone else it would let a client pick the address that auth throttling counts.
    trustProxy: deps.config.trustedProxies ?? false,
    frameworkErrors: frameworkErrorReply,
    // Random ids, so the id a tenant quotes from an error message finds one log line.
    genReqId: () => `req_${randomBytes(8).toString('hex')}`,
    ...transportLimits(deps.config),
  });
  app.addHook('onSend', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  // Routes are private unless marked public (auth.ts). These are public by design; marked here so
  // the modules that register them need not know about access control.
  app.addHook('onRoute', (route) => {
    const isPublic = PUBLIC_PATHS.has(route.url) || route.url.startsWith('/docs/assets/');
    if (isPublic && route.config?.access === undefined) {
      route.config = { ...route.config, access: 'public' };
    }
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);
  await app.register(cors, {
    origin: deps.config.allowedOrigins === '*' ? true : [...deps.config.allowedOrigins],
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['authorization', 'content-type', 'idempotency-key'],
    exposedHeaders: [
      'x-request-id',
      'retry-after',
      'idempotent-replayed',
      'x-hermesx-agent-stopped',
    ],
  });
  // The API takes JSON only: without this, a text/plain body reaches validation and gets a 400.
  app.removeContentTypeParser('text/plain');
  await app.register(swagger, openApiOptions());
  registerHttpMetrics(app, deps.registry);
  registerAccessLog(app, deps.log);
  const rateLimiter = new RateLimiter(deps.redis, () => loadInstallationId(deps.pool));
  registerAuth(app, {
    config: deps.config,
    pool: deps.pool,
    rateLimiter,
    failureLimiter: new RateLimiter(undefined),
  });
  registerPermissions(app);
  registerAuditHook(app, { pool: deps.pool, log: deps.log });
  const now = deps.now ?? (() => new Date());
  const usage =
    deps.usage ??
    createUsage({
      pool: deps.pool,
      redis: deps.redis,
      registry: deps.registry,
      log: deps.log,
      now,
      settings: {
        modelPricesFile: deps.config.modelPricesFile,
        budgetReserveMaxTokens: deps.config.budgetReserveMaxTokens,
        defaultModel: deps.config.llm.model,
      },
    });
  registerHealthRoutes(app, {
    pool: deps.pool,
    redis: deps.redis,
    model: deps.modelProbe ?? createModelProbe(deps.config.llm),
  });
  registerTenantRoutes(app, deps);
  registerApiKeyRoutes(app, { pool: deps.pool, now });
  registerSignInRoutes(app, {
    config: deps.config,
    pool: deps.pool,
    log: deps.log,
    oidc: deps.oidc ?? (deps.config.oidc ? createOidcClient(deps.config.oidc) : undefined),
    now,
  });
  registerMemberRoutes(app, { pool: deps.pool, sessions: deps.config.sessions });
  const schedulerRunning = deps.schedulerRunning ?? (() => false);
  const vault = deps.vault ?? createSecretsVault(deps.pool, deps.config.secretsKey);
  const allowPrivateNetworks = deps.config.httpToolAllowPrivateNetworks ?? false;
  // Action budgets, counted in Redis across replicas like request rates: null when the action
  // may go, else the seconds until it may (429 with Retry-After).
  const spend = async (key: string, limit: number, windowMs = MINUTE_MS) => {
    const decision = await rateLimiter.hit(key, limit, Date.now(), windowMs);
    return decision.allowed ? null : decision.retryAfterSeconds;
  };
  // Shared by POST /trigger and the cronjob tool's run_now.
  const spendManualRun = (tenantId: string) =>
    spend(`manual:${tenantId}`, deps.config.manualRunsPerMinute);
  // Pauses and resumes per job, redeliveries per tenant: bounded like manual runs.
  const spendToggle = (tenantId: string, jobId: string) =>
    spend(`toggle:${tenantId}:${jobId}`, deps.config.jobTogglesPerMinute);
  const spendRedelivery = (tenantId: string) =>
    spend(`redeliver:${tenantId}`, deps.config.webhookRedeliveriesPerHour, HOUR_MS);
  // Channel test messages and MCP server tests reach tenant-chosen addresses: one budget per tenant.
  const spendTest = (tenantId: string) =>
    spend(`outbound-test:${tenantId}`, deps.config.outboundTestsPerHour, HOUR_MS);
  const controls = {
    execTimeoutMs: deps.config.execTimeoutMs,
    listModels: withRoutedModels(
      createModelCatalog({ ...deps.config.llm, models: deps.config.llmModels }),
      [...deps.config.llmModelUrls.keys()],
    ),
  };
  registerCronJobRoutes(app, {
    pool: deps.pool,
    now,
    schedulerRunning,
    objects: deps.objects,
    spendManualRun,
    spendToggle,
    controls,
  });
  registerRunRoutes(app, { pool: deps.pool, log: deps.log, objects: deps.objects });
  registerQueuedRunRoutes(app, {
    pool: deps.pool,
    now,
    spendManualRun,
    limits: {
      backfillRunsPerDay: deps.config.backfillRunsPerDay,
      maxQueuedRuns: deps.config.maxQueuedRunsPerTenant,
    },
  });
  const modelConnections =
    deps.modelConnections ??
    createModelConnections(deps.config.llm.url, deps.config.modelConnections);
  registerModelPoolGauges(deps.registry, modelConnections.gate);
  const jobCommands = {
    pool: deps.pool,
    now,
    spendManualRun,
    spendToggle,
    objects: deps.objects,
    schedulerRunning,
    controls,
  };
  const mcp = deps.mcp ?? createMcpToolkit(deps.pool, vault, deps.config.mcp, allowPrivateNetworks);
  const chatTools = {
    mcp,
    jobs: jobCommands,
    vault,
    skills: deps.skills,
    sendHttp: deps.sendHttp,
    allowPrivateNetworks,
    toolMetrics: deps.toolMetrics,
  };
  registerChatRoutes(app, {
    ...jobCommands,
    rateLimiter,
    llm: deps.llm ?? createLlm(deps.config.llm, { connections: modelConnections }),
    streamingLlm:
      deps.streamingLlm ?? createStreamingLlm(deps.config.llm, { connections: modelConnections }),
    modelSettings: deps.modelSettings ?? {
      fallbackTimeoutMs: deps.config.llmFallbackTimeoutMs,
      jsonSchema: deps.config.llmJsonSchema,
    },
    maxTokens: deps.config.chatMaxTokens,
    heartbeatMs: deps.config.chatHeartbeatMs,
    turns: new ChatTurnLimiter(deps.redis),
    maxTurnsPerTenant: deps.config.chatMaxTurnsPerTenant,
    turnTimeoutMs: deps.config.chatTurnTimeoutMs,
    idempotencyLeaseMs: deps.idempotencyLeaseMs,
    tools: (tenantId, access) => loadChatTools(chatTools, tenantId, access),
    tracing: deps.tracing,
    usage,
  });
  registerUsageRoutes(app, { pool: deps.pool, usage });
  registerSecretRoutes(app, { vault });
  registerSkillRoutes(app, { skills: deps.skills });
  registerMcpServerRoutes(app, {
    pool: deps.pool,
    directory: mcp.directory,
    maxServers: deps.config.mcp.maxServersPerTenant,
    redactor: (tenantId) => vault.redactor(tenantId),
    spendTest,
  });
  registerAgentSettingsRoutes(app, {
    pool: deps.pool,
    allowPrivateNetworks,
    listModels: controls.listModels,
  });
  registerWebhookRoutes(app, {
    pool: deps.pool,
    now,
    allowPrivateNetworks: deps.config.webhooks.allowPrivateNetworks ?? false,
    maxEndpoints: deps.config.webhooks.maxEndpoints,
    secretsKey: deps.config.secretsKey,
    spendRedelivery,
  });
  const channelSettings = deps.config.channels;
  registerChannelRoutes(app, {
    pool: deps.pool,
    now,
    vault,
    allowPrivateNetworks: deps.config.webhooks.allowPrivateNetworks ?? false,
    timeoutMs: channelSettings.timeoutMs,
    telegramApiUrl: channelSettings.telegramApiUrl,
    smtpUrl: channelSettings.smtpUrl,
    smtpFrom: channelSettings.smtpFrom,
    maxChannels: channelSettings.maxChannels,
    publicUrl: channelSettings.publicUrl,
    secretsKey: deps.config.secretsKey,
    spendTest,
  });
  registerAuditLogRoutes(app, {
    pool: deps.pool,
    exportMaxEntries: deps.config.auditExportMaxEntries,
  });
  registerOpenApiRoutes(app);
  registerApiReference(app);
  registerAdminClusterRoutes(app, deps);
  registerDashboardRoutes(app);
  return app;
}

/**
 * A client that sends headers or a body slowly (or announces a body it never sends) is cut
 * after the request timeout; an idle kept-alive socket after the keep-alive timeout. The
 * response may take longer (a chat turn): Node's request timeout covers receiving the request.
 */
function transportLimits(config: Config) {
  const requestTimeout = config.httpRequestTimeoutMs;
  return {
    requestTimeout,
    connectionTimeout: config.httpIdleTimeoutMs,
    keepAliveTimeout: config.httpKeepAliveTimeoutMs,
    http: {
      headersTimeout: Math.min(requestTimeout, 10_000),
      // How often Node looks for requests over their timeout (its default is 30 s).
      connectionsCheckingInterval: Math.min(1000, requestTimeout),
    },
  };
}
