#!/usr/bin/env node
// Test middleware on fixed ports: PostgreSQL 16 on 5433, Redis 7 on 6380 (and MinIO on 9002
// with Docker), as `make test-infra-up` / `make test-infra-down` promise.
//
//   node --import tsx scripts/test-infra.mjs up     # start, wait until ready, return
//   node --import tsx scripts/test-infra.mjs down   # stop whatever `up` started
//
// With a working Docker engine (`docker info` succeeds) it runs docker-compose.test.yml.
// Without one it starts embedded PostgreSQL 16 and `redis-server` as local background
// processes through src/dev/processes.ts (hence --import tsx): a detached keeper process owns
// them (the embedded PostgreSQL stops when its parent goes away), its PIDs are written to
// .cache/test-infra.pids and its log to .cache/test-infra.log; data lives in a temp dir.

import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setInterval } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = path.join(ROOT, '.cache');
const PIDS = path.join(CACHE, 'test-infra.pids');
const LOG = path.join(CACHE, 'test-infra.log');
const COMPOSE_FILE = path.join(ROOT, 'docker-compose.test.yml');
const PG_PORT = 5433;
const REDIS_PORT = 6380;
const URLS = [
  `TEST_DATABASE_URL=postgres://postgres:postgres@127.0.0.1:${PG_PORT}/postgres`,
  `TEST_REDIS_URL=redis://127.0.0.1:${REDIS_PORT}`,
];

function say(line) {
  process.stdout.write(`test-infra: ${line}\n`);
}

function dockerWorks() {
  const result = spawnSync('docker', ['info'], { stdio: 'ignore' });
  return !result.error && result.status === 0;
}

/** `docker compose` when the plugin exists, else `docker-compose`. */
function composeCommand() {
  const plugin = spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' });
  return !plugin.error && plugin.status === 0 ? ['docker', 'compose'] : ['docker-compose'];
}

