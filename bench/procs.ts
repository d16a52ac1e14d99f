// Child processes of the benchmark, each remembered by PID so every one is stopped at the end
// (or on SIGINT), and what /proc says about them (CPU seconds, resident memory).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stopChild } from '../src/dev/processes.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface Child {
  name: string;
  pid: number;
  proc: ChildProcess;
  /** The last lines it printed (bounded). */
  lines: string[];
  exited: Promise<void>;
  running(): boolean;
}

const children = new Set<Child>();
const MAX_LINES = 300;

/** Spawns a process whose output is kept (last lines only) and which is stopped by stopAll(). */
export function spawnChild(
  name: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  onLine?: (line: string) => void,
): Child {
  const proc = spawn(command, args, { cwd: REPO_ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const collect = (stream: NodeJS.ReadableStream | null) => {
    let partial = '';
    stream?.on('data', (chunk: Buffer) => {
      const parts = (partial + chunk.toString()).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) {
        if (line === '') continue;
        lines.push(line);
        if (lines.length > MAX_LINES) lines.splice(0, lines.length - MAX_LINES);
        onLine?.(line);
      }
    });
  };
  collect(proc.stdout);
  collect(proc.stderr);
  const exited = new Promise<void>((resolve) => {
    if (proc.exitCode !== null) resolve();
    proc.once('exit', () => resolve());
    proc.once('error', () => resolve());
  });
  const child: Child = {
    name,
    pid: proc.pid ?? 0,
    proc,
    lines,
    exited,
    running: () => proc.exitCode === null && proc.signalCode === null,
  };
  children.add(child);
  void exited.then(() => children.delete(child));
  return child;
}

/** A Node child running a TypeScript file of this repository through tsx. */
export function spawnNode(
  name: string,
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  onLine?: (line: string) => void,
  nodeFlags: string[] = [],
): Child {
  return spawnBuilt(name, file, args, env, onLine, [...nodeFlags, '--import', 'tsx']);
}

/** Like spawnNode, for JavaScript that needs no compiling (the built service in dist/). */
export function spawnBuilt(
  name: string,
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  onLine?: (line: string) => void,
  nodeFlags: string[] = [],
): Child {
  return spawnChild(name, process.execPath, [...nodeFlags, file, ...args], env, onLine);
}

/** Resolves with the first line matching, or rejects on exit or after timeoutMs. */
export function waitForLine(child: Child, pattern: RegExp, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const found = child.lines.find((line) => pattern.test(line));
    if (found !== undefined) return resolve(found);
    const onData = () => {
      const line = child.lines.find((l) => pattern.test(l));
      if (line !== undefined) finish(() => resolve(line));
    };
    const onExit = () =>
      finish(() =>
        reject(new Error(`${child.name} exited:\n${child.lines.slice(-20).join('\n')}`)),
      );
    const timer = setTimeout(
      () => finish(() => reject(new Error(`${child.name}: no ${pattern} in ${timeoutMs} ms`))),
      timeoutMs,
    );
    function finish(fn: () => void) {
      clearTimeout(timer);
      child.proc.stdout?.off('data', onData);
      child.proc.stderr?.off('data', onData);
      child.proc.off('exit', onExit);
      fn();
    }
    // Listeners added after spawnChild's, so the line is already stored when this runs.
    child.proc.stdout?.on('data', onData);
    child.proc.stderr?.on('data', onData);
    child.proc.once('exit', onExit);
  });
}

/** SIGTERM, then SIGKILL after graceMs, by PID. */
export function stop(child: Child, graceMs = 10_000): Promise<void> {
  return stopChild(child.proc, graceMs);
}

/** SIGKILL by PID; resolves when it is gone. */
export async function kill(child: Child): Promise<void> {
  if (child.running()) child.proc.kill('SIGKILL');
  await child.exited;
}

/** Stops every child still running (in parallel, bounded by graceMs each). */
export async function stopAll(graceMs = 8000): Promise<void> {
  await Promise.all([...children].map((child) => stop(child, graceMs)));
}

/** Last resort when the harness itself exits: SIGKILL whatever is left, synchronously. */
export function killAllNow(): void {
  for (const child of children) {
    try {
      if (child.running()) process.kill(child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

// ---- /proc ----

const CLOCK_TICKS = 100; // USER_HZ on Linux

export interface ProcSample {
  cpuSeconds: number;
  rssBytes: number;
}

/** CPU seconds (user + system) and RSS of one process; zeros once it is gone. */
export function procSample(pid: number): ProcSample {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    return { cpuSeconds, rssBytes: rssKb * 1024 };
  } catch {
    return { cpuSeconds: 0, rssBytes: 0 };
  }
}

/** CPU seconds of a process and all its descendants (e.g. PostgreSQL's backends). */
export function treeCpuSeconds(rootPid: number): number {
  const parentOf = new Map<number, number>();
  const cpuOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parentOf.set(Number(entry), Number(fields[1]));
      // Includes the CPU of children that already exited (cutime, cstime).
      const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
      cpuOf.set(Number(entry), ticks / CLOCK_TICKS);
    } catch {
      // Exited meanwhile.
    }
  }
  let total = 0;
  for (const [pid, cpu] of cpuOf) {
    for (let p: number | undefined = pid, depth = 0; p !== undefined && depth < 20; depth++) {
      if (p === rootPid) {
        total += cpu;
        break;
      }
      p = parentOf.get(p);
    }
  }
  return total;
}

/** Busy and total jiffies of the whole machine, for the share of CPU in use. */
export function machineCpu(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  const total = values.reduce((a, b) => a + b, 0);
  const idle = (values[3] ?? 0) + (values[4] ?? 0);
  return { busy: total - idle, total };
}
