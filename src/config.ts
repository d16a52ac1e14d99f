import type { McpSettings } from './mcp/settings.js';
import os from 'node:os';
import { z } from 'zod';
import { defaultPerTenantConnections } from './agent/model-gate.js';
import { formatDurationMs, parseDurationMs } from './duration.js';
import { redactUrl } from './log.js';
import { EXAMPLE_SECRETS_KEY, parseSecretsKey } from './secrets/key.js';
import type { ObjectStoreSettings } from './storage/open-store.js';
import { parseKeyValues, readTraceSettings, type TraceSettings } from './tracing/settings.js';
import {
  DEFAULT_REDIS_PORT,
  DEFAULT_SENTINEL_PORT,
  isSentinelUrl,
  parseHostList,
  parseSentinelUrl,
  type HostPort,
  type RedisSettings,
} from './redis/target.js';

/** Thrown for a setting that cannot be used; its message is the one line shown to the operator. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

const duration = (fallback: string, minMs: number) =>
  z
    .string()
    .optional()
    .transform((text, ctx) => {
      const raw = text === undefined || text.trim() === '' ? fallback : text;
      const ms = parseDurationMs(raw);
      if (ms === null || ms < minMs) {
        ctx.addIssue({
          code: 'custom',
          message: `expected a duration of at least ${formatDurationMs(minMs)} such as 30s, 5m or 1h30m`,
        });
        return z.NEVER;
      }
      return ms;
    });

const integer = (fallback: number, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((text, ctx) => {
      const raw = text === undefined || text.trim() === '' ? String(fallback) : text.trim();
      const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
      if (!Number.isSafeInteger(value) || value < min || value > max) {
        ctx.addIssue({ code: 'custom', message: `expected a whole number from ${min} to ${max}` });
        return z.NEVER;
      }
      return value;
    });

// A comma-separated list of durations (e.g. a retry schedule); empty entries are refused.
const durationList = (fallback: string) =>
  z
    .string()
    .optional()
    .transform((text, ctx) => {
      const raw = text === undefined || text.trim() === '' ? fallback : text;
      const values = raw.split(',').map((part) => parseDurationMs(part.trim()));
      if (values.length > 20 || values.some((ms) => ms === null || ms < 0)) {
        ctx.addIssue({
          code: 'custom',
          message: 'expected up to 20 comma-separated durations such as 5s,5m,30m',
        });
        return z.NEVER;
      }
      return values as number[];
    });

const optionalText = z
  .string()
  .optional()
  .transform((text) => (text === undefined || text.trim() === '' ? undefined : text.trim()));

const url = (protocols: string[], example: string) =>
  optionalText.refine(
    (text) => text === undefined || isUrlWith(text, protocols),
    `expected a URL such as ${example}`,
  );

const hostList = (defaultPort: number) =>
  optionalText.transform((text, ctx) => {
    if (text === undefined) return undefined;
    const hosts = parseHostList(text, defaultPort);
    if (!hosts) {
      ctx.addIssue({ code: 'custom', message: 'expected host:port[,host:port…]' });
      return z.NEVER;
    }
    return Object.freeze(hosts.map((host) => Object.freeze(host)));
  });

const choice = <T extends string>(values: readonly [T, ...T[]], fallback: T) =>
  z
    .string()
    .optional()
    .transform((text) => (text === undefined || text.trim() === '' ? fallback : text.trim()))
    .pipe(z.enum(values, { error: `expected one of ${values.join(', ')}` }));

/** `key=value,key=value`, percent-encoded (OpenTelemetry's headers and resource attributes). */
const keyValues = (example: string) =>
  optionalText.refine(
    (text) => parseKeyValues(text) !== null,
    `expected key=value pairs separated by commas, such as ${example}`,
  );

