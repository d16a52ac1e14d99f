// Builds the dashboard into dist/web when it is missing or older than its sources, so browser
// tests run from a clean checkout (`.ci/run` also builds it first).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../helpers/process-cli.js';

export const WEB_DIST = path.join(REPO_ROOT, 'dist', 'web');

export function ensureWebBuilt(): void {
  const built = path.join(WEB_DIST, 'index.html');
  const sources = [path.join(REPO_ROOT, 'web'), path.join(REPO_ROOT, 'package-lock.json')];
  if (existsSync(built) && newestMtimeMs(sources) <= statSync(built).mtimeMs) return;
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
