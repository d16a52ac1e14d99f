// The services under the benchmark: PostgreSQL 16 (embedded, via src/dev/processes.ts, with
// pg_stat_statements when it can be enabled), redis-server (append-only file on, so a restart keeps
// BullMQ's schedules as a production Redis would), the model server, HermesX pods, BullMQ workers.
import { chmodSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { findFreePort, startPostgres, type LocalServer } from '../src/dev/processes.js';
import { spawnBuilt, spawnChild, spawnNode, stop, waitForLine, type Child } from './procs.js';

export function baseEnv(settings: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  if (process.env.HOME) env.HOME = process.env.HOME;
  if (process.env.TMPDIR) env.TMPDIR = process.env.TMPDIR;
  return { ...env, ...settings };
}

export interface Postgres {
  url: string;
  pid: number;
  statements: boolean;
  stop(): Promise<void>;
}

/**
 * Embedded PostgreSQL in a fresh data directory. src/dev/postgres-child.ts fixes the server
 * flags, so pg_stat_statements is preloaded with ALTER SYSTEM and one restart.
 */
export async function startBenchPostgres(workDir: string): Promise<Postgres> {
  const dataDir = path.join(workDir, 'pg');
  // As root, initdb runs as the "postgres" user, which must be able to reach the data directory.
  chmodSync(workDir, 0o755);
  let server: LocalServer = await startPostgres({ dataDir, persistent: true });
  let statements = false;
  try {
    await withClient(server.url, async (c) => {
      await c.query(`ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`);
    });
    const port = server.port;
    await server.stop();
    server = await startPostgres({ dataDir, port, persistent: true });
    await withClient(server.url, (c) =>
      c.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements'),
    );
    statements = true;
  } catch (err) {
    process.stderr.write(`bench: pg_stat_statements unavailable (${String(err)})\n`);
  }
  const current = server;
  return { url: current.url, pid: current.pid, statements, stop: () => current.stop() };
}

/** Whether pg_stat_statements answers on this database. */
export async function hasStatements(url: string): Promise<boolean> {
  try {
    await withClient(url, (c) => c.query('SELECT 1 FROM pg_stat_statements LIMIT 1'));
    return true;
  } catch {
    return false;
  }
}

export async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, application_name: 'hermesx-bench' });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export interface RedisServer {
  url: string;
  port: number;
  child(): Child;
  /** Stops redis-server (SIGTERM: it flushes its append-only file) and starts it again. */
  restart(): Promise<{ downAtMs: number; upAtMs: number }>;
}

export async function startBenchRedis(workDir: string): Promise<RedisServer> {
  const port = await findFreePort();
  const dir = path.join(workDir, 'redis');
  mkdirSync(dir, { recursive: true });
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'yes',
    '--appendfsync',
    'everysec',
    '--auto-aof-rewrite-percentage',
    '0',
  ];
  const launch = async () => {
    const child = spawnChild('redis', 'redis-server', args, baseEnv({}));
    await waitForLine(child, /Ready to accept connections/, 20_000);
    return child;
  };
  let current = await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    child: () => current,
    async restart() {
      const downAtMs = Date.now();
      await stop(current, 10_000);
      current = await launch();
      return { downAtMs, upAtMs: Date.now() };
    },
  };
}

export interface ModelServer {
  url: string;
  control: string;
  child: Child;
}

export async function startModelServer(latencyMs: number): Promise<ModelServer> {
  const child = spawnNode(
    'model-server',
    'bench/model-server.ts',
    ['--latency-ms', String(latencyMs)],
    baseEnv({}),
  );
  const line = await waitForLine(child, /"control"/, 30_000);
  const { url, control } = JSON.parse(line) as { url: string; control: string };
  return { url, control, child };
}

export interface PodSettings {
  databaseUrl: string;
  redisUrl: string;
  llmUrl: string;
  podId: string;
  maxConcurrentRuns: number;
  /** SCHEDULER_CLAIM_AHEAD (absent: the product's default). */
  claimAhead?: number;
  /** Write a V8 CPU profile of the replica into this directory when it exits. */
  cpuProfileDir?: string;
  /**
   * Run the built service (`node dist/cli.js`, the product's own start, after `buildService()`)
   * instead of the sources through tsx, which compiles them at every start.
   */
  fromDist?: boolean;
  /** More node flags for the replica (an experiment: `--heap-growing-percent=0`, V8's own growth). */
  nodeFlags?: string[];
  /** MODEL_PRICES_FILE (the `hermesx-budget` system); absent: no price, as before. */
  modelPricesFile?: string;
}

