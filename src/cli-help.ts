import { SETTING_NAMES } from './config.js';

// The CLI's help texts. Settings are environment variables; `hermesx help settings` lists each
// one the configuration reads (src/config.ts), with its default and meaning when known here.

export interface CommandHelp {
  summary: string;
  usage: string;
  details: string;
  settings: readonly string[];
}

const SCHEDULER = [
  'SCHEDULER_POLL_INTERVAL',
  'SCHEDULER_EXEC_TIMEOUT',
  'SCHEDULER_LOCK_TTL',
  'SCHEDULER_MAX_CONCURRENT_RUNS',
  'SCHEDULER_CLAIM_AHEAD',
  'SCHEDULER_CATCHUP_WINDOW',
  'SCHEDULER_SHUTDOWN_GRACE',
];
const REDIS = [
  'REDIS_URL',
  'REDIS_SENTINELS',
  'REDIS_SENTINEL_NAME',
  'REDIS_SENTINEL_PASSWORD',
  'REDIS_CLUSTER_NODES',
  'REDIS_PASSWORD',
];
const SERVICE = [
  'SAAS_API_PORT',
  'SAAS_API_HOST',
  ...SCHEDULER,
  'HERMES_ACP_TOKEN',
  'HERMES_API_KEY',
  'SAAS_ALLOWED_ORIGINS',
  'LLM_API_URL',
  'LLM_API_KEY',
  'LLM_MODEL',
  'LLM_MODELS',
  'LLM_MODEL_URLS',
  'LLM_JSON_SCHEMA',
  'LLM_FALLBACK_TIMEOUT',
  'LLM_MAX_CONNECTIONS',
  'LLM_MAX_CONNECTIONS_PER_TENANT',
  'LLM_QUEUE_PER_TENANT',
  'LOG_FORMAT',
  'LOG_LEVEL',
  'HERMES_POD_ID',
  'HERMES_SECRETS_KEY',
  'HTTP_TOOL_ALLOW_PRIVATE_NETWORKS',
  'MCP_MAX_SERVERS_PER_TENANT',
  'MCP_MAX_TOOLS_PER_SERVER',
  'MCP_RESPONSE_MAX_BYTES',
  'MCP_CALL_TIMEOUT',
  'MCP_MAX_SESSIONS',
  'MCP_MAX_SESSIONS_PER_TENANT',
  'RUN_RESULT_MAX_BYTES',
  'OBJECT_STORE_DIR',
  'S3_BUCKET',
  'S3_ENDPOINT',
  'MINIO_ENDPOINT',
  'APP_DATABASE_URL',
  'SAAS_TRUSTED_PROXIES',
  'SAAS_HTTP_REQUEST_TIMEOUT',
  'SAAS_HTTP_KEEPALIVE_TIMEOUT',
  'SAAS_HTTP_IDLE_TIMEOUT',
  'SAAS_AUTH_FAILURES_PER_MINUTE',
  'CHAT_MAX_TOKENS',
  'CHAT_STREAM_HEARTBEAT',
  'CHAT_MAX_TURNS_PER_TENANT',
  'CHAT_TURN_TIMEOUT',
  'MANUAL_RUNS_PER_MINUTE',
  'BACKFILL_RUNS_PER_DAY',
  'MAX_QUEUED_RUNS_PER_TENANT',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_HEADERS',
  'OTEL_SERVICE_NAME',
  'OTEL_RESOURCE_ATTRIBUTES',
  'OTEL_RECORD_PROMPTS',
  'OTEL_SDK_DISABLED',
  'OIDC_ISSUER',
  'OIDC_CLIENT_ID',
  'OIDC_CLIENT_SECRET',
  'PUBLIC_URL',
  'SESSION_IDLE_TIMEOUT',
  'SESSION_ABSOLUTE_TIMEOUT',
  'SESSION_MAX_PER_USER',
  'INVITATION_TTL',
  'TENANT_MAX_MEMBERS',
  'AUDIT_EXPORT_MAX_ENTRIES',
  'JOB_TOGGLES_PER_MINUTE',
  'WEBHOOK_REDELIVERIES_PER_HOUR',
  'OUTBOUND_TESTS_PER_HOUR',
];