const envSchema = z.object({
  DATABASE_URL: url(['postgres:', 'postgresql:'], 'postgres://user:pass@host:5432/db'),
  REDIS_URL: optionalText.refine(
    (text) =>
      text === undefined ||
      (isSentinelUrl(text)
        ? parseSentinelUrl(text) !== null
        : isUrlWith(text, ['redis:', 'rediss:'])),
    'expected a URL such as redis://localhost:6379 or redis+sentinel://host:26379,host:26379/mymaster',
  ),
  REDIS_SENTINELS: hostList(DEFAULT_SENTINEL_PORT),
  REDIS_SENTINEL_NAME: optionalText.transform((text) => text ?? 'mymaster'),
  REDIS_SENTINEL_PASSWORD: optionalText,
  REDIS_PASSWORD: optionalText,
  REDIS_CLUSTER_NODES: hostList(DEFAULT_REDIS_PORT),
  SAAS_API_PORT: integer(18080, 0, 65535),
  SAAS_API_HOST: optionalText,
  SCHEDULER_POLL_INTERVAL: duration('30s', 1000),
  SCHEDULER_EXEC_TIMEOUT: duration('5m', 1000),
  SCHEDULER_LOCK_TTL: duration('12m', 1000),
  SCHEDULER_MAX_CONCURRENT_RUNS: integer(100, 1, 100_000),
  SCHEDULER_CLAIM_AHEAD: integer(0, 0, 100_000),
  SCHEDULER_CATCHUP_WINDOW: duration('1h', 0),
  SCHEDULER_SHUTDOWN_GRACE: duration('20s', 0),
  HERMES_ACP_TOKEN: optionalText,
  HERMES_API_KEY: optionalText,
  SAAS_ALLOWED_ORIGINS: optionalText,
  LLM_API_URL: url(['http:', 'https:'], 'http://localhost:11434/v1').transform(
    (text) => text ?? 'http://localhost:11434/v1',
  ),
  LLM_API_KEY: optionalText,
  LLM_MODEL: optionalText.transform((text) => text ?? 'qwen3:30b'),
  LLM_MODELS: optionalText
    .transform((text) => text?.split(',').map((name) => name.trim()))
    .refine(
      (names) =>
        names === undefined || names.every((name) => name.length > 0 && name.length <= 200),
      'expected model names separated by commas, the default first',
    ),
  LLM_MODEL_URLS: optionalText.transform((text, ctx) => {
    const routes = parseModelUrls(text);
    if (typeof routes === 'string') {
      ctx.addIssue({ code: 'custom', message: routes });
      return z.NEVER;
    }
    return routes;
  }),
  LLM_JSON_SCHEMA: choice(['auto', 'on', 'off'], 'auto'),
  LLM_FALLBACK_TIMEOUT: duration('60s', 1000),
  LLM_MAX_CONNECTIONS: integer(256, 1, 10_000),
  // 0: three quarters of LLM_MAX_CONNECTIONS.
  LLM_MAX_CONNECTIONS_PER_TENANT: integer(0, 0, 10_000),
  LLM_QUEUE_PER_TENANT: integer(1000, 0, 1_000_000),
  LOG_FORMAT: choice(['text', 'json'], 'text'),
  LOG_LEVEL: choice(['debug', 'info', 'warn', 'error'], 'info'),
  HERMES_POD_ID: optionalText,
  APP_DATABASE_URL: url(['postgres:', 'postgresql:'], 'postgres://hermesx_login:pass@host:5432/db'),
  SAAS_TRUSTED_PROXIES: optionalText.refine(
    (text) => text === undefined || text.split(',').every((part) => isProxyAddress(part.trim())),
    'expected a comma-separated list of IP addresses or CIDR ranges (or loopback, linklocal, uniquelocal)',
  ),
  SAAS_HTTP_REQUEST_TIMEOUT: duration('10s', 1000),
  SAAS_HTTP_KEEPALIVE_TIMEOUT: duration('72s', 1000),
  SAAS_HTTP_IDLE_TIMEOUT: duration('20m', 1000),
  SAAS_AUTH_FAILURES_PER_MINUTE: integer(20, 1, 1_000_000),
  CHAT_MAX_TOKENS: integer(16_384, 1, 10_000_000),
  CHAT_STREAM_HEARTBEAT: duration('15s', 100),
  CHAT_MAX_TURNS_PER_TENANT: integer(16, 1, 10_000),
  CHAT_TURN_TIMEOUT: duration('10m', 1000),
  MANUAL_RUNS_PER_MINUTE: integer(10, 1, 100_000),
  BACKFILL_RUNS_PER_DAY: integer(1000, 0, 10_000_000),
  MAX_QUEUED_RUNS_PER_TENANT: integer(10_000, 1, 10_000_000),
  AUDIT_EXPORT_MAX_ENTRIES: integer(100_000, 1, 10_000_000),
  JOB_TOGGLES_PER_MINUTE: integer(6, 1, 10_000),
  WEBHOOK_REDELIVERIES_PER_HOUR: integer(100, 1, 1_000_000),
  OUTBOUND_TESTS_PER_HOUR: integer(60, 1, 1_000_000),
  HERMESX_INSECURE_EXAMPLE_SECRETS: choice(['true', 'false'], 'false'),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: optionalText.pipe(
    z.enum(['true', 'false'], { error: 'expected true or false' }).optional(),
  ),
  WEBHOOK_RETRY_SCHEDULE: durationList('5s,5m,30m,2h,5h,10h,10h'),
  WEBHOOK_TIMEOUT: duration('15s', 100),
  WEBHOOK_MAX_CONCURRENT_DELIVERIES: integer(100, 1, 10_000),
  WEBHOOK_MAX_DELIVERIES_PER_TENANT: integer(10, 1, 10_000),
  WEBHOOK_MAX_ENDPOINTS: integer(10, 0, 1000),
  WEBHOOK_DISABLE_AFTER: duration('120h', 1000),
  WEBHOOK_DELIVERY_RETENTION: duration('720h', 60_000),
  SMTP_URL: url(['smtp:', 'smtps:'], 'smtps://user:password@smtp.example.com:465'),
  SMTP_FROM: optionalText,
  TELEGRAM_API_URL: url(['http:', 'https:'], 'https://api.telegram.org'),
  CHANNEL_RETRY_SCHEDULE: durationList('5s,1m,5m,30m,2h,6h'),
  CHANNEL_TIMEOUT: duration('15s', 100),
  CHANNEL_MAX_CONCURRENT_DELIVERIES: integer(50, 1, 10_000),
  CHANNEL_MAX_DELIVERIES_PER_TENANT: integer(5, 1, 10_000),
  CHANNEL_MAX_CHANNELS: integer(10, 0, 1000),
  CHANNEL_DISABLE_AFTER: duration('72h', 1000),
  CHANNEL_DELIVERY_RETENTION: duration('720h', 60_000),
  HERMES_SECRETS_KEY: optionalText.transform((text, ctx) => {
    if (text === undefined) return undefined;
    const key = parseSecretsKey(text);
    if (!key) {
      ctx.addIssue({
        code: 'custom',
        message: 'expected 32 bytes as 64 hex characters or base64 (e.g. openssl rand -hex 32)',
      });
      return z.NEVER;
    }
    return key;
  }),
  HTTP_TOOL_ALLOW_PRIVATE_NETWORKS: optionalText
    .refine(
      (text) => text === undefined || text === 'true' || text === 'false',
      'expected true or false',
    )
    .transform((text) => (text === undefined ? undefined : text === 'true')),
  MCP_MAX_SERVERS_PER_TENANT: integer(10, 0, 1000),
  MCP_MAX_TOOLS_PER_SERVER: integer(64, 1, 1024),
  MCP_RESPONSE_MAX_BYTES: integer(1024 * 1024, 1024, 64 * 1024 * 1024),
  MCP_CALL_TIMEOUT: duration('30s', 100),
  MCP_MAX_SESSIONS: integer(32, 1, 100_000),
  MCP_MAX_SESSIONS_PER_TENANT: integer(4, 1, 100_000),
  RUN_RESULT_MAX_BYTES: integer(1024 * 1024, 8192, 16 * 1024 * 1024),
  TENANT_RESULT_BYTES_QUOTA: integer(1024 ** 3, 0, 2 ** 50),
  MODEL_PRICES_FILE: optionalText,
  BUDGET_RESERVE_MAX_TOKENS: integer(4096, 1, 1_000_000),
  OBJECT_STORE_DIR: optionalText,
  S3_ENDPOINT: url(['http:', 'https:'], 'https://s3.eu-west-1.amazonaws.com'),
  S3_BUCKET: optionalText,
  S3_REGION: optionalText,
  S3_ACCESS_KEY_ID: optionalText,
  S3_SECRET_ACCESS_KEY: optionalText,
  MINIO_ENDPOINT: url(['http:', 'https:'], 'http://minio:9000'),
  MINIO_ACCESS_KEY: optionalText,
  MINIO_SECRET_KEY: optionalText,
  MINIO_BUCKET: optionalText,
  // The standard OpenTelemetry settings for traces (src/tracing/settings.ts), and ours.
  OTEL_EXPORTER_OTLP_ENDPOINT: url(['http:', 'https:'], 'http://collector:4318'),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url(['http:', 'https:'], 'http://collector:4318/v1/traces'),
  OTEL_EXPORTER_OTLP_HEADERS: keyValues('api-key=secret,x-team=ops'),
  OTEL_SERVICE_NAME: optionalText,
  OTEL_RESOURCE_ATTRIBUTES: keyValues('deployment.environment=prod,service.namespace=ops'),
  OTEL_RECORD_PROMPTS: choice(['true', 'false'], 'false'),
  OTEL_SDK_DISABLED: choice(['true', 'false'], 'false'),
  OIDC_ISSUER: url(['http:', 'https:'], 'https://accounts.example.com'),
  OIDC_CLIENT_ID: optionalText,
  OIDC_CLIENT_SECRET: optionalText,
  PUBLIC_URL: url(['http:', 'https:'], 'https://hermesx.example.com').transform((text) =>
    text?.replace(/\/+$/, ''),
  ),
  SESSION_IDLE_TIMEOUT: duration('2h', 60_000),
  SESSION_ABSOLUTE_TIMEOUT: duration('12h', 60_000),
  SESSION_MAX_PER_USER: integer(20, 1, 1000),
  INVITATION_TTL: duration('168h', 60_000),
  TENANT_MAX_MEMBERS: integer(1000, 1, 1_000_000),
});

