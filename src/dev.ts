import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { waitForSignal } from './cli-signals.js';
import type { Config } from './config.js';
import { redactUrl } from './log.js';
import { findApiKey, insertApiKey } from './db/api-keys.js';
import { SCOPES } from './domain/scopes.js';
import { createPool, withAdmin } from './db/pool.js';
import { DEFAULT_TENANT_ID } from './db/tenants.js';
import { withDevEnvFile } from './dev/env-file.js';
import { DEMO_MODEL, startDemoModel } from './dev/demo-model.js';
import { startPostgres, startRedis, type LocalServer } from './dev/processes.js';
import type { Logger } from './log.js';
import { startService, type RunningService } from './main.js';
import { describeTarget, redisTargetOf } from './redis/target.js';
import { generateSecretsKey, parseSecretsKey } from './secrets/key.js';

const STATE_DIR = '.hermesx';

interface DevState {
  adminToken: string;
  tenantApiKey?: string;
  /** HERMES_SECRETS_KEY when the environment sets none, so stored secrets open after a restart. */
  secretsKey?: string;
}

/**
 * `hermesx dev`: embedded PostgreSQL (data kept in .hermesx/ across restarts), a local Redis when
 * redis-server is on PATH, migrations, the service, and credentials ready to use.
 */
export async function runDev(
  environmentConfig: Config,
  log: Logger,
  options: { demoModel?: boolean } = {},
): Promise<number> {
  const config = withDevEnvFile(environmentConfig, log);
  const stateDir = path.resolve(STATE_DIR);
  mkdirSync(stateDir, { recursive: true });
  // Stopped in reverse order at the end: what dev started besides the service.
  const started: { stop(): Promise<void> }[] = [];
  try {
    log.info({ dir: path.join(stateDir, 'pg') }, 'dev: starting embedded PostgreSQL');
    // Both out of reach of Ctrl-C: the service stops first and drains its runs, they stop last.
    const postgres = await startPostgres({ dataDir: path.join(stateDir, 'pg'), detached: true });
    started.push(postgres);
    const databaseUrl = await ensureDatabase(postgres.url, 'hermesx');
    const redis = redisTargetOf(config) ? undefined : await startLocalRedis(log);
    if (redis) started.push(redis);

    const demo = options.demoModel ? await startDemoModel() : undefined;
    if (demo) started.push(demo);
    const state = readState(stateDir);
    const devConfig: Config = Object.freeze({
      ...config,
      // A development system with a printed admin token: local unless SAAS_API_HOST says otherwise.
      host: config.hostExplicit ? config.host : '127.0.0.1',
      databaseUrl,
      redisUrl: config.redisUrl ?? redis?.url,
      adminToken: config.adminToken ?? state.adminToken,
      // A laptop's receivers are local: dev lets webhooks reach them unless told otherwise.
      webhooks: Object.freeze({
        ...config.webhooks,
        allowPrivateNetworks: config.webhooks.allowPrivateNetworks ?? true,
      }),
      secretsKey: config.secretsKey ?? parseSecretsKey(state.secretsKey ?? '') ?? undefined,
      // dev reaches test servers on this machine; saas-api does not unless told to.
      httpToolAllowPrivateNetworks: config.httpToolAllowPrivateNetworks ?? true,
      ...(demo
        ? { llm: Object.freeze({ url: demo.url, apiKey: '', model: DEMO_MODEL }), llmModels: [] }
        : {}),
    });
    const service = await startService(devConfig, log);
    state.tenantApiKey = await ensureTenantKey(databaseUrl, log, state.tenantApiKey);
    writeFileSync(path.join(stateDir, 'dev.json'), JSON.stringify(state, null, 2) + '\n', {
      mode: 0o600,
    });
    printBanner(service.url, devConfig, state, await describeModel(service, demo !== undefined));
    await waitForSignal();
    await service.stop();
    return 0;
  } finally {
    for (const server of started.reverse()) await server.stop();
  }
}

