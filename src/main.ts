import { Counter, type Registry } from 'prom-client';
import { createCronRunner } from './agent/cron-runner.js';
import { createMcpToolkit } from './agent/mcp-offers.js';
import { createTenantContexts } from './agent/run-context.js';
import { type RetryCause } from './agent/llm.js';
import { createModelConnections } from './agent/model-connections.js';
import { createModelServers } from './agent/model-routes.js';
import { createFallbackMetrics } from './agent/model-fallback.js';
import { createModelMetrics, instrumentLlm } from './agent/model-metrics.js';
import { createToolMetrics } from './agent/tool-metrics.js';
import { sendOutbound } from './outbound/request.js';
import { createSecretsVault } from './secrets/vault.js';
import { createSkillLibrary } from './skills/library.js';
import { createModelProbe, type ModelProbe, type ModelStatus } from './agent/model-probe.js';
import { requireDatabaseUrl, type Config } from './config.js';
import { redactUrl } from './log.js';
import { listenForJobChanges, type JobListener } from './db/listen.js';
import { migrate } from './db/migrate.js';
import { createPool } from './db/pool.js';
import { buildApp } from './http/app.js';
import { createServiceRegistry } from './http/metrics.js';
import type { Logger } from './log.js';
import { createRedis } from './redis/connection.js';
import { createRedisLockStore } from './redis/lock.js';
import { countRedisFailovers } from './redis/metrics.js';
import { redisTargetOf } from './redis/target.js';
import { loadInstallationId } from './db/installation.js';
import { createSchedulerMetrics } from './scheduler/metrics.js';
import { BATCH_CONNECTIONS, createPgJobStore } from './db/job-store.js';
import { systemClock } from './services/clock.js';
import { Scheduler } from './scheduler/scheduler.js';
import type { SchedulerSettings } from './scheduler/settings.js';
import { createHeapGrowth } from './heap-growth.js';
import { createChannelMetrics } from './channels/metrics.js';
import { ChannelSender, type ChannelSenderSettings } from './channels/sender.js';
import { createWebhookMetrics } from './webhooks/metrics.js';
import { readQueueStats } from './webhooks/outbox.js';
import { sealSecretsAtStart } from './webhooks/secret-seal.js';
import { sealChannelUrlsAtStart } from './channels/url-seal.js';
import type { SenderSettings } from './webhooks/sender-settings.js';
import { WebhookSender } from './webhooks/sender.js';
import { DEFAULT_MAX_OBJECT_BYTES } from './storage/object-store.js';
import { openObjectStore } from './storage/open-store.js';
import { createResultQuota } from './storage/result-quota.js';
import { createResultStore } from './storage/run-results.js';
import { ResultSweeper } from './storage/result-sweeper.js';
import { IdempotencySweeper } from './http/idempotency-sweeper.js';
import { AuditUpkeep } from './audit/upkeep.js';
import { startServices, stopServices, type Service } from './services/service.js';
import { traceJobStore } from './tracing/job-store.js';
import { Tracing } from './tracing/tracing.js';
import { createUsage } from './usage/setup.js';
import { BudgetResumeSweep } from './usage/resume-sweep.js';

export interface RunningService {
  url: string;
  scheduler: Scheduler | undefined;
  /** The configured model server and whether it answers GET /models. */
  model: ModelProbe;
  /** Stops accepting work, drains, closes connections. */
  stop(): Promise<void>;
}

