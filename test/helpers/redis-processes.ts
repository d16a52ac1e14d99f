// Redis processes for failover tests (test/helpers/redis-sentinel.ts, redis-cluster.ts): spawned
// on 127.0.0.1 with ports picked at random, data in a temp directory, killed by PID.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { Redis } from 'ioredis';
import { isAlive, waitFor } from './process-wait.js';

export interface RedisProcess {
  port: number;
  pid: number;
  /** SIGKILL; resolves once the process is gone. */
  kill(): Promise<void>;
}

export interface Started {
  child: ChildProcess;
  output: string[];
}

const running = new Set<ChildProcess>();

/** Kills (by PID) every process these helpers started that still runs. */
export async function stopRedisProcesses(): Promise<void> {
  await Promise.all([...running].map((child) => killChild(child)));
}

function killChild(child: ChildProcess): Promise<void> {
  running.delete(child);
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  return gone;
}

/** A port p with p + 10000 free too (Redis Cluster's bus port), below 55536. */
export async function findClusterPort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    if ((await isPortFree(port)) && (await isPortFree(port + 10_000))) return port;
  }
}

function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export async function startProcess(
  command: string,
  args: string[],
  readyLine: RegExp,
  timeoutMs = 20_000,
): Promise<Started> {
  const output: string[] = [];
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  // A missing binary fails the start below (it never gets ready), not the process.
  child.on('error', (err) => output.push(`${command}: ${err.message}`));
  running.add(child);
  child.once('exit', () => running.delete(child));
  for (const stream of [child.stdout, child.stderr]) {
    stream?.on('data', (chunk: Buffer) => output.push(...chunk.toString().split('\n')));
  }
  try {
    await waitFor(
      () => {
        if (child.exitCode !== null) {
          throw new Error(`${command} exited: ${output.slice(-20).join('\n')}`);
        }
        if (!output.some((line) => readyLine.test(line))) throw new Error('not ready');
      },
      { timeoutMs, intervalMs: 50, what: `${command} ${args.join(' ')}` },
    );
  } catch (err) {
    await killChild(child);
    throw err;
  }
  return { child, output };
}

export function asProcess(port: number, started: Started): RedisProcess {
  const pid = started.child.pid ?? 0;
  return {
    port,
    pid,
    kill: async () => {
      await killChild(started.child);
      await waitFor(() => expectDead(pid), { timeoutMs: 5000, what: `PID ${pid} to exit` });
    },
  };
}

function expectDead(pid: number): void {
  if (isAlive(pid)) throw new Error(`PID ${pid} still alive`);
}

export function serverArgs(port: number, dir: string, extra: string[]): string[] {
  return [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
    ...extra,
  ];
}

function client(port: number, password?: string): Redis {
  return new Redis({
    host: '127.0.0.1',
    port,
    password,
    lazyConnect: true,
    maxRetriesPerRequest: 1,
  });
}

/** Runs fn with a short-lived connection to 127.0.0.1:port. */
export async function withClient<T>(
  port: number,
  password: string | undefined,
  fn: (redis: Redis) => Promise<T>,
): Promise<T> {
  const redis = client(port, password);
  redis.on('error', () => {});
  try {
    await redis.connect();
    return await fn(redis);
  } finally {
    redis.disconnect();
  }
}