/** The environment variables the configuration reads (for `hermesx help settings`). */
export const SETTING_NAMES: readonly string[] = Object.keys(envSchema.shape);

export interface Config extends Readonly<RedisSettings> {
  readonly databaseUrl: string | undefined;
  readonly port: number;
  readonly host: string;
  /** Whether SAAS_API_HOST was set (`dev` listens on loopback unless it was). */
  readonly hostExplicit: boolean;
  readonly pollIntervalMs: number;
  readonly execTimeoutMs: number;
  readonly lockTtlMs: number;
  readonly maxConcurrentRuns: number;
  readonly claimAheadRuns: number;
  readonly catchupWindowMs: number;
  readonly shutdownGraceMs: number;
  readonly adminToken: string | undefined;
  readonly defaultTenantApiKey: string | undefined;
  readonly allowedOrigins: readonly string[] | '*';
  readonly llm: { readonly url: string; readonly apiKey: string; readonly model: string };
  /** Models a job may choose (LLM_MODELS); empty: the model server's /models list. */
  readonly llmModels: readonly string[];
  /** LLM_MODEL_URLS: models served by another server than LLM_API_URL (model → base URL). */
  readonly llmModelUrls: ReadonlyMap<string, string>;
  /** LLM_JSON_SCHEMA: whether structured answers send response_format json_schema. */
  readonly llmJsonSchema: 'auto' | 'on' | 'off';
  /** LLM_FALLBACK_TIMEOUT: a call with a fallback model left goes to it after this long. */
  readonly llmFallbackTimeoutMs: number;
  /** The shared pool to the model server, and each tenant's share of it and queue in front of it. */
  readonly modelConnections: {
    readonly maxConnections: number;
    readonly maxConnectionsPerTenant: number;
    readonly maxQueuedPerTenant: number;
  };
  readonly logFormat: 'text' | 'json';
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error';
  readonly podId: string;
  /** A dedicated login role for the app's pool (not the schema owner); DATABASE_URL migrates. */
  readonly appDatabaseUrl: string | undefined;
  /** Proxies whose X-Forwarded-For is believed (undefined: none). */
  readonly trustedProxies: string | undefined;
  readonly httpRequestTimeoutMs: number;
  readonly httpKeepAliveTimeoutMs: number;
  readonly httpIdleTimeoutMs: number;
  readonly authFailuresPerMinute: number;
  readonly chatMaxTokens: number;
  readonly chatHeartbeatMs: number;
  /** Encrypts tenant secrets (AES-256-GCM); undefined: the secrets feature is refused. */
  readonly secretsKey: Buffer | undefined;
  /** The http_request tool may reach private addresses; undefined: false, true in `hermesx dev`. */
  readonly httpToolAllowPrivateNetworks: boolean | undefined;
  /** OTLP traces (OTEL_*); `endpoint` null: off. */
  readonly tracing: TraceSettings;
  /** Chat turns one tenant may have in flight, across replicas (CHAT_MAX_TURNS_PER_TENANT). */
  readonly chatMaxTurnsPerTenant: number;
  /** A chat turn's deadline, all its model and tool calls included (CHAT_TURN_TIMEOUT). */
  readonly chatTurnTimeoutMs: number;
  /** Manual runs (trigger, run_now) per tenant per minute, across replicas. */
  readonly manualRunsPerMinute: number;
  /** Occurrences a tenant may backfill per UTC day, across replicas (BACKFILL_RUNS_PER_DAY). */
  readonly backfillRunsPerDay: number;
  /** The most audit entries one NDJSON export holds (AUDIT_EXPORT_MAX_ENTRIES). */
  readonly auditExportMaxEntries: number;
  /** Queued runs (backfills, retries by hand) a tenant may have at once (MAX_QUEUED_RUNS_PER_TENANT). */
  readonly maxQueuedRunsPerTenant: number;
  /** Pauses and resumes of one job per minute, across replicas (JOB_TOGGLES_PER_MINUTE). */
  readonly jobTogglesPerMinute: number;
  /** Webhook deliveries a tenant may redeliver per hour, across replicas (WEBHOOK_REDELIVERIES_PER_HOUR). */
  readonly webhookRedeliveriesPerHour: number;
  /** Channel and MCP server tests a tenant may run per hour, across replicas (OUTBOUND_TESTS_PER_HOUR). */
  readonly outboundTestsPerHour: number;
  /** Accept the guide's example secrets on a non-loopback address (HERMESX_INSECURE_EXAMPLE_SECRETS). */
  readonly insecureExampleSecrets: boolean;
  /** A run's answer is kept whole up to this many UTF-8 bytes, cut there beyond. */
  readonly runResultMaxBytes: number;
  /**
   * Bytes of run answers a tenant may keep in the object store unless the admin set its own
   * (tenants.result_bytes_quota); 0: unlimited (TENANT_RESULT_BYTES_QUOTA).
   */
  readonly tenantResultBytesQuota: number;
  /** A JSON file of model prices (docs/usage.md); the admin API's prices override it. */
  readonly modelPricesFile: string | undefined;
  /** max_tokens of a call under a budget that sets none: it bounds the call's reservation. */
  readonly budgetReserveMaxTokens: number;
  /** Where large objects (run results, skills) live: see objectStoreSettings(). */
  readonly objectStore: ObjectStoreSettings;
  readonly webhooks: WebhookSettings;
  /** The service's address as browsers reach it (PUBLIC_URL, no trailing slash). */
  readonly publicUrl: string | undefined;
  /** Single sign-on through an OpenID Connect provider; undefined: API keys only. */
  readonly oidc: OidcSettings | undefined;
  readonly sessions: SessionSettings;
  readonly channels: ChannelSettings;
  readonly mcp: McpSettings;
}