export const COMMANDS: Record<string, CommandHelp> = {
  'saas-api': {
    summary: 'run the API and the scheduler (needs DATABASE_URL)',
    usage: 'hermesx saas-api',
    details:
      'Applies pending migrations, then serves the API and runs the scheduler until SIGTERM or\n' +
      'SIGINT; in-flight runs get SCHEDULER_SHUTDOWN_GRACE to finish. Without Redis the API serves\n' +
      'and the scheduler waits for it.',
    settings: ['DATABASE_URL', ...REDIS, ...SERVICE, 'HERMESX_INSECURE_EXAMPLE_SECRETS'],
  },
  migrate: {
    summary: 'apply database migrations and exit (needs DATABASE_URL)',
    usage: 'hermesx migrate',
    details: 'Applies the pending migrations in order, each in its own transaction, then exits 0.',
    settings: ['DATABASE_URL', 'LOG_FORMAT', 'LOG_LEVEL'],
  },
  dev: {
    summary: 'run a complete local system with zero setup (embedded PostgreSQL, local Redis)',
    usage: 'hermesx dev [--demo-model]',
    details:
      'Starts an embedded PostgreSQL (data in .hermesx/), a local redis-server when one is on\n' +
      'PATH, and the service; prints the URL, an admin token and a tenant API key. DATABASE_URL is\n' +
      'ignored; a Redis setting (REDIS_URL, REDIS_SENTINELS, REDIS_CLUSTER_NODES), when set, is used\n' +
      'instead of a local Redis. It listens on 127.0.0.1 unless SAAS_API_HOST says otherwise.\n' +
      'Ctrl-C stops the service first (runs in flight may finish), its databases last.\n' +
      'With --demo-model, runs and chat use a built-in stand-in model whose answers say they are\n' +
      "the demo model's (no model server needed; only dev has it).",
    settings: [...REDIS, ...SERVICE],
  },
};

