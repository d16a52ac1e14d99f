// `npm run bench`: HermesX against BullMQ on the same machine, one system after the other.
// Starts PostgreSQL 16 (embedded) and redis-server unless given, a model server, then for each
// system its three replicas / workers, runs the workloads, and writes the report and chart.
// Every process started here is stopped by PID at the end, on failure and on SIGINT.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { migrate } from '../src/db/migrate.js';
import { createLogger } from '../src/log.js';
import { parseArgs, USAGE, UsageError, type BenchArgs } from './args.js';
import { Bull } from './bull.js';
import { benchBudgets } from './budgets.js';
import {
  buildService,
  hasStatements,
  startBenchPostgres,
  startBenchRedis,
  startModelServer,
  withClient,
  type Postgres,
  type RedisServer,
} from './infra.js';
import { Hermes } from './ours.js';
import { writeOutputs } from './output.js';
import { runSystem } from './plan.js';
import { runStandalone } from './standalone.js';
import { killAllNow, REPO_ROOT, stopAll } from './procs.js';
import type { BenchResults } from './report.js';
import type { System } from './system.js';
import type { WorkloadContext } from './workloads.js';

const log = (line: string) =>
  process.stdout.write(`${new Date().toISOString().slice(11, 23)} ${line}\n`);
const tenantId = (i: number) => `b0000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

async function createDatabase(adminUrl: string): Promise<string> {
  await withClient(adminUrl, async (c) => {
    await c.query('DROP DATABASE IF EXISTS hermesx_bench');
    await c.query('CREATE DATABASE hermesx_bench');
  });
  const url = new URL(adminUrl);
  url.pathname = '/hermesx_bench';
  return url.toString();
}

function otherDb(redisUrl: string): string {
  const url = new URL(redisUrl);
  const db = Number(url.pathname.slice(1) || '0');
  url.pathname = `/${(db + 1) % 16}`;
  return url.toString();
}

async function redisMemory(redis: Redis): Promise<number> {
  const text = await redis.info('memory').catch(() => '');
  return Number(/^used_memory:(\d+)/m.exec(text)?.[1] ?? 0);
}

async function main(): Promise<number> {
  let args: BenchArgs;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${err.message ? `bench: ${err.message}\n` : ''}${USAGE}\n`);
    return err.message ? 2 : 0;
  }
  const startedMs = Date.now();
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'hermesx-bench-'));
  let postgres: Postgres | undefined;
  let redisServer: RedisServer | undefined;
  let db: pg.Client | undefined;
  let info: Redis | undefined;
  const cleanup = async () => {
    await db?.end().catch(() => {});
    info?.disconnect();
    await stopAll();
    await postgres?.stop().catch(() => {});
    if (args.keep) log(`work directory kept: ${workDir}`);
    else rmSync(workDir, { recursive: true, force: true });
  };
  const onSignal = (signal: NodeJS.Signals) => {
    log(`${signal}: stopping every process started here`);
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.once('exit', killAllNow);
  try {
    for (const name of args.standalone) {
      const result = await runStandalone(name, args, log);
      log(`${name}: ${JSON.stringify(result)}`);
    }
    if (args.workloads.length === 0) return 0;
    let databaseUrl = args.databaseUrl;
    let statements = false;
    if (databaseUrl) {
      statements = await hasStatements(databaseUrl);
    } else {
      log('starting PostgreSQL 16 (embedded)');
      postgres = await startBenchPostgres(workDir);
      databaseUrl = await createDatabase(postgres.url);
      if (postgres.statements) {
        await withClient(databaseUrl, (c) =>
          c.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements'),
        );
        statements = true;
      }
    }
    await migrate(databaseUrl, createLogger({ format: 'text', level: 'warn' }));
    let redisUrl = args.redisUrl;
    if (!redisUrl) {
      redisServer = await startBenchRedis(workDir);
      redisUrl = redisServer.url;
    }
    const model = await startModelServer(args.latencyMs);
    db = new pg.Client({ connectionString: databaseUrl, application_name: 'hermesx-bench' });
    await db.connect();
    const tenants = Array.from({ length: 100 }, (_, i) => tenantId(i));
    // No cap on runs in flight (tenants get 10 by default): the workloads measure the scheduler,
    // W5 a backlog of one tenant against the others, not the cap.
    await db.query(
      `INSERT INTO tenants (id, name, max_concurrent_runs) SELECT id, 'bench tenant ' || n, NULL
         FROM unnest($1::uuid[]) WITH ORDINALITY AS t(id, n) ON CONFLICT (id) DO NOTHING`,
      [tenants],
    );
    await db.query(`DELETE FROM cron_jobs WHERE name LIKE 'bench %'`);
    info = new Redis(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
    info.on('error', () => {});
    await info.connect();
    const infoClient = info;
    const redisDb = db;
    const bullUrl = otherDb(redisUrl);
    const ctx: WorkloadContext = {
      tenants,
      modelControl: model.control,
      restartRedis: redisServer?.restart,
      progressMs: args.progressS * 1000,
      log,
      sources: (system) => ({
        replicas: () => system.replicas(),
        redis: infoClient,
        redisPid: () => redisServer?.child().pid ?? 0,
        postgresPid: postgres?.pid,
        modelServerPid: model.child.pid,
        db: system.kind === 'hermesx' ? redisDb : undefined,
        statements,
      }),
    };
    const results: BenchResults = {
      meta: {
        date: new Date().toISOString(),
        command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
        machine: machine(),
        settings: {
          jobs: args.jobs,
          scaleJobs: args.scaleJobs,
          durationS: args.durationS,
          latencyMs: args.latencyMs,
          replicas: args.replicas,
          concurrency: args.concurrency,
          burstSecond: args.burstSecond === 'auto' ? -1 : args.burstSecond,
        },
        pgStatements: statements,
        source: sourceFingerprint(),
        elapsedS: 0,
      },
      windows: [],
      scale: [],
      contention: [],
      failures: [],
    };
    if (args.from === 'dist' && args.systems.some((name) => name !== 'bullmq')) {
      const builtMs = Date.now();
      await buildService();
      log(
        `built dist/ in ${((Date.now() - builtMs) / 1000).toFixed(1)} s (not part of any figure)`,
      );
    }
    for (const name of args.systems) {
      if (name === 'bullmq' && args.workloads.every((w) => w === 'w5' || w === 'w5t')) {
        log('BullMQ not started: w5 and w5t measure HermesX only');
        continue;
      }
      const common = {
        llmUrl: model.url,
        replicas: args.replicas,
        redisMemory: () => redisMemory(infoClient),
      };
      const system: System =
        name === 'bullmq'
          ? new Bull({
              ...common,
              redisUrl: bullUrl,
              prefix: 'hermesx-bench',
              concurrency: args.concurrency,
              outDir: workDir,
            })
          : new Hermes({
              ...common,
              databaseUrl,
              redisUrl,
              maxConcurrentRuns: args.concurrency,
              ...(args.claimAhead === undefined ? {} : { claimAhead: args.claimAhead }),
              fromDist: args.from === 'dist',
              db,
              ...(args.cpuProf ? { cpuProfileDir: path.resolve(args.cpuProf) } : {}),
              nodeFlags: args.nodeFlags,
              budgets: name === 'hermesx-budget' ? benchBudgets(workDir) : undefined,
            });
      log(
        `starting ${system.label} (${args.replicas} ${system.kind === 'hermesx' ? 'replicas' : 'workers'})`,
      );
      await system.start();
      try {
        await runSystem(args, ctx, system, results, log);
        if (system instanceof Hermes && name === 'hermesx-budget') {
          // Every call of this system was priced, so reserved and settled; none was refused.
          const calls = await system.pricedCalls();
          log(
            `[${name}] model calls priced (reserved and settled): ${calls.priced}; ` +
              `runs refused by a budget: ${calls.refused}`,
          );
        }
      } finally {
        await system.stop();
      }
    }
    results.meta.elapsedS = (Date.now() - startedMs) / 1000;
    results.meta.machine.loadAfter = os.loadavg();
    const written = await writeOutputs(results, args.out);
    log(`report: ${written.join(', ')} (${results.meta.elapsedS.toFixed(0)} s)`);
    return 0;
  } finally {
    await cleanup();
  }
}

/** A short hash of src/ and migrations/: which version of the code these figures describe. */
function sourceFingerprint(): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.(ts|sql)$/.test(entry.name))
        hash.update(path.relative(REPO_ROOT, full)).update(readFileSync(full));
    }
  };
  walk(path.join(REPO_ROOT, 'src'));
  walk(path.join(REPO_ROOT, 'migrations'));
  return hash.digest('hex').slice(0, 12);
}

function machine(): BenchResults['meta']['machine'] {
  let redis = 'redis-server';
  try {
    redis = execFileSync('redis-server', ['--version'], { encoding: 'utf8' })
      .split(' ')
      .slice(0, 3)
      .join(' ');
  } catch {
    // Not on PATH (a --redis-url run).
  }
  return {
    nproc: os.cpus().length,
    memoryGb: os.totalmem() / 1024 ** 3,
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
    node: process.version,
    redis,
    loadBefore: os.loadavg(),
    loadAfter: [],
  };
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(
      `bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  },
);