export interface OidcSettings {
  readonly issuer: string;
  readonly clientId: string;
  /** Undefined: a public client (PKCE only, no client authentication). */
  readonly clientSecret: string | undefined;
  /** `${PUBLIC_URL}/auth/callback`. */
  readonly redirectUri: string;
}

export interface SessionSettings {
  /** A session unused this long ends (SESSION_IDLE_TIMEOUT). */
  readonly idleTimeoutMs: number;
  /** A session ends this long after sign-in, used or not (SESSION_ABSOLUTE_TIMEOUT). */
  readonly absoluteTimeoutMs: number;
  /** Live sessions a user keeps; a sign-in beyond ends the oldest (SESSION_MAX_PER_USER). */
  readonly maxPerUser: number;
  /** An invitation by email is open this long (INVITATION_TTL). */
  readonly invitationTtlMs: number;
  /** Members plus open invitations a tenant may have (TENANT_MAX_MEMBERS). */
  readonly maxMembersPerTenant: number;
}

/** Notification channels (docs/channels.md); private networks follow the webhooks' setting. */
export interface ChannelSettings {
  /** The dashboard's public address: messages link to the run's page (unset: no link). */
  readonly publicUrl: string | undefined;
  /** The server's SMTP for email channels without their own (unset: those need their own). */
  readonly smtpUrl: string | undefined;
  readonly smtpFrom: string | undefined;
  readonly telegramApiUrl: string;
  readonly retryScheduleMs: readonly number[];
  readonly timeoutMs: number;
  readonly maxConcurrentDeliveries: number;
  readonly maxDeliveriesPerTenant: number;
  readonly maxChannels: number;
  readonly disableAfterMs: number;
  readonly deliveryRetentionMs: number;
}