const SETTINGS: Record<string, [fallback: string, meaning: string]> = {
  DATABASE_URL: ['required (except dev)', 'PostgreSQL 16+ connection string'],
  REDIS_URL: [
    'unset',
    'Redis 7+, or redis+sentinel://host:port,…/name; unset or unreachable: the scheduler waits',
  ],
  REDIS_SENTINELS: [
    'unset',
    'Sentinel host:port list (wins over REDIS_URL); the primary is asked of them',
  ],
  REDIS_SENTINEL_NAME: ['mymaster', 'the primary’s name in Sentinel (with REDIS_SENTINELS)'],
  REDIS_SENTINEL_PASSWORD: ['unset', 'password of the sentinels themselves'],
  REDIS_CLUSTER_NODES: [
    'unset',
    'Redis Cluster seed nodes host:port,… (wins over REDIS_URL; not with Sentinel)',
  ],
  REDIS_PASSWORD: [
    'unset',
    'password of the Redis servers (Sentinel primary/replicas, Cluster nodes; REDIS_URL’s own wins)',
  ],
  SAAS_API_PORT: ['18080', 'HTTP port'],
  SAAS_API_HOST: ['0.0.0.0', 'HTTP listen address (127.0.0.1: this machine only)'],
  SCHEDULER_POLL_INTERVAL: ['30s', 'full re-sync period (changes also arrive at once)'],
  SCHEDULER_EXEC_TIMEOUT: ['5m', 'hard limit of one run; the model call is cancelled'],
  SCHEDULER_LOCK_TTL: ['12m', 'Redis lock TTL; must be greater than SCHEDULER_EXEC_TIMEOUT'],
  SCHEDULER_MAX_CONCURRENT_RUNS: ['100', 'runs calling their agent at once, per replica'],
  SCHEDULER_CLAIM_AHEAD: ['0', 'occurrences locked and claimed while every model slot is busy'],
  SCHEDULER_CATCHUP_WINDOW: ['1h', 'a missed occurrence younger than this runs once (0: never)'],
  SCHEDULER_SHUTDOWN_GRACE: ['20s', 'on SIGTERM, how long in-flight runs may finish'],
  HERMES_ACP_TOKEN: ['unset', 'admin bearer token (tenants, API keys)'],
  HERMES_API_KEY: ['unset', 'bearer key acting as a user of the default tenant'],
  SAAS_ALLOWED_ORIGINS: ['unset', 'CORS allow-list, comma separated, or *'],
  LLM_API_URL: ['http://localhost:11434/v1', 'OpenAI-compatible endpoint (Ollama, vLLM, OpenAI)'],
  LLM_API_KEY: ['empty', 'its key'],
  LLM_MODEL: ['qwen3:30b', 'model name'],
  LLM_MODELS: [
    'unset',
    "models a job may choose, comma separated, the default first (unset: the server's /models)",
  ],
  LLM_MODEL_URLS: [
    'unset',
    'model=url pairs, comma separated: models served by another server than LLM_API_URL',
  ],
  LLM_JSON_SCHEMA: [
    'auto',
    'structured answers: on/auto send response_format json_schema (auto drops it on a 400), off: instructions only',
  ],
  LLM_FALLBACK_TIMEOUT: [
    '60s',
    'a model call with a fallback model left goes to it after this long',
  ],
  LLM_MAX_CONNECTIONS: [
    '256',
    'connections to the model server per replica, chat and runs together',
  ],
  LLM_MAX_CONNECTIONS_PER_TENANT: [
    '3/4 of LLM_MAX_CONNECTIONS',
    "of those, one tenant's at once; the rest waits in its queue, tenants in turn",
  ],
  LLM_QUEUE_PER_TENANT: ['1000', "a tenant's model requests waiting for a connection, per replica"],
  LOG_FORMAT: ['text', 'text (logfmt) or json'],
  LOG_LEVEL: ['info', 'debug, info, warn or error'],
  HERMES_POD_ID: ['<hostname>-<pid>', 'replica name, in cron_job_runs.pod_id and the logs'],
  RUN_RESULT_MAX_BYTES: ['1048576', 'a run keeps its whole answer up to this; longer is cut'],
  OBJECT_STORE_DIR: ['.hermesx/objects', 'object store on disk when no S3 is set (one machine)'],
  S3_BUCKET: ['unset', 'set: long results go to this S3 bucket (S3_* win over MINIO_*)'],
  S3_ENDPOINT: ['unset (AWS S3)', 'S3-compatible endpoint URL (MinIO, Ceph, R2)'],
  S3_REGION: ['us-east-1', 'bucket region'],
  S3_ACCESS_KEY_ID: ['unset', 'S3 access key (with S3_SECRET_ACCESS_KEY, or neither)'],
  S3_SECRET_ACCESS_KEY: ['unset', 'S3 secret key'],
  MINIO_ENDPOINT: ['unset', 'without S3_BUCKET: long results go to this MinIO'],
  MINIO_ACCESS_KEY: ['unset', 'MinIO access key (required with MINIO_ENDPOINT)'],
  MINIO_SECRET_KEY: ['unset', 'MinIO secret key (required with MINIO_ENDPOINT)'],
  MINIO_BUCKET: ['hermes-skills', 'MinIO bucket, created when missing'],
  APP_DATABASE_URL: [
    'unset',
    'login role for the app pool (not the schema owner); DATABASE_URL migrates',
  ],
  SAAS_TRUSTED_PROXIES: ['unset (none)', 'proxies whose X-Forwarded-For is believed: IPs or CIDRs'],
  SAAS_HTTP_REQUEST_TIMEOUT: ['10s', 'time a client has to send a whole request'],
  SAAS_HTTP_KEEPALIVE_TIMEOUT: ['72s', 'idle time of a kept-alive connection between requests'],
  SAAS_HTTP_IDLE_TIMEOUT: ['20m', 'a connection without any traffic for this long is closed'],
  SAAS_AUTH_FAILURES_PER_MINUTE: [
    '20',
    'wrong credentials per client address before 429 (per replica)',
  ],
  CHAT_MAX_TOKENS: ['16384', 'ceiling of max_tokens / max_completion_tokens in chat requests'],
  CHAT_STREAM_HEARTBEAT: ['15s', 'SSE keep-alive comment interval while a streamed turn is silent'],
  CHAT_MAX_TURNS_PER_TENANT: [
    '16',
    "a tenant's chat turns in flight at once, all replicas (then 429)",
  ],
  CHAT_TURN_TIMEOUT: ['10m', 'deadline of one chat turn, its model and tool calls included'],
  MANUAL_RUNS_PER_MINUTE: [
    '10',
    "a tenant's manual runs (trigger, run_now) per minute, all replicas",
  ],
  BACKFILL_RUNS_PER_DAY: ['1000', 'occurrences a tenant may backfill per UTC day, all replicas'],
  MAX_QUEUED_RUNS_PER_TENANT: ['10000', "a tenant's queued runs at once (backfills, retries)"],
  AUDIT_EXPORT_MAX_ENTRIES: ['100000', 'audit log entries in one NDJSON export (then cut)'],
  JOB_TOGGLES_PER_MINUTE: [
    '6',
    'pauses and resumes of one job per minute, all replicas (then 429)',
  ],
  WEBHOOK_REDELIVERIES_PER_HOUR: [
    '100',
    "a tenant's webhook redeliveries per hour, all replicas (then 429)",
  ],
  OUTBOUND_TESTS_PER_HOUR: [
    '60',
    "a tenant's channel and MCP server tests per hour, all replicas (then 429)",
  ],
  HERMESX_INSECURE_EXAMPLE_SECRETS: [
    'false',
    "true: saas-api accepts the guide's example secrets on a non-loopback address",
  ],
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: ['false (dev: true)', 'webhooks may reach private addresses'],
  WEBHOOK_RETRY_SCHEDULE: ['5s,5m,30m,2h,5h,10h,10h', 'delays between delivery attempts'],
  WEBHOOK_TIMEOUT: ['15s', 'one delivery attempt, connect to last byte'],
  WEBHOOK_MAX_CONCURRENT_DELIVERIES: ['100', 'deliveries in flight per replica'],
  WEBHOOK_MAX_DELIVERIES_PER_TENANT: ['10', "a tenant's deliveries in flight, all replicas"],
  WEBHOOK_MAX_ENDPOINTS: ['10', 'webhook endpoints per tenant'],
  WEBHOOK_DISABLE_AFTER: ['120h', 'an endpoint failing this long is disabled'],
  WEBHOOK_DELIVERY_RETENTION: ['720h', 'finished deliveries are kept this long'],
  PUBLIC_URL: [
    'unset',
    'address browsers use: messages link to runs; SSO redirects to <it>/auth/callback',
  ],
  SMTP_URL: ['unset', "the server's SMTP for email channels (smtp:// or smtps://)"],
  SMTP_FROM: ['unset', 'the From address of mail sent through SMTP_URL'],
  TELEGRAM_API_URL: ['https://api.telegram.org', 'the Telegram Bot API base URL'],
  CHANNEL_RETRY_SCHEDULE: ['5s,1m,5m,30m,2h,6h', 'delays between channel delivery attempts'],
  CHANNEL_TIMEOUT: ['15s', 'one channel delivery attempt'],
  CHANNEL_MAX_CONCURRENT_DELIVERIES: ['50', 'channel deliveries in flight per replica'],
  CHANNEL_MAX_DELIVERIES_PER_TENANT: ['5', "a tenant's channel deliveries in flight, all replicas"],
  CHANNEL_MAX_CHANNELS: ['10', 'notification channels per tenant'],
  CHANNEL_DISABLE_AFTER: ['72h', 'a channel failing this long is disabled'],
  CHANNEL_DELIVERY_RETENTION: ['720h', 'finished channel deliveries are kept this long'],
  TENANT_RESULT_BYTES_QUOTA: [
    '1073741824 (1 GiB)',
    "a tenant's stored run answers (object store), unless its own quota says; 0: unlimited",
  ],
  MODEL_PRICES_FILE: [
    'unset',
    'JSON prices per model (micro-dollars per 1M tokens); the admin API overrides',
  ],
  BUDGET_RESERVE_MAX_TOKENS: [
    '4096',
    'max_tokens given to a model call under a budget that sets none (its reservation)',
  ],
  HERMES_SECRETS_KEY: ['unset (dev: generated)', 'seals tenant and webhook secrets (32 bytes)'],
  OTEL_EXPORTER_OTLP_ENDPOINT: [
    'unset (no traces)',
    'OTLP/HTTP collector base URL; traces go to <it>/v1/traces',
  ],
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: ['unset', 'the full traces URL, instead of the one above'],
  OTEL_EXPORTER_OTLP_HEADERS: ['unset', 'headers sent with each export: key=value,key=value'],
  OTEL_SERVICE_NAME: ['hermesx', 'service.name of the spans'],
  OTEL_RESOURCE_ATTRIBUTES: ['unset', 'more resource attributes: key=value,key=value'],
  OTEL_RECORD_PROMPTS: [
    'false',
    'true: prompts, answers and tool arguments (redacted) in span attributes',
  ],
  OTEL_SDK_DISABLED: ['false', 'true: no traces, whatever the endpoint settings say'],
  OIDC_ISSUER: ['unset (no SSO)', 'OpenID Connect provider: the dashboard offers SSO sign-in'],
  OIDC_CLIENT_ID: ['unset', 'client id at the provider (required with OIDC_ISSUER)'],
  OIDC_CLIENT_SECRET: ['unset (public client)', 'client secret at the provider'],
  SESSION_IDLE_TIMEOUT: ['2h', 'a sign-in session unused this long ends'],
  SESSION_ABSOLUTE_TIMEOUT: ['12h', 'a sign-in session ends this long after sign-in'],
  SESSION_MAX_PER_USER: ['20', "a user's live sessions; a new sign-in ends the oldest beyond"],
  INVITATION_TTL: ['168h', 'an invitation by email stays open this long'],
  TENANT_MAX_MEMBERS: ['1000', "a tenant's members plus open invitations"],
  HTTP_TOOL_ALLOW_PRIVATE_NETWORKS: [
    'false (dev: true)',
    'http_request and MCP servers may reach private IPs',
  ],
  MCP_MAX_SERVERS_PER_TENANT: ['10', 'MCP servers a tenant may register'],
  MCP_MAX_TOOLS_PER_SERVER: ['64', "an MCP server's tools offered to a run or chat"],
  MCP_RESPONSE_MAX_BYTES: ['1048576 (1 MiB)', 'bytes of one response read from an MCP server'],
  MCP_CALL_TIMEOUT: ['30s', 'one MCP session: connect, then one tools/list or tools/call'],
  MCP_MAX_SESSIONS: ['32', 'MCP sessions open at once on a replica'],
  MCP_MAX_SESSIONS_PER_TENANT: ['4', "a tenant's MCP sessions open at once on a replica"],
};

