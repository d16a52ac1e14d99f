// The multi-replica setup of deploy/docker-compose.multi-replica.yml, without Docker: embedded
// PostgreSQL 16 (fresh temp dir), Redis as a primary and a replica watched by three sentinels
// (the replicas connect through REDIS_SENTINELS, so a killed primary is a failover), a fake
// OpenAI-compatible model server, three `saas-api` processes (hermesx-mr-1..3) and nginx
// round-robin, all on loopback. Everything started here is registered for cleanup and stopped by PID.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { startPostgres, type LocalServer } from '../../../src/dev/processes.js';
import { startPod, type Pod } from '../../../test/helpers/cluster.js';
import { startFakeLlm, type FakeLlm, type Handler } from '../../../test/helpers/fake-llm.js';
import { startSentinelSetup, type SentinelSetup } from '../../../test/helpers/redis-sentinel.js';
import { ensureNginx, startNginx } from './nginx.js';
import { onCleanup, type Say } from '../harness.js';

export const API_KEY = 'test-secret-key';
export const ADMIN_TOKEN = 'test-admin-token';
export const POD_IDS = ['hermesx-mr-1', 'hermesx-mr-2', 'hermesx-mr-3'];
export const POLL_INTERVAL = '5s';
export const POLL_MS = 5000;
/**
 * How long the sentinels wait before they call the primary down: long enough that the replicas'
 * degraded readiness can be seen meanwhile, short enough to keep the run short.
 */
export const SENTINEL_DOWN_AFTER_MS = 5000;

export { cleanupAll, onCleanup, until } from '../harness.js';
export { ensureNginx } from './nginx.js';
/** The PostgreSQL running now (restarted on its port, its data kept, by restartPostgres). */
let currentPostgres: LocalServer | undefined;
let currentDb: pg.Client | undefined;

export interface Cluster {
  tmpDir: string;
  databaseUrl: string;
  /** The process that runs embedded PostgreSQL (it stops the server when it goes). */
  postgresPid: number;
  db: pg.Client;
  /** Primary, replica and three sentinels; the primary is SIGKILLed by the Redis check. */
  sentinel: SentinelSetup;
  llm: FakeLlm;
  pods: Pod[];
  lbUrl: string;
  nginxPid: number;
  nginxVersion: string;
}

export interface LbResponse {
  status: number;
  json: unknown;
  text: string;
  /** The replica that answered (X-Upstream), as a pod id when known. */
  pod: string;
  /** Every replica nginx tried, in order (the last one answered). */
  tried: string[];
}

/** One request through nginx. */
export async function lbFetch(
  c: Cluster,
  pathName: string,
  options: { method?: string; token?: string; body?: unknown; timeoutMs?: number } = {},
): Promise<LbResponse> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${c.lbUrl}${pathName}`, {
    method: options.method ?? 'GET',
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  // "a, b" when nginx tried a replica that failed before the one that answered.
  const tried = (response.headers.get('x-upstream') ?? '')
    .split(/,\s*/)
    .filter(Boolean)
    .map((address) => c.pods.find((p) => p.url.endsWith(`//${address}`))?.podId ?? address);
  return { status: response.status, json, text, pod: tried.at(-1) ?? '?', tried };
}