/** Compiles src/ into dist/ (tsc -p tsconfig.build.json), for pods started with fromDist. */
export async function buildService(): Promise<void> {
  const { execFile } = await import('node:child_process');
  const tsc = path.join(process.cwd(), 'node_modules', 'typescript', 'bin', 'tsc');
  await new Promise<void>((resolve, reject) =>
    execFile(process.execPath, [tsc, '-p', 'tsconfig.build.json'], (err, stdout, stderr) =>
      err ? reject(new Error(`build failed: ${stdout}${stderr}`)) : resolve(),
    ),
  );
}

export interface PodProcess {
  podId: string;
  url: string;
  child: Child;
}

/** A `hermesx saas-api` replica from sources; ready once its scheduler has done a full sync. */
export async function startPod(settings: PodSettings, timeoutMs = 120_000): Promise<PodProcess> {
  const port = await findFreePort();
  const child = (settings.fromDist ? spawnBuilt : spawnNode)(
    settings.podId,
    settings.fromDist ? 'dist/cli.js' : 'src/cli.ts',
    ['saas-api'],
    baseEnv({
      DATABASE_URL: settings.databaseUrl,
      REDIS_URL: settings.redisUrl,
      LLM_API_URL: settings.llmUrl,
      HERMES_POD_ID: settings.podId,
      SAAS_API_PORT: String(port),
      SAAS_API_HOST: '127.0.0.1',
      SCHEDULER_MAX_CONCURRENT_RUNS: String(settings.maxConcurrentRuns),
      ...(settings.claimAhead === undefined
        ? {}
        : { SCHEDULER_CLAIM_AHEAD: String(settings.claimAhead) }),
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'text',
      ...(settings.modelPricesFile ? { MODEL_PRICES_FILE: settings.modelPricesFile } : {}),
    }),
    undefined,
    [
      ...(settings.cpuProfileDir
        ? ['--cpu-prof', `--cpu-prof-dir=${path.join(settings.cpuProfileDir, settings.podId)}`]
        : []),
      ...(settings.nodeFlags ?? []),
    ],
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  // At LOG_LEVEL=warn "scheduler started" is not printed: a first full sync recorded in
  // hermesx_scheduler_sync_duration_seconds means the scheduler runs.
  while (Date.now() < deadline) {
    if (!child.running()) throw new Error(`${settings.podId} exited:\n${child.lines.join('\n')}`);
    const text = await fetchText(`${url}/metrics`);
    if (text && metric(text, 'hermesx_scheduler_sync_duration_seconds_count') >= 1) {
      return { podId: settings.podId, url, child };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop(child, 2000);
  throw new Error(`${settings.podId}: scheduler not running within ${timeoutMs} ms`);
}

export interface WorkerProcess {
  workerId: string;
  child: Child;
  status(): { inFlight: number; started: number; failed: number };
}

export async function startWorker(settings: {
  redisUrl: string;
  queue: string;
  prefix: string;
  llmUrl: string;
  workerId: string;
  concurrency: number;
  outFile: string;
}): Promise<WorkerProcess> {
  let last = { inFlight: 0, started: 0, failed: 0 };
  const child = spawnNode(
    settings.workerId,
    'bench/bullmq-worker.ts',
    [],
    baseEnv({
      REDIS_URL: settings.redisUrl,
      BULL_QUEUE: settings.queue,
      BULL_PREFIX: settings.prefix,
      LLM_API_URL: settings.llmUrl,
      WORKER_ID: settings.workerId,
      CONCURRENCY: String(settings.concurrency),
      OUT_FILE: settings.outFile,
    }),
    (line) => {
      if (line.startsWith('{"inFlight"')) last = JSON.parse(line) as typeof last;
    },
  );
  await waitForLine(child, /"ready":true/, 60_000);
  return { workerId: settings.workerId, child, status: () => last };
}

export async function fetchText(url: string, timeoutMs = 3000): Promise<string | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    return response.ok ? await response.text() : undefined;
  } catch {
    return undefined;
  }
}

/** A sample's value from a Prometheus text (labels ignored: the first sample wins); 0 when absent. */
export function metric(text: string, name: string): number {
  const match = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
  return match?.[1] === undefined ? 0 : Number(match[1]);
}