function compose(...args) {
  const [command, ...prefix] = composeCommand();
  const result = spawnSync(command, [...prefix, '-f', COMPOSE_FILE, ...args], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (result.error) throw new Error(`${command}: ${result.error.message}`);
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} exited with ${result.status}`);
}

async function waitHealthy(containers, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const states = containers.map((name) => {
      const result = spawnSync('docker', ['inspect', '-f', '{{.State.Health.Status}}', name], {
        encoding: 'utf8',
      });
      return result.status === 0 ? result.stdout.trim() : 'missing';
    });
    if (states.every((state) => state === 'healthy')) return;
    if (Date.now() > deadline) {
      throw new Error(
        `not healthy in time: ${containers.map((c, i) => `${c}=${states[i]}`).join(' ')}`,
      );
    }
    await sleep(1000);
  }
}

function readPids() {
  if (!existsSync(PIDS)) return undefined;
  const entries = readFileSync(PIDS, 'utf8')
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([name, pid]) => name && /^\d+$/.test(pid ?? ''));
  return Object.fromEntries(entries.map(([name, pid]) => [name, Number(pid)]));
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

async function waitExit(pid, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (alive(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(200);
  }
  return true;
}

// --- up / down -------------------------------------------------------------------------------

async function up() {
  const pids = readPids();
  if (pids?.keeper && alive(pids.keeper)) {
    say(`already running locally (keeper pid ${pids.keeper})`);
    return printUrls();
  }
  if (dockerWorks()) {
    say('starting docker-compose.test.yml');
    compose('up', '-d');
    await waitHealthy(['hermesx-test-pg', 'hermesx-test-redis'], 120_000);
    say(`ready: PostgreSQL :${PG_PORT}, Redis :${REDIS_PORT}, MinIO :9002 (Docker)`);
    return printUrls();
  }
  say('no Docker engine: starting embedded PostgreSQL 16 and redis-server as local processes');
  mkdirSync(CACHE, { recursive: true });
  rmSync(PIDS, { force: true });
  const log = openSync(LOG, 'w');
  const keeper = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), 'keep'],
    { cwd: ROOT, detached: true, stdio: ['ignore', log, log] },
  );
  closeSync(log);
  keeper.unref();
  let exited = false;
  keeper.once('exit', () => (exited = true));
  const deadline = Date.now() + 180_000;
  for (;;) {
    const current = readPids();
    if (current?.keeper === keeper.pid && current.ready) break;
    if (exited || Date.now() > deadline) {
      if (!exited) process.kill(keeper.pid, 'SIGTERM');
      const tail = existsSync(LOG) ? readFileSync(LOG, 'utf8').slice(-2000) : '';
      throw new Error(`local middleware did not start${tail ? `:\n${tail}` : ''}`);
    }
    await sleep(200);
  }
  const current = readPids();
  say(
    `ready: PostgreSQL :${PG_PORT} (pid ${current.postgres}), Redis :${REDIS_PORT} (pid ${current.redis}); ` +
      `keeper pid ${current.keeper}, log ${path.relative(ROOT, LOG)}`,
  );
  printUrls();
}

function printUrls() {
  for (const line of URLS) say(line);
}

async function down() {
  const pids = readPids();
  if (pids) {
    if (pids.keeper && alive(pids.keeper)) {
      process.kill(pids.keeper, 'SIGTERM');
      if (!(await waitExit(pids.keeper, 45_000))) {
        say(`keeper ${pids.keeper} did not stop in 45 s; killing it and its servers`);
        for (const name of ['postgres', 'redis', 'keeper']) {
          if (pids[name] && alive(pids[name])) process.kill(pids[name], 'SIGKILL');
        }
      }
    }
    // Servers left over by a keeper that was killed outright.
    for (const name of ['postgres', 'redis']) {
      if (pids[name] && alive(pids[name])) {
        process.kill(pids[name], 'SIGTERM');
        if (!(await waitExit(pids[name], 30_000))) process.kill(pids[name], 'SIGKILL');
      }
    }
    rmSync(PIDS, { force: true });
    say('stopped the local PostgreSQL and Redis');
    return;
  }
  if (dockerWorks()) {
    compose('down', '-v', '--remove-orphans');
    say('stopped docker-compose.test.yml');
    return;
  }
  say('nothing to stop');
}

// --- keeper (detached; owns the servers) -----------------------------------------------------

async function keep() {
  const { startPostgres, startRedis } = await import('../src/dev/processes.ts');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'hermesx-test-infra-'));
  const started = [];
  let stopping = false;
  const stopAll = async (code) => {
    if (stopping) return;
    stopping = true;
    for (const server of started.reverse()) await server.stop().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
    const pids = readPids();
    if (pids?.keeper === process.pid) rmSync(PIDS, { force: true });
    process.exit(code);
  };
  process.on('SIGTERM', () => void stopAll(0));
  process.on('SIGINT', () => void stopAll(0));
  try {
    const postgres = await startPostgres({ dataDir, port: PG_PORT, persistent: false });
    started.push(postgres);
    const redis = await startRedis({ port: REDIS_PORT });
    started.push(redis);
    writeFileSync(
      PIDS,
      `keeper ${process.pid}\npostgres ${postgres.pid}\nredis ${redis.pid}\nready 1\n`,
    );
    process.stdout.write(`ready: ${postgres.url} ${redis.url} (data in ${dataDir})\n`);
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    await stopAll(1);
  }
  // Stay alive until told to stop: the embedded PostgreSQL stops when this process goes away.
  setInterval(() => {}, 1 << 30);
}

const command = process.argv[2];
const actions = { up, down, keep };
if (!actions[command]) {
  process.stderr.write('usage: node --import tsx scripts/test-infra.mjs up|down\n');
  process.exit(2);
}
actions[command]().catch((err) => {
  process.stderr.write(`test-infra: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