export interface WebhookSettings {
  /** Unset: false for `saas-api`, true for `hermesx dev` (each command decides). */
  readonly allowPrivateNetworks: boolean | undefined;
  /** Delay before each retry; its length is the number of retries. */
  readonly retryScheduleMs: readonly number[];
  readonly timeoutMs: number;
  readonly maxConcurrentDeliveries: number;
  readonly maxDeliveriesPerTenant: number;
  readonly maxEndpoints: number;
  readonly disableAfterMs: number;
  /** Finished deliveries (and their attempts) older than this are removed. */
  readonly deliveryRetentionMs: number;
}

/** The embedded default of the object store, relative to the working directory. */
export const DEFAULT_OBJECT_STORE_DIR = '.hermesx/objects';

/** Reads the settings once; throws ConfigError naming the variable, its value and what is expected. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue?.path[0] ?? 'environment');
    throw new ConfigError(
      `invalid setting ${name}=${JSON.stringify(redactSetting(name, env[name] ?? ''))}: ${issue?.message ?? 'invalid'}`,
    );
  }
  const s = parsed.data;
  if (s.REDIS_CLUSTER_NODES && (s.REDIS_SENTINELS || (s.REDIS_URL && isSentinelUrl(s.REDIS_URL)))) {
    throw new ConfigError(
      `invalid setting REDIS_CLUSTER_NODES=${JSON.stringify(env.REDIS_CLUSTER_NODES)}: ` +
        `expected either a Redis Cluster or Sentinel (${s.REDIS_SENTINELS ? 'REDIS_SENTINELS' : 'REDIS_URL'} is set too), not both`,
    );
  }
  if (s.SCHEDULER_LOCK_TTL <= s.SCHEDULER_EXEC_TIMEOUT) {
    throw new ConfigError(
      `invalid setting SCHEDULER_LOCK_TTL=${JSON.stringify(env.SCHEDULER_LOCK_TTL ?? formatDurationMs(s.SCHEDULER_LOCK_TTL))}: ` +
        `expected a duration greater than SCHEDULER_EXEC_TIMEOUT (${formatDurationMs(s.SCHEDULER_EXEC_TIMEOUT)}), ` +
        'or a run could outlive its lock and run twice',
    );
  }
  return Object.freeze({
    databaseUrl: s.DATABASE_URL,
    redisUrl: s.REDIS_URL,
    redisSentinels: s.REDIS_SENTINELS as readonly HostPort[] | undefined,
    redisSentinelName: s.REDIS_SENTINEL_NAME,
    redisSentinelPassword: s.REDIS_SENTINEL_PASSWORD,
    redisPassword: s.REDIS_PASSWORD,
    redisClusterNodes: s.REDIS_CLUSTER_NODES as readonly HostPort[] | undefined,
    port: s.SAAS_API_PORT,
    host: s.SAAS_API_HOST ?? '0.0.0.0',
    hostExplicit: s.SAAS_API_HOST !== undefined,
    pollIntervalMs: s.SCHEDULER_POLL_INTERVAL,
    execTimeoutMs: s.SCHEDULER_EXEC_TIMEOUT,
    lockTtlMs: s.SCHEDULER_LOCK_TTL,
    maxConcurrentRuns: s.SCHEDULER_MAX_CONCURRENT_RUNS,
    claimAheadRuns: s.SCHEDULER_CLAIM_AHEAD,
    catchupWindowMs: s.SCHEDULER_CATCHUP_WINDOW,
    shutdownGraceMs: s.SCHEDULER_SHUTDOWN_GRACE,
    adminToken: s.HERMES_ACP_TOKEN,
    defaultTenantApiKey: s.HERMES_API_KEY,
    allowedOrigins: parseOrigins(s.SAAS_ALLOWED_ORIGINS),
    llm: Object.freeze({
      url: s.LLM_API_URL,
      apiKey: s.LLM_API_KEY ?? '',
      // LLM_MODELS names the default first.
      model: s.LLM_MODELS?.[0] ?? s.LLM_MODEL,
    }),
    llmModels: Object.freeze([...new Set(s.LLM_MODELS ?? [])]),
    llmModelUrls: s.LLM_MODEL_URLS ?? new Map(),
    llmJsonSchema: s.LLM_JSON_SCHEMA,
    llmFallbackTimeoutMs: s.LLM_FALLBACK_TIMEOUT,
    modelConnections: Object.freeze({
      maxConnections: s.LLM_MAX_CONNECTIONS,
      maxConnectionsPerTenant: Math.min(
        s.LLM_MAX_CONNECTIONS,
        s.LLM_MAX_CONNECTIONS_PER_TENANT || defaultPerTenantConnections(s.LLM_MAX_CONNECTIONS),
      ),
      maxQueuedPerTenant: s.LLM_QUEUE_PER_TENANT,
    }),
    logFormat: s.LOG_FORMAT,
    logLevel: s.LOG_LEVEL,
    podId: s.HERMES_POD_ID ?? `${os.hostname()}-${process.pid}`,
    appDatabaseUrl: s.APP_DATABASE_URL,
    trustedProxies: s.SAAS_TRUSTED_PROXIES,
    httpRequestTimeoutMs: s.SAAS_HTTP_REQUEST_TIMEOUT,
    httpKeepAliveTimeoutMs: s.SAAS_HTTP_KEEPALIVE_TIMEOUT,
    httpIdleTimeoutMs: s.SAAS_HTTP_IDLE_TIMEOUT,
    authFailuresPerMinute: s.SAAS_AUTH_FAILURES_PER_MINUTE,
    chatMaxTokens: s.CHAT_MAX_TOKENS,
    chatHeartbeatMs: s.CHAT_STREAM_HEARTBEAT,
    chatMaxTurnsPerTenant: s.CHAT_MAX_TURNS_PER_TENANT,
    chatTurnTimeoutMs: s.CHAT_TURN_TIMEOUT,
    manualRunsPerMinute: s.MANUAL_RUNS_PER_MINUTE,
    backfillRunsPerDay: s.BACKFILL_RUNS_PER_DAY,
    auditExportMaxEntries: s.AUDIT_EXPORT_MAX_ENTRIES,
    maxQueuedRunsPerTenant: s.MAX_QUEUED_RUNS_PER_TENANT,
    jobTogglesPerMinute: s.JOB_TOGGLES_PER_MINUTE,
    webhookRedeliveriesPerHour: s.WEBHOOK_REDELIVERIES_PER_HOUR,
    outboundTestsPerHour: s.OUTBOUND_TESTS_PER_HOUR,
    insecureExampleSecrets: s.HERMESX_INSECURE_EXAMPLE_SECRETS === 'true',
    webhooks: Object.freeze({
      allowPrivateNetworks:
        s.WEBHOOK_ALLOW_PRIVATE_NETWORKS === undefined
          ? undefined
          : s.WEBHOOK_ALLOW_PRIVATE_NETWORKS === 'true',
      retryScheduleMs: Object.freeze(s.WEBHOOK_RETRY_SCHEDULE),
      timeoutMs: s.WEBHOOK_TIMEOUT,
      maxConcurrentDeliveries: s.WEBHOOK_MAX_CONCURRENT_DELIVERIES,
      maxDeliveriesPerTenant: s.WEBHOOK_MAX_DELIVERIES_PER_TENANT,
      maxEndpoints: s.WEBHOOK_MAX_ENDPOINTS,
      disableAfterMs: s.WEBHOOK_DISABLE_AFTER,
      deliveryRetentionMs: s.WEBHOOK_DELIVERY_RETENTION,
    }),
    channels: Object.freeze({
      publicUrl: s.PUBLIC_URL?.replace(/\/+$/, ''),
      smtpUrl: s.SMTP_URL,
      smtpFrom: s.SMTP_FROM,
      telegramApiUrl: (s.TELEGRAM_API_URL ?? 'https://api.telegram.org').replace(/\/+$/, ''),
      retryScheduleMs: Object.freeze(s.CHANNEL_RETRY_SCHEDULE),
      timeoutMs: s.CHANNEL_TIMEOUT,
      maxConcurrentDeliveries: s.CHANNEL_MAX_CONCURRENT_DELIVERIES,
      maxDeliveriesPerTenant: s.CHANNEL_MAX_DELIVERIES_PER_TENANT,
      maxChannels: s.CHANNEL_MAX_CHANNELS,
      disableAfterMs: s.CHANNEL_DISABLE_AFTER,
      deliveryRetentionMs: s.CHANNEL_DELIVERY_RETENTION,
    }),
    secretsKey: s.HERMES_SECRETS_KEY,
    httpToolAllowPrivateNetworks: s.HTTP_TOOL_ALLOW_PRIVATE_NETWORKS,
    tracing: readTraceSettings(s),
    mcp: Object.freeze({
      maxServersPerTenant: s.MCP_MAX_SERVERS_PER_TENANT,
      maxToolsPerServer: s.MCP_MAX_TOOLS_PER_SERVER,
      responseMaxBytes: s.MCP_RESPONSE_MAX_BYTES,
      callTimeoutMs: s.MCP_CALL_TIMEOUT,
      maxSessions: s.MCP_MAX_SESSIONS,
      maxSessionsPerTenant: s.MCP_MAX_SESSIONS_PER_TENANT,
    }),
    runResultMaxBytes: s.RUN_RESULT_MAX_BYTES,
    tenantResultBytesQuota: s.TENANT_RESULT_BYTES_QUOTA,
    modelPricesFile: s.MODEL_PRICES_FILE,
    budgetReserveMaxTokens: s.BUDGET_RESERVE_MAX_TOKENS,
    objectStore: Object.freeze(objectStoreSettings(s)),
    publicUrl: s.PUBLIC_URL,
    oidc: oidcSettings(s),
    sessions: Object.freeze({
      idleTimeoutMs: Math.min(s.SESSION_IDLE_TIMEOUT, s.SESSION_ABSOLUTE_TIMEOUT),
      absoluteTimeoutMs: s.SESSION_ABSOLUTE_TIMEOUT,
      maxPerUser: s.SESSION_MAX_PER_USER,
      invitationTtlMs: s.INVITATION_TTL,
      maxMembersPerTenant: s.TENANT_MAX_MEMBERS,
    }),
  });
}

type OidcEnv = Pick<
  z.infer<typeof envSchema>,
  'OIDC_ISSUER' | 'OIDC_CLIENT_ID' | 'OIDC_CLIENT_SECRET' | 'PUBLIC_URL'
>;

/** OIDC_ISSUER turns single sign-on on; it then needs OIDC_CLIENT_ID and PUBLIC_URL. */
function oidcSettings(s: OidcEnv): OidcSettings | undefined {
  if (s.OIDC_ISSUER === undefined) return undefined;
  for (const [name, value] of [
    ['OIDC_CLIENT_ID', s.OIDC_CLIENT_ID],
    ['PUBLIC_URL', s.PUBLIC_URL],
  ] as const) {
    if (value === undefined) {
      throw new ConfigError(
        `missing setting ${name}: OIDC_ISSUER=${JSON.stringify(s.OIDC_ISSUER)} is set, expected ${name} too`,
      );
    }
  }
  return Object.freeze({
    issuer: s.OIDC_ISSUER,
    clientId: s.OIDC_CLIENT_ID as string,
    clientSecret: s.OIDC_CLIENT_SECRET,
    redirectUri: `${s.PUBLIC_URL as string}/auth/callback`,
  });
}

