import os from 'node:os';
import { z } from 'zod';
import { defaultPerTenantConnections } from './agent/model-gate.js';
import { formatDurationMs, parseDurationMs } from './duration.js';
import { redactUrl } from './log.js';
import { EXAMPLE_SECRETS_KEY, parseSecretsKey } from './secrets/key.js';
import type { ObjectStoreSettings } from './storage/open-store.js';
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
  readonly catchupWindowMs: number;
  readonly shutdownGraceMs: number;
  readonly adminToken: string | undefined;
  readonly defaultTenantApiKey: string | undefined;
  readonly allowedOrigins: readonly string[] | '*';
  readonly llm: { readonly url: string; readonly apiKey: string; readonly model: string };
  /** Models a job may choose (LLM_MODELS); empty: the model server's /models list. */
  readonly llmModels: readonly string[];
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
  /** Chat turns one tenant may have in flight, across replicas (CHAT_MAX_TURNS_PER_TENANT). */
  readonly chatMaxTurnsPerTenant: number;
  /** A chat turn's deadline, all its model and tool calls included (CHAT_TURN_TIMEOUT). */
  readonly chatTurnTimeoutMs: number;
  /** Manual runs (trigger, run_now) per tenant per minute, across replicas. */
  readonly manualRunsPerMinute: number;
  /** Occurrences a tenant may backfill per UTC day, across replicas (BACKFILL_RUNS_PER_DAY). */
  readonly backfillRunsPerDay: number;
  /** Queued runs (backfills, retries by hand) a tenant may have at once (MAX_QUEUED_RUNS_PER_TENANT). */
  readonly maxQueuedRunsPerTenant: number;
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
    maxQueuedRunsPerTenant: s.MAX_QUEUED_RUNS_PER_TENANT,
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
    secretsKey: s.HERMES_SECRETS_KEY,
    httpToolAllowPrivateNetworks: s.HTTP_TOOL_ALLOW_PRIVATE_NETWORKS,
    runResultMaxBytes: s.RUN_RESULT_MAX_BYTES,
    tenantResultBytesQuota: s.TENANT_RESULT_BYTES_QUOTA,
    modelPricesFile: s.MODEL_PRICES_FILE,
    budgetReserveMaxTokens: s.BUDGET_RESERVE_MAX_TOKENS,
    objectStore: Object.freeze(objectStoreSettings(s)),
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

const SECRET_SETTING = /TOKEN|KEY|PASSWORD|SECRET/;

function redactSetting(name: string, value: string): string {
  if (SECRET_SETTING.test(name)) return '***';
  // A URL that does not parse may hide its password where the pattern cannot find it
  // (postgres://u:p@ss@host, a pasted secret): shown whole, it could leak; so it is masked whole.
  if (name.endsWith('_URL') && !URL.canParse(value.trim())) return '***';
  return redactUrl(value);
}
