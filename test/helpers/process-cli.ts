import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (the CLI runs from here, as a user would). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface CliProcess {
  child: ChildProcess;
  pid: number;
  stdout(): string;
  stderr(): string;
  /** Settles once the process has exited (never rejects). */
  exited: Promise<Exit>;
  /** Resolves with the exit, or rejects after timeoutMs (the process is then left to kill()). */
  waitForExit(timeoutMs: number): Promise<Exit>;
  /** SIGKILL by PID unless it already exited; resolves when it is gone. */
  kill(): Promise<void>;
}

const running = new Set<CliProcess>();

/**
 * The minimal environment a CLI child gets: PATH (to find node and redis-server) and HOME, nothing
 * else from the parent (no DATABASE_URL or REDIS_URL leaking in), plus the given settings.
 */
export function cliEnv(settings: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  if (process.env.HOME) env.HOME = process.env.HOME;
  if (process.env.TMPDIR) env.TMPDIR = process.env.TMPDIR;
  return { ...env, ...settings };
}

/** Starts `node --import tsx src/cli.ts ...args` from sources with exactly the env given. */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv): CliProcess {
  return spawnProcess(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], env);
}

/** Starts any executable from the repository root, capturing its output. */
export function spawnProcess(command: string, args: string[], env: NodeJS.ProcessEnv): CliProcess {
  const child = spawn(command, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', () => resolve({ code: null, signal: null }));
  });
  const handle: CliProcess = {
    child,
    pid: child.pid ?? 0,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitForExit: (timeoutMs) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new Error(
                `${path.basename(command)} ${args.join(' ')} did not exit within ${timeoutMs} ms\n` +
                  `stdout: ${out.slice(-2000)}\nstderr: ${err.slice(-2000)}`,
              ),
            ),
          timeoutMs,
        );
      });
      return Promise.race([exited, timeout]).finally(() => clearTimeout(timer));
    },
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null && handle.pid > 0) {
        try {
          process.kill(handle.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
      await exited;
    },
  };
  running.add(handle);
  void exited.then(() => running.delete(handle));
  return handle;
}

/** Kills every process started here that is still running (for afterEach/afterAll). */
export async function killAllStarted(): Promise<void> {
  await Promise.all([...running].map((handle) => handle.kill()));
}