type ObjectStoreEnv = Pick<
  z.infer<typeof envSchema>,
  | 'OBJECT_STORE_DIR'
  | 'S3_ENDPOINT'
  | 'S3_BUCKET'
  | 'S3_REGION'
  | 'S3_ACCESS_KEY_ID'
  | 'S3_SECRET_ACCESS_KEY'
  | 'MINIO_ENDPOINT'
  | 'MINIO_ACCESS_KEY'
  | 'MINIO_SECRET_KEY'
  | 'MINIO_BUCKET'
>;

/**
 * S3_BUCKET set: S3 with the S3_* settings (MINIO_* ignored). Otherwise MINIO_ENDPOINT set:
 * S3 at that MinIO with MINIO_ACCESS_KEY/MINIO_SECRET_KEY/MINIO_BUCKET (the guide's names).
 * Otherwise a directory on disk (OBJECT_STORE_DIR, default .hermesx/objects).
 */
function objectStoreSettings(s: ObjectStoreEnv): ObjectStoreSettings {
  const region = s.S3_REGION ?? 'us-east-1';
  if (s.S3_BUCKET !== undefined) {
    if ((s.S3_ACCESS_KEY_ID === undefined) !== (s.S3_SECRET_ACCESS_KEY === undefined)) {
      throw new ConfigError(
        'invalid setting S3_ACCESS_KEY_ID/S3_SECRET_ACCESS_KEY: expected both or neither (neither: the default AWS credential chain)',
      );
    }
    return {
      kind: 's3',
      source: 'S3_*',
      endpoint: s.S3_ENDPOINT,
      bucket: s.S3_BUCKET,
      region,
      accessKeyId: s.S3_ACCESS_KEY_ID,
      secretAccessKey: s.S3_SECRET_ACCESS_KEY,
    };
  }
  if (s.S3_ENDPOINT !== undefined) {
    throw new ConfigError(
      `missing setting S3_BUCKET: S3_ENDPOINT=${JSON.stringify(s.S3_ENDPOINT)} is set, expected the bucket name too`,
    );
  }
  if (s.MINIO_ENDPOINT !== undefined) {
    if (s.MINIO_ACCESS_KEY === undefined || s.MINIO_SECRET_KEY === undefined) {
      throw new ConfigError(
        `missing setting MINIO_ACCESS_KEY/MINIO_SECRET_KEY: MINIO_ENDPOINT=${JSON.stringify(s.MINIO_ENDPOINT)} is set, expected its access and secret keys too`,
      );
    }
    return {
      kind: 's3',
      source: 'MINIO_*',
      endpoint: s.MINIO_ENDPOINT,
      bucket: s.MINIO_BUCKET ?? 'hermes-skills',
      region,
      accessKeyId: s.MINIO_ACCESS_KEY,
      secretAccessKey: s.MINIO_SECRET_KEY,
    };
  }
  return { kind: 'disk', dir: s.OBJECT_STORE_DIR ?? DEFAULT_OBJECT_STORE_DIR };
}