async function ensureDatabase(adminUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function startLocalRedis(log: Logger): Promise<LocalServer | undefined> {
  try {
    return await startRedis({ detached: true });
  } catch (err) {
    log.warn(
      { error: err instanceof Error ? err.message : String(err) },
      'dev: no local Redis (install redis-server); the API serves, the scheduler waits',
    );
    return undefined;
  }
}

function readState(stateDir: string): DevState {
  const file = path.join(stateDir, 'dev.json');
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as Partial<DevState>;
    if (saved.adminToken) {
      return {
        adminToken: saved.adminToken,
        tenantApiKey: saved.tenantApiKey,
        secretsKey: saved.secretsKey ?? generateSecretsKey(),
      };
    }
  }
  return {
    adminToken: `dev-admin-${randomBytes(16).toString('hex')}`,
    secretsKey: generateSecretsKey(),
  };
}

async function ensureTenantKey(
  databaseUrl: string,
  log: Logger,
  existing: string | undefined,
): Promise<string> {
  const pool = createPool(databaseUrl, log, { max: 1 });
  try {
    if (existing && (await findApiKey(pool, existing))) return existing;
    const created = await withAdmin(pool, (client) =>
      insertApiKey(client, { tenantId: DEFAULT_TENANT_ID, name: 'dev', scopes: SCOPES }),
    );
    return created.rawKey;
  } finally {
    await pool.end();
  }
}

/**
 * The banner's model lines: which server, and whether it answered GET /models just now; when none
 * answers, how to get one running.
 */
async function describeModel(service: RunningService, demo: boolean): Promise<string[]> {
  if (demo) {
    return [
      `the built-in demo model (${DEMO_MODEL}): canned answers that say so; restart without --demo-model for a real one`,
    ];
  }
  const status = await service.model.check();
  const where = `${redactUrl(service.model.url)} (${service.model.model})`;
  if (!status.reachable) {
    return [
      `${where}: not answering GET /models (${status.error ?? 'no answer'}); runs fail with model_unreachable`,
      `                  Start one: \`ollama serve\` and \`ollama pull ${service.model.model}\` (https://ollama.com),`,
      '                  or point LLM_API_URL/LLM_MODEL at another; or try: hermesx dev --demo-model',
    ];
  }
  const listed = status.modelListed === false ? ', but it does not list that model' : '';
  return [`${where}: answered GET /models${listed}`];
}

function printBanner(url: string, config: Config, state: DevState, model: string[]): void {
  const port = new URL(url).port;
  const lines = [
    '',
    'HermesX dev is running.',
    `  Listening on:   ${listening(config.host, port)}`,
    `  URL:            http://localhost:${port}`,
    `  Admin token:    ${config.adminToken ?? ''}`,
    `  Tenant API key: ${state.tenantApiKey ?? ''}   (default tenant ${DEFAULT_TENANT_ID})`,
    ...(config.defaultTenantApiKey
      ? [`  API key:        ${config.defaultTenantApiKey}   (HERMES_API_KEY)`]
      : []),
    `  Redis:          ${redisOf(config)}`,
    `  Model server:   ${model[0] ?? ''}`,
    ...model.slice(1),
    `  Try: curl -s localhost:${port}/health/ready`,
    '  Ctrl-C stops everything.',
    '',
    // Ready to paste: the README's curl examples read these.
    '  In another shell:',
    `    export HERMESX_URL=http://localhost:${port}`,
    `    export HERMESX_API_KEY=${shellWord(state.tenantApiKey ?? '')}`,
    `    export HERMESX_ADMIN_TOKEN=${shellWord(config.adminToken ?? '')}`,
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

/** The value as one shell word: bare when it is plain, else single-quoted. */
function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}

/** Where the server accepts connections, said plainly (0.0.0.0 is every interface, not localhost). */
function listening(host: string, port: string): string {
  if (host === '0.0.0.0' || host === '::') {
    return `${host}:${port} (every network interface; SAAS_API_HOST=127.0.0.1 keeps it local)`;
  }
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

function redisOf(config: Config): string {
  const target = redisTargetOf(config);
  return target ? describeTarget(target) : 'none (install redis-server to enable the scheduler)';
}
