// The Docker side of `npm run verify:docker`: commands with captured output, the engine (started
// here only when none answers, and then stopped by its PID), compose v2 or 1.29, free host ports.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, openSync, closeSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Say } from '../harness.js';
import { until } from '../harness.js';

export interface Output {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  input?: string;
  timeoutMs?: number;
}

/** Runs a command to its end (bounded by timeoutMs), never throwing for a non-zero exit. */
export function run(command: string, args: string[], options: RunOptions = {}): Promise<Output> {
  return new Promise((resolve) => {
    // No stdin unless there is input: a child that exits without reading it would make the
    // write fail (EPIPE).
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      stderr += `\n(${command} killed after ${options.timeoutMs} ms)`;
      child.kill('SIGKILL');
    }, options.timeoutMs ?? 600_000);
    child.once('error', (err) => {
      clearTimeout(timer);
      resolve({ code: 127, stdout, stderr: `${stderr}${err.message}` });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr });
    });
    if (child.stdin) {
      child.stdin.on('error', () => {}); // the child's exit status tells what happened
      child.stdin.end(options.input);
    }
  });
}

/** Like run, but a non-zero exit throws with the command's output. */
export async function runOk(command: string, args: string[], options: RunOptions = {}) {
  const out = await run(command, args, options);
  if (out.code !== 0) {
    const text = `${out.stdout}${out.stderr}`.trim().split('\n').slice(-15).join('\n');
    throw new Error(`${command} ${args.join(' ')} exited with ${out.code}\n${text}`);
  }
  return out.stdout;
}

export const docker = (args: string[], options?: RunOptions) => run('docker', args, options);
export const dockerOk = (args: string[], options?: RunOptions) => runOk('docker', args, options);

/** `docker logs NAME 2>&1`: both streams, as the guide's pipelines read them. */
export async function logsOf(name: string, tail?: number): Promise<string> {
  const out = await docker(['logs', ...(tail ? ['--tail', String(tail)] : []), name]);
  return `${out.stdout}${out.stderr}`;
}

export function countLines(text: string, pattern: RegExp): number {
  return text.split('\n').filter((line) => pattern.test(line)).length;
}

/** `docker compose` when the v2 plugin exists, else Debian's `docker-compose` (1.29). */
export function composeCommand(): string[] {
  const plugin = spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' });
  return !plugin.error && plugin.status === 0 ? ['docker', 'compose'] : ['docker-compose'];
}

export interface Engine {
  /** How the engine came to answer: already running, or started here (with its PID). */
  how: string;
  stop(): Promise<void>;
}

const engineAnswers = () => spawnSync('docker', ['info'], { stdio: 'ignore' }).status === 0;

/** A Docker engine that answers: the running one, or `dockerd` started here (overlay2). */
export async function ensureEngine(logDir: string, say: Say): Promise<Engine> {
  if (engineAnswers()) return { how: 'already running', stop: async () => {} };
  if (spawnSync('sh', ['-c', 'command -v dockerd'], { stdio: 'ignore' }).status !== 0) {
    throw new Error(
      'no Docker engine answers and dockerd is not installed (apt-get install -y docker.io)',
    );
  }
  mkdirSync(logDir, { recursive: true });
  const logFile = path.join(logDir, 'dockerd.log');
  const log = openSync(logFile, 'w');
  const child = spawn('dockerd', ['--storage-driver', 'overlay2'], {
    detached: true,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  child.unref();
  let exited = false;
  child.once('exit', () => (exited = true));
  say(`started dockerd (pid ${child.pid}, log ${logFile})`);
  const up = await until(() => exited || engineAnswers(), 60_000, 250);
  if (exited || !up) throw new Error(`dockerd did not come up; see ${logFile}`);
  return {
    how: `started here (pid ${child.pid})`,
    async stop() {
      if (exited || child.pid === undefined) return;
      process.kill(child.pid, 'SIGTERM');
      const gone = await until(() => exited, 30_000, 100);
      if (!gone) process.kill(child.pid, 'SIGKILL');
      say(`stopped dockerd (pid ${child.pid})`);
    },
  };
}

/** True when nothing listens on the port (any address): docker publishing there would succeed. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '0.0.0.0', exclusive: true }, () =>
      server.close(() => resolve(true)),
    );
  });
}

const taken = new Set<number>();

/** The preferred port when it is free, else one the kernel picks; never the same one twice. */
export async function freePort(preferred: number): Promise<number> {
  if (!taken.has(preferred) && (await portIsFree(preferred))) {
    taken.add(preferred);
    return preferred;
  }
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = net.createServer();
      server.once('error', reject);
      server.listen({ port: 0, host: '0.0.0.0' }, () => {
        const address = server.address() as net.AddressInfo;
        server.close(() => resolve(address.port));
      });
    });
    if (!taken.has(port)) {
      taken.add(port);
      return port;
    }
  }
}

/** What host.docker.internal (host-gateway) resolves to: the default bridge's gateway. */
export async function bridgeGateway(): Promise<string> {
  const out = await dockerOk([
    'network',
    'inspect',
    'bridge',
    '-f',
    '{{range .IPAM.Config}}{{.Gateway}}{{end}}',
  ]);
  // Docker 20.10 often leaves the gateway out of IPAM: it is then docker0's address (which
  // os.networkInterfaces() omits while no container is attached: the link is down).
  const docker0 = spawnSync('ip', ['-4', '-o', 'addr', 'show', 'docker0'], { encoding: 'utf8' });
  const address = /inet (\d+\.\d+\.\d+\.\d+)\//.exec(docker0.stdout ?? '')?.[1];
  const gateway = out.trim() || address || '';
  if (!/^\d+\.\d+\.\d+\.\d+$/.test(gateway)) throw new Error(`no bridge gateway (${gateway})`);
  return gateway;
}

/** A container's state: Health.Status while it runs with a health check, else Status; 'missing'. */
export async function stateOf(name: string): Promise<string> {
  const out = await docker([
    'inspect',
    '-f',
    '{{if and (eq .State.Status "running") .State.Health}}{{.State.Health.Status}}{{else}}{{.State.Status}}{{end}}',
    name,
  ]);
  return out.code === 0 ? out.stdout.trim() : 'missing';
}

/** psql in a container, unaligned and tuples-only: rows of '|'-separated fields. */
export async function psqlRows(
  container: string,
  sql: string,
  db = 'hermesx',
): Promise<string[][]> {
  const out = await dockerOk([
    'exec',
    container,
    'psql',
    '-U',
    'hermesx',
    '-d',
    db,
    '-v',
    'ON_ERROR_STOP=1',
    '-At',
    '-c',
    sql,
  ]);
  return out
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.split('|'));
}