/** Requires DATABASE_URL (every command but `dev` needs it). */
export function requireDatabaseUrl(config: Config): string {
  if (config.databaseUrl === undefined) {
    throw new ConfigError(
      'missing setting DATABASE_URL: expected a PostgreSQL 16+ URL such as postgres://user:pass@host:5432/db',
    );
  }
  return config.databaseUrl;
}

// The user guide's example values (and the test compose's): anyone who read the guide knows them.
const GUIDE_SECRETS = new Set([
  'my-admin-token',
  'my-api-key',
  'test-secret-key',
  'test-admin-token',
]);
const MIN_SECRET_CHARS = 32;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * For `saas-api` (not `dev`): refuses an admin token or default-tenant key shorter than 32
 * characters, which could be guessed. The guide's example values are refused too unless the
 * service listens on loopback only or HERMESX_INSECURE_EXAMPLE_SECRETS=true (its walkthroughs
 * must keep working on a laptop); then they only warn.
 */
export function checkSecretStrength(config: Config): string[] {
  const warnings: string[] = [];
  const secrets: [string, string | undefined][] = [
    ['HERMES_ACP_TOKEN', config.adminToken],
    ['HERMES_API_KEY', config.defaultTenantApiKey],
  ];
  const loopbackOnly = LOOPBACK_HOSTS.has(config.host);
  if (config.secretsKey?.equals(parseSecretsKey(EXAMPLE_SECRETS_KEY) as Buffer)) {
    if (!loopbackOnly && !config.insecureExampleSecrets) {
      throw new ConfigError(
        `invalid setting HERMES_SECRETS_KEY="***": the compose files' example key, refused while listening on ${config.host}; ` +
          'set a random one (openssl rand -hex 32), listen on loopback only (SAAS_API_HOST=127.0.0.1) ' +
          'or, for a private test, set HERMESX_INSECURE_EXAMPLE_SECRETS=true',
      );
    }
    warnings.push(
      "HERMES_SECRETS_KEY is the compose files' example key: set a random one (openssl rand -hex 32) before storing real secrets",
    );
  }
  for (const [name, value] of secrets) {
    if (value === undefined || value.length >= MIN_SECRET_CHARS) continue;
    if (GUIDE_SECRETS.has(value) && (loopbackOnly || config.insecureExampleSecrets)) {
      warnings.push(
        `${name} is the user guide's example value: set a random value of at least ${MIN_SECRET_CHARS} characters before this service is reachable by others`,
      );
      continue;
    }
    if (GUIDE_SECRETS.has(value)) {
      throw new ConfigError(
        `invalid setting ${name}="***": the user guide's example value, refused while listening on ${config.host}; ` +
          `set a random value (openssl rand -hex 32), listen on loopback only (SAAS_API_HOST=127.0.0.1) ` +
          'or, for a private test, set HERMESX_INSECURE_EXAMPLE_SECRETS=true',
      );
    }
    throw new ConfigError(
      `invalid setting ${name}="***": expected at least ${MIN_SECRET_CHARS} characters (e.g. openssl rand -hex 32), got ${value.length}`,
    );
  }
  return warnings;
}

