import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A local server started for `hermesx dev`, the tests or the benchmarks. */
export interface LocalServer {
  url: string;
  port: number;
  pid: number;
  stop(): Promise<void>;
}

/** A free TCP port on loopback, from the kernel. */
export async function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface PostgresOptions {
  dataDir: string;
  port?: number;
  persistent?: boolean;
  /**
   * In its own process group, out of reach of a terminal's Ctrl-C (SIGINT to the whole
   * foreground group), so the service can drain before the database stops (`dev`).
   */
  detached?: boolean;
}

const PG_USER = 'postgres';
const PG_PASSWORD = 'postgres';

/** Starts embedded PostgreSQL 16 in a child process; resolves once it accepts connections. */
export async function startPostgres(options: PostgresOptions): Promise<LocalServer> {
  mkdirSync(options.dataDir, { recursive: true });
  const port = options.port ?? (await findFreePort());
  const here = fileURLToPath(import.meta.url);
  const childFile = path.join(path.dirname(here), `postgres-child${path.extname(here)}`);
  const args = JSON.stringify({
    dataDir: options.dataDir,
    port,
    user: PG_USER,
    password: PG_PASSWORD,
    persistent: options.persistent ?? true,
  });
  // From sources (tests, tsx) the child needs the TypeScript loader; from dist/ it does not.
  const loader = childFile.endsWith('.ts') ? ['--import', 'tsx'] : [];
  // It stops by itself when its parent goes away (stdin closes), detached or not.
  const child = spawn(process.execPath, [...loader, childFile, args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  await waitForLine(child, '"ready":true', 120_000, 'embedded PostgreSQL');
  return {
    url: `postgres://${PG_USER}:${PG_PASSWORD}@127.0.0.1:${port}/postgres`,
    port,
    pid: child.pid ?? 0,
    stop: () => stopChild(child, 30_000),
  };
}

/** Starts `redis-server` on a port, keeping nothing on disk; fails clearly when it is missing. */
export async function startRedis(
  options: { port?: number; detached?: boolean } = {},
): Promise<LocalServer> {
  const port = options.port ?? (await findFreePort());
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'], detached: options.detached ?? false },
  );
  // Detached, nothing else stops it if this process exits without stopping it (a second Ctrl-C).
  if (options.detached) stopOnExit(child);
  await waitForLine(child, 'Ready to accept connections', 20_000, 'redis-server');
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid: child.pid ?? 0,
    stop: () => stopChild(child, 10_000),
  };
}

function waitForLine(
  child: ChildProcess,
  needle: string,
  timeoutMs: number,
  what: string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => fail(new Error(`${what} did not start within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(needle)) {
        cleanup();
        resolve();
      }
    };
    const onError = (err: Error) => fail(new Error(`${what} could not start: ${err.message}`));
    const onExit = (code: number | null) =>
      fail(new Error(`${what} exited with code ${code}: ${output.slice(-2000)}`));
    function fail(err: Error) {
      cleanup();
      child.kill('SIGKILL');
      reject(err);
    }
    function cleanup() {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      child.off('error', onError);
      child.off('exit', onExit);
      // Keep draining output so a chatty child never blocks on a full pipe.
      child.stdout?.resume();
      child.stderr?.resume();
    }
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('error', onError);
    child.once('exit', onExit);
  });
}

const stoppedOnExit = new Set<ChildProcess>();

function stopOnExit(child: ChildProcess): void {
  if (stoppedOnExit.size === 0) {
    process.once('exit', () => {
      for (const each of stoppedOnExit) each.kill('SIGTERM');
    });
  }
  stoppedOnExit.add(child);
  child.once('exit', () => stoppedOnExit.delete(child));
}

/** SIGTERM, then SIGKILL after the grace period; resolves when the process has exited. */
export function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
