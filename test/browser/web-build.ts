// Builds the dashboard into dist/web when it is missing or older than its sources, so browser
// tests run from a clean checkout (`.ci/run` also builds it first). Test files run in parallel:
// a lock directory (mkdir is atomic) lets one of them build while the others wait.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../helpers/process-cli.js';
import { waitFor } from '../helpers/process-wait.js';

export const WEB_DIST = path.join(REPO_ROOT, 'dist', 'web');
const LOCK_DIR = path.join(REPO_ROOT, 'dist', '.web-build-lock');
const BUILD_TIMEOUT_MS = 120_000;

export async function ensureWebBuilt(): Promise<void> {
  if (isFresh()) return;
  mkdirSync(path.dirname(LOCK_DIR), { recursive: true });
  const mustBuild = await waitFor(
    () => {
      if (isFresh()) return false;
      try {
        mkdirSync(LOCK_DIR);
        return true;
      } catch {
        // Another file builds; a lock older than a build can take was left by a killed run.
        if (Date.now() - statSync(LOCK_DIR).mtimeMs > BUILD_TIMEOUT_MS) {
          rmSync(LOCK_DIR, { recursive: true, force: true });
        }
        throw new Error('the dashboard is being built by another test file');
      }
    },
    { timeoutMs: BUILD_TIMEOUT_MS, intervalMs: 200, what: 'the dashboard build' },
  );
  if (!mustBuild) return;
  try {
    build();
  } finally {
    rmSync(LOCK_DIR, { recursive: true, force: true });
  }
}

function build(): void {
  execFileSync(
    process.execPath,
    [
      path.join(REPO_ROOT, 'node_modules/vite/bin/vite.js'),
      'build',
      '--config',
      'web/vite.config.ts',
      '--logLevel',
      'warn',
    ],
    { cwd: REPO_ROOT, stdio: 'inherit' },
  );
}

function isFresh(): boolean {
  const built = path.join(WEB_DIST, 'index.html');
  const sources = [path.join(REPO_ROOT, 'web'), path.join(REPO_ROOT, 'package-lock.json')];
  return existsSync(built) && newestMtimeMs(sources) <= statSync(built).mtimeMs;
}

function newestMtimeMs(paths: string[]): number {
  let newest = 0;
  for (const p of paths) {
    const stat = statSync(p);
    if (stat.isDirectory()) {
      newest = Math.max(newest, newestMtimeMs(readdirSync(p).map((name) => path.join(p, name))));
    } else {
      newest = Math.max(newest, stat.mtimeMs);
    }
  }
  return newest;
}