function isProxyAddress(text: string): boolean {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(text)) return true;
  const [address = '', prefix, ...rest] = text.split('/');
  if (rest.length > 0 || (prefix !== undefined && !/^\d{1,3}$/.test(prefix))) return false;
  const ipv4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(address);
  if (ipv4)
    return ipv4.slice(1).every((octet) => Number(octet) <= 255) && Number(prefix ?? 0) <= 32;
  return /^[0-9a-f:.]+$/i.test(address) && address.includes(':') && Number(prefix ?? 0) <= 128;
}

function parseOrigins(text: string | undefined): readonly string[] | '*' {
  if (text === undefined) return [];
  if (text === '*') return '*';
  return Object.freeze(
    text
      .split(',')
      .map((origin) => origin.trim())
      .filter((origin) => origin !== ''),
  );
}

function isUrlWith(text: string, protocols: string[]): boolean {
  try {
    return protocols.includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

const SECRET_SETTING = /TOKEN|KEY|PASSWORD|SECRET|HEADERS/;

function redactSetting(name: string, value: string): string {
  if (SECRET_SETTING.test(name)) return '***';
  // A URL that does not parse may hide its password where the pattern cannot find it
  // (postgres://u:p@ss@host, a pasted secret): shown whole, it could leak; so it is masked whole.
  if (name.endsWith('_URL') && !URL.canParse(value.trim())) return '***';
  return redactUrl(value);
}

/**
 * LLM_MODEL_URLS: `model=url` pairs separated by commas (a model name may hold ':' and '/',
 * never '=' or ','); the error text when one does not read.
 */
function parseModelUrls(text: string | undefined): Map<string, string> | string {
  const routes = new Map<string, string>();
  if (text === undefined) return routes;
  const expected =
    'expected model=url pairs separated by commas, such as gpt-4o=https://api.openai.com/v1';
  for (const part of text.split(',')) {
    const at = part.indexOf('=');
    const model = part.slice(0, at).trim();
    const address = part.slice(at + 1).trim();
    if (at <= 0 || model.length > 200 || !URL.canParse(address)) return expected;
    if (!['http:', 'https:'].includes(new URL(address).protocol)) return expected;
    routes.set(model, address);
  }
  return routes;
}