/** Starts everything; on failure, what did start stays registered for cleanupAll. */
export async function startCluster(say: Say, handler: Handler): Promise<Cluster> {
  const nginxBin = ensureNginx(say);
  const tmpDir = mkdtempSync(path.join(os.tmpdir(), 'hermesx-verify-'));
  // Readable by the postgres user embedded PostgreSQL runs as under root, and by nginx workers.
  chmodSync(tmpDir, 0o755);
  onCleanup('temp dir', async () => rmSync(tmpDir, { recursive: true, force: true }));

  say(
    'starting PostgreSQL 16 (embedded), Redis (primary, replica, three sentinels) and the fake model server',
  );
  const [postgres, sentinel, llm] = await allStarted([
    // Persistent: its data outlives a restart (the temp dir goes at the end anyway).
    startPostgres({ dataDir: path.join(tmpDir, 'pg'), persistent: true }).then((server) => {
      currentPostgres = server;
      onCleanup('PostgreSQL', async () => currentPostgres?.stop());
      return server;
    }),
    startSentinelSetup({ downAfterMs: SENTINEL_DOWN_AFTER_MS, name: 'hermesx-verify' }).then(
      (setup) => {
        onCleanup('Redis primary, replica and sentinels', () => setup.cleanup());
        return setup;
      },
    ),
    startFakeLlm({ handler }).then((fake) => {
      onCleanup('fake model server', () => fake.close());
      return fake;
    }),
  ] as const);
  const db = await connectDb(postgres.url);
  onCleanup('database connection', async () => currentDb?.end());

  say(`starting ${POD_IDS.join(', ')} (saas-api, SCHEDULER_POLL_INTERVAL=${POLL_INTERVAL})`);
  const pods = await allStarted(
    POD_IDS.map((podId) =>
      startPod({
        databaseUrl: postgres.url,
        llmUrl: llm.url,
        podId,
        waitFor: 'scheduler',
        startTimeoutMs: 90_000,
        env: {
          REDIS_SENTINELS: sentinel.sentinelList,
          REDIS_SENTINEL_NAME: sentinel.name,
          REDIS_PASSWORD: sentinel.password,
          REDIS_SENTINEL_PASSWORD: sentinel.sentinelPassword,
          HERMES_API_KEY: API_KEY,
          HERMES_ACP_TOKEN: ADMIN_TOKEN,
          SCHEDULER_POLL_INTERVAL: POLL_INTERVAL,
          SCHEDULER_SHUTDOWN_GRACE: '2s',
          SAAS_ALLOWED_ORIGINS: '*',
          LLM_API_KEY: 'fake',
          LLM_MODEL: 'qwen3:30b',
          // The side effects' receivers listen on loopback (side-effects.ts).
          HTTP_TOOL_ALLOW_PRIVATE_NETWORKS: 'true',
          WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        },
      }).then((pod) => {
        onCleanup(`pod ${podId}`, () => pod.stop(8000));
        return pod;
      }),
    ),
  );
  say('starting nginx (round robin to the three replicas)');
  const nginx = await startNginx(
    nginxBin,
    tmpDir,
    pods.map((pod) => Number(new URL(pod.url).port)),
  );
  return {
    tmpDir,
    databaseUrl: postgres.url,
    postgresPid: postgres.pid,
    db,
    sentinel,
    llm,
    pods,
    lbUrl: nginx.url,
    nginxPid: nginx.pid,
    nginxVersion: nginx.version,
  };
}

/** A client of whichever Redis the sentinels name primary (as the replicas connect). */
export function connectRedis(c: Cluster): Redis {
  const { sentinel } = c;
  const redis = new Redis({
    sentinels: sentinel.sentinels.map((s) => ({ host: '127.0.0.1', port: s.port })),
    name: sentinel.name,
    password: sentinel.password,
    sentinelPassword: sentinel.sentinelPassword,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
  });
  redis.on('error', () => {}); // A failed read only makes a probe retry.
  return redis;
}

/** Stops PostgreSQL and starts it again on its port with its data; reconnects c.db. */
export async function restartPostgres(c: Cluster): Promise<void> {
  const port = new URL(c.databaseUrl).port;
  await c.db.end().catch(() => {});
  await currentPostgres?.stop();
  currentPostgres = await startPostgres({
    dataDir: path.join(c.tmpDir, 'pg'),
    port: Number(port),
    persistent: true,
  });
  c.postgresPid = currentPostgres.pid;
  c.db = await connectDb(c.databaseUrl);
}

async function connectDb(url: string): Promise<pg.Client> {
  const db = new pg.Client({ connectionString: url });
  // The pods' errors are theirs; a restart ends this client, which is then replaced.
  db.on('error', () => {});
  await db.connect();
  currentDb = db;
  return db;
}

/** Promise.all that waits for every start to settle (so each is registered) before failing. */
async function allStarted<T extends readonly unknown[]>(starts: {
  [K in keyof T]: Promise<T[K]>;
}): Promise<T> {
  const settled = await Promise.allSettled(starts);
  const failed = settled.find((result) => result.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return settled.map((result) => (result as PromiseFulfilledResult<unknown>).value) as never;
}