/** The composition root: migrate, connect, schedule, serve. */
export async function startService(config: Config, log: Logger): Promise<RunningService> {
  const databaseUrl = requireDatabaseUrl(config);
  log.info({ database: redactUrl(databaseUrl), pod: config.podId }, 'starting');
  await migrate(databaseUrl, log);

  // DATABASE_URL (the schema owner) migrates; APP_DATABASE_URL, when set, is a login role that is
  // only a member of hermesx_app, so no statement can RESET ROLE back to the owner.
  const appDatabaseUrl = config.appDatabaseUrl ?? databaseUrl;
  const pool = createPool(appDatabaseUrl, log, {
    max: Math.min(50, config.maxConcurrentRuns + 10),
  });
  // The scheduler's batched claims and records, on connections of their own (db/job-store.ts).
  const batchPool = createPool(appDatabaseUrl, log, {
    max: BATCH_CONNECTIONS,
    idleTimeoutMs: 0,
  });
  // Large run results (and skills). S3 that does not answer yet does not stop the service: runs
  // whose answer needs it fail with result_not_stored until it does. A store that answers but
  // cannot be written (a read-only directory, a bucket the keys may not write) stops it here,
  // the setting named (src/storage/probe-store.ts).
  const objects = await openObjectStore(config.objectStore, {
    maxObjectBytes: Math.max(DEFAULT_MAX_OBJECT_BYTES, config.runResultMaxBytes),
    onBucketCreated: (bucket) => log.info({ bucket }, 'object store bucket created'),
    onUnavailable: (error) =>
      log.error(
        { object_store: config.objectStore.kind, error: error.message },
        'object store unavailable',
      ),
  });
  log.info({ object_store: objects.description }, 'object store ready');
  const registry = createServiceRegistry();
  // OTLP traces of runs, chat turns and deliveries when OTEL_EXPORTER_OTLP_ENDPOINT is set.
  const tracing = new Tracing(config.tracing, log);
  tracing.start();
  const redisTarget = redisTargetOf(config);
  const redis = redisTarget
    ? createRedis(redisTarget, log, { onFailover: countRedisFailovers(registry) })
    : undefined;
  const modelMetrics = createModelMetrics(registry);

  const onRetry = countModelRetries(registry);
  const vault = createSecretsVault(pool, config.secretsKey);
  if (!vault.enabled) {
    log.warn(
      'tenant secrets disabled: HERMES_SECRETS_KEY is not set (the secrets API answers 503)',
    );
  }
  const skills = createSkillLibrary(pool, objects);
  // One pool to the model server for chat and scheduled runs, handed out fairly across tenants.
  const modelConnections = createModelConnections(config.llm.url, config.modelConnections);
  // LLM_MODEL_URLS: models of other servers, each server on a pool of its own.
  const modelServers = createModelServers(
    config.llm,
    config.llmModelUrls,
    modelConnections,
    config.modelConnections,
  );
  const contexts = createTenantContexts(pool, vault, skills);
  // Tokens, cost and budgets of every model call, scheduled or chat (src/usage/).
  const usage = createUsage({
    pool,
    redis,
    registry,
    log,
    settings: {
      modelPricesFile: config.modelPricesFile,
      budgetReserveMaxTokens: config.budgetReserveMaxTokens,
      defaultModel: config.llm.model,
    },
  });
  const modelSettings = {
    fallbackTimeoutMs: config.llmFallbackTimeoutMs,
    jsonSchema: config.llmJsonSchema,
    metrics: createFallbackMetrics(registry, [
      config.llm.model,
      ...config.llmModels,
      ...config.llmModelUrls.keys(),
    ]),
  };
  const mcp = createMcpToolkit(
    pool,
    vault,
    config.mcp,
    config.httpToolAllowPrivateNetworks ?? false,
  );
  const runnerDeps = {
    models: modelSettings,
    mcp,
    usage,
    pool,
    vault,
    skills,
    contexts,
    sendHttp: sendOutbound,
    allowPrivateNetworks: config.httpToolAllowPrivateNetworks ?? false,
    toolMetrics: createToolMetrics(registry),
    log,
    tracing,
  };
  let scheduler: Scheduler | undefined;
  let listener: JobListener | undefined;
  if (redis) {
    const heapGrowth = createHeapGrowth();
    scheduler = new Scheduler({
      store: traceJobStore(createPgJobStore(pool, config.podId, batchPool), tracing.runs),
      locks: createRedisLockStore(redis, config.podId, await loadInstallationId(pool)),
      // SCHEDULER_EXEC_TIMEOUT (through the run's AbortSignal) is the only limit of a scheduled call.
      runner: createCronRunner(
        instrumentLlm(
          modelServers.llm({ requestTimeoutMs: config.execTimeoutMs + 1000, onRetry }),
          modelMetrics,
          'scheduler',
        ),
        runnerDeps,
      ),
      clock: systemClock,
      log,
      metrics: createSchedulerMetrics(registry),
      settings: schedulerSettings(config),
      results: createResultStore(
        objects,
        createResultQuota({ pool, defaultQuotaBytes: config.tenantResultBytesQuota, registry }),
      ),
      prepareTenants: (tenantIds) => contexts.warm(tenantIds),
      onBulkPlanning: (underway) => heapGrowth.setBounded(underway),
    });
    const running = scheduler;
    listener = listenForJobChanges({
      databaseUrl: appDatabaseUrl,
      log,
      onJobsChanged: (ids) => running.jobsChanged(ids),
      onManyJobsChanged: () => running.resync(),
      onTrigger: (jobId, scheduledAtMs) => running.trigger(jobId, scheduledAtMs),
      onCancel: (jobId, runId, why) => running.cancelRun(jobId, runId, why),
      onReconnected: (lostAtMs) => running.reconnected(lostAtMs),
    });
  } else {
    log.warn('scheduler disabled: redis unavailable');
  }

  await sealSecretsAtStart(pool, config.secretsKey, log);
  await sealChannelUrlsAtStart(pool, config.secretsKey, log);
  // Webhook deliveries go out from every pod, with or without Redis (the database leases them).
  const webhookSender = new WebhookSender({
    pool,
    log,
    secretsKey: config.secretsKey,
    metrics: createWebhookMetrics(registry, () => readQueueStats(pool)),
    settings: webhookSenderSettings(config),
    clock: systemClock,
    tracing,
  });
  // Channel messages (email, Slack, Discord, Telegram, Teams) go out from every pod as well.
  const channelSender = new ChannelSender({
    pool,
    log,
    vault,
    secretsKey: config.secretsKey,
    metrics: createChannelMetrics(registry),
    settings: channelSenderSettings(config),
    clock: systemClock,
  });
  // Result objects no run row points at (a pod killed between the write and the record, runs
  // dropped by retention): deleted once past a grace period (src/storage/result-sweeper.ts).
  const resultSweeper = new ResultSweeper({ pool, store: objects, log, clock: systemClock });
  // Idempotency-Key answers past their window, of every tenant (src/http/idempotency-sweeper.ts).
  const idempotencySweeper = new IdempotencySweeper({ pool, log, clock: systemClock });
  // The audit log's monthly partitions and retention (src/audit/upkeep.ts).
  const auditUpkeep = new AuditUpkeep({ pool, log, clock: systemClock });
  // Jobs paused by a spent budget resume when its period turns (src/usage/resume-sweep.ts).
  const budgetResumeSweep = new BudgetResumeSweep({ pool, log, clock: systemClock });

  const model = createModelProbe(config.llm);
  const app = await buildApp({
    modelProbe: model,
    config,
    pool,
    redis,
    log,
    registry,
    schedulerRunning: () => scheduler?.running ?? false,
    objects,
    llm: instrumentLlm(modelServers.llm({ onRetry }), modelMetrics, 'chat'),
    streamingLlm: modelServers.streaming(),
    modelSettings,
    modelConnections,
    vault,
    skills,
    sendHttp: sendOutbound,
    toolMetrics: runnerDeps.toolMetrics,
    tracing,
    mcp,
    usage,
  });
  let address = '';
  const http: Service = {
    name: 'http server',
    start: async () => {
      address = await app.listen({ port: config.port, host: config.host });
      // The bound host, not Fastify's first address (127.0.0.1 for a server on every interface).
      const port = Number(new URL(address).port);
      log.info({ host: config.host, port, pod: config.podId }, 'http server listening');
    },
    stop: () => app.close(),
  };
  // Started in this order, stopped in the reverse one: the HTTP server last up and first told to
  // stop. They drain side by side within SCHEDULER_SHUTDOWN_GRACE (src/services/service.ts).
  const services: Service[] = [
    ...(scheduler ? [scheduler] : []),
    webhookSender,
    channelSender,
    resultSweeper,
    idempotencySweeper,
    auditUpkeep,
    budgetResumeSweep,
    http,
  ];
  await startServices(services);
  // Said at start, without holding it up: a model server that does not answer fails every run.
  void model.check().then((status) => logModelStatus(log, config, status));

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      log.info('shutting down');
      // Stop firing and stop accepting requests at once; in-flight runs drain meanwhile.
      await stopServices(services, config.shutdownGraceMs);
      // After the services: the spans of the runs and deliveries they drained leave too.
      await tracing.stop();
      await listener?.close();
      if (redis) await redis.quit().catch(() => redis.disconnect());
      await pool.end();
      await batchPool.end();
      objects.close();
      log.info('stopped');
    })();
    return stopping;
  };
  return { url: address, scheduler, model, stop };
}