export function rootHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const commands = Object.entries(COMMANDS).map(
    ([name, help]) => `  ${name.padEnd(width)}  ${help.summary}`,
  );
  return [
    'usage: hermesx <command> [--help]',
    '       hermesx --version',
    '',
    'commands:',
    ...commands,
    `  ${'help'.padEnd(width)}  this text; hermesx help <command>; hermesx help settings`,
    '',
    'options:',
    '  -h, --help     show help (hermesx <command> --help for one command; starts nothing)',
    '  -V, --version  print the version and exit',
    '',
    'Settings are environment variables: hermesx help settings lists them.',
    '',
  ].join('\n');
}

export function commandHelp(name: string, help: CommandHelp): string {
  return [
    `usage: ${help.usage} [--help]`,
    '',
    `${name}: ${help.summary}`,
    '',
    help.details,
    '',
    'options:',
    '  -h, --help  show this help and exit',
    '',
    ...wrap(`settings: ${help.settings.join(', ')}`, 92),
    '(hermesx help settings says what each one does)',
    '',
  ].join('\n');
}

export function settingsHelp(): string {
  const names = [...SETTING_NAMES];
  const width = Math.max(...names.map((name) => name.length));
  const fallbackWidth = Math.max(...Object.values(SETTINGS).map(([fallback]) => fallback.length));
  const rows = names.map((name) => {
    const [fallback, meaning] = SETTINGS[name] ?? ['', ''];
    return `  ${name.padEnd(width)}  ${fallback.padEnd(fallbackWidth)}  ${meaning}`;
  });
  return [
    'settings (environment variables; durations like 30s, 5m, 1h30m):',
    '',
    `  ${'name'.padEnd(width)}  ${'default'.padEnd(fallbackWidth)}  meaning`,
    ...rows,
    '',
  ].join('\n');
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = `  ${word}`;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return [...lines, line];
}
