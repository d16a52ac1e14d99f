// Summarises V8 CPU profiles (from `npm run bench -- --cpu-prof DIR`): self time by where the
// code lives (an npm package, a file of src/, Node internals, GC, idle), over all profiles found.
// `node --import tsx bench/profile-summary.ts DIR [top] [fromMs toMs]`: with a wall-clock window
// (epoch ms, e.g. a workload's fromMs/toMs from results.json), only samples taken in it count;
// profile time is mapped to wall time by the exit-<pid>.json the harness writes beside each profile.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  hitCount?: number;
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

/** Self time (ms) per node id, optionally only for samples within [fromMs, toMs] of wall time. */
function selfTimes(
  profile: Profile,
  toWallMs: ((t: number) => number) | undefined,
  fromMs: number,
  toMs: number,
): Map<number, number> {
  const out = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  let t = profile.startTime;
  for (let i = 0; i < samples.length; i++) {
    const delta = deltas[i] ?? 0;
    t += delta;
    if (toWallMs) {
      const wall = toWallMs(t);
      if (wall < fromMs || wall > toMs) continue;
    }
    const id = samples[i] as number;
    out.set(id, (out.get(id) ?? 0) + delta / 1000);
  }
  return out;
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return files(full);
    return name.endsWith('.cpuprofile') ? [full] : [];
  });
}

/** Where a function lives: "pkg:<name>", "src/<file>", "node:<module>" or a V8 pseudo-frame. */
export function place(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : `(native) ${functionName}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `pkg:${pkg[1]}`;
  const src = /\/(src|bench|test)\/(.+)$/.exec(url);
  if (src) return `${src[1]}/${src[2]}`;
  if (url.startsWith('node:')) return url;
  return url;
}

function main(): void {
  const dir = process.argv[2];
  const top = Number(process.argv[3] ?? 20);
  const fromMs = Number(process.argv[4] ?? -Infinity);
  const toMs = Number(process.argv[5] ?? Infinity);
  const windowed = Number.isFinite(fromMs) && Number.isFinite(toMs);
  if (!dir) throw new Error('usage: profile-summary.ts DIR [top]');
  const selfMs = new Map<string, number>();
  const fnMs = new Map<string, number>();
  let totalMs = 0;
  for (const file of files(dir)) {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
    const pid = /\.(\d+)\.\d+\.\d+\.cpuprofile$/.exec(file)?.[1];
    const exitFile = path.join(path.dirname(file), `exit-${pid}.json`);
    let toWallMs: ((t: number) => number) | undefined;
    if (windowed) {
      if (!existsSync(exitFile)) continue; // a worker thread's profile, or no exit time known
      const { exitMs } = JSON.parse(readFileSync(exitFile, 'utf8')) as { exitMs: number };
      toWallMs = (t) => exitMs - (profile.endTime - t) / 1000;
    }
    const times = selfTimes(profile, toWallMs, fromMs, toMs);
    for (const node of profile.nodes) {
      const ms = times.get(node.id) ?? 0;
      if (ms === 0) continue;
      const where = place(node.callFrame.url, node.callFrame.functionName);
      selfMs.set(where, (selfMs.get(where) ?? 0) + ms);
      const fn = `${node.callFrame.functionName || '(anonymous)'} ${where}`;
      fnMs.set(fn, (fnMs.get(fn) ?? 0) + ms);
      totalMs += ms;
    }
  }
  const busyMs = totalMs - (selfMs.get('(idle)') ?? 0);
  const print = (title: string, map: Map<string, number>) => {
    console.log(`\n${title} (self time; % of non-idle ${(busyMs / 1000).toFixed(1)} s)`);
    for (const [key, ms] of [...map]
      .filter(([k]) => !k.startsWith('(idle)'))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)) {
      console.log(
        `${((ms / busyMs) * 100).toFixed(1).padStart(5)}%  ${(ms / 1000).toFixed(2).padStart(7)} s  ${key}`,
      );
    }
  };
  print('by place', selfMs);
  print('by function', fnMs);
}

if (process.argv[1]?.endsWith('profile-summary.ts')) main();