function logModelStatus(log: Logger, config: Config, status: ModelStatus): void {
  const fields = { llm_url: redactUrl(config.llm.url), model: config.llm.model };
  if (status.reachable) {
    log.info(
      { ...fields, model_listed: status.modelListed, latency_ms: Math.round(status.latencyMs) },
      'model server answered',
    );
  } else {
    log.warn(
      { ...fields, error: status.error },
      'model server not answering GET /models: runs will fail with model_unreachable',
    );
  }
}

/** hermesx_model_retries_total{cause}: model requests sent again, and why. */
function countModelRetries(registry: Registry): (cause: RetryCause) => void {
  const retries = new Counter({
    name: 'hermesx_model_retries_total',
    help: 'Model requests sent again: throttled (429), overloaded (503), connect (failed before sending)',
    labelNames: ['cause'],
    registers: [registry],
  });
  for (const cause of ['throttled', 'overloaded', 'connect']) retries.inc({ cause }, 0);
  return (cause) => retries.inc({ cause });
}

export function channelSenderSettings(config: Config): ChannelSenderSettings {
  const { channels } = config;
  return {
    podId: config.podId,
    retryScheduleMs: channels.retryScheduleMs,
    timeoutMs: channels.timeoutMs,
    maxConcurrent: channels.maxConcurrentDeliveries,
    maxPerTenant: channels.maxDeliveriesPerTenant,
    disableAfterMs: channels.disableAfterMs,
    retentionMs: channels.deliveryRetentionMs,
    allowPrivateNetworks: config.webhooks.allowPrivateNetworks ?? false,
    publicUrl: channels.publicUrl,
    smtpUrl: channels.smtpUrl,
    smtpFrom: channels.smtpFrom,
    telegramApiUrl: channels.telegramApiUrl,
  };
}

export function webhookSenderSettings(config: Config): SenderSettings {
  const { webhooks } = config;
  return {
    podId: config.podId,
    retryScheduleMs: webhooks.retryScheduleMs,
    timeoutMs: webhooks.timeoutMs,
    maxConcurrent: webhooks.maxConcurrentDeliveries,
    maxPerTenant: webhooks.maxDeliveriesPerTenant,
    disableAfterMs: webhooks.disableAfterMs,
    retentionMs: webhooks.deliveryRetentionMs,
    allowPrivateNetworks: webhooks.allowPrivateNetworks ?? false,
  };
}

export function schedulerSettings(config: Config): SchedulerSettings {
  return {
    podId: config.podId,
    pollIntervalMs: config.pollIntervalMs,
    execTimeoutMs: config.execTimeoutMs,
    lockTtlMs: config.lockTtlMs,
    maxConcurrentRuns: config.maxConcurrentRuns,
    claimAheadRuns: config.claimAheadRuns,
    catchupWindowMs: config.catchupWindowMs,
    livenessIntervalMs: 5000,
    livenessTtlMs: 15_000,
    recoveryIntervalMs: 10_000,
    runResultMaxBytes: config.runResultMaxBytes,
  };
}
