#!/usr/bin/env node
// Runs the compiled CLI, compiling first when the sources are newer than the build (a fresh
// clone, or after an edit), and building the dashboard the same way. On a fresh clone without
// node_modules it installs the locked dependencies first (npm ci). In the production image
// dist/ is prebuilt and TypeScript and Vite are absent.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const entry = path.join(root, 'dist', 'cli.js');
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const vite = path.join(root, 'node_modules', 'vite', 'bin', 'vite.js');
const webSources = path.join(root, 'web');
const webEntry = path.join(root, 'dist', 'web', 'index.html');

function newestMtimeMs(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    const mtime = entry.isDirectory() ? newestMtimeMs(full) : statSync(full).mtimeMs;
    newest = Math.max(newest, mtime);
  }
  return newest;
}

// A fresh clone: nothing installed yet. One line says so; npm speaks only to report an error.
if (
  !existsSync(path.join(root, 'node_modules')) &&
  existsSync(path.join(root, 'package-lock.json'))
) {
  process.stderr.write('hermesx: installing dependencies (npm ci), once...\n');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const install = spawnSync(npm, ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (install.status !== 0) {
    process.stderr.write(
      'hermesx: npm ci failed (see above); run it yourself, then ./hermesx again\n',
    );
    process.exit(1);
  }
}

const sources = path.join(root, 'src');
const stale =
  !existsSync(entry) || (existsSync(sources) && newestMtimeMs(sources) > statSync(entry).mtimeMs);
if (stale && existsSync(tsc)) {
  process.stderr.write('hermesx: building...\n');
  try {
    execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], {
      stdio: 'inherit',
    });
    const now = new Date();
    utimesSync(entry, now, now);
  } catch {
    process.stderr.write('hermesx: build failed (see above); fix it or run npm run build\n');
    process.exit(1);
  }
}
const webStale =
  existsSync(webSources) &&
  (!existsSync(webEntry) || newestMtimeMs(webSources) > statSync(webEntry).mtimeMs);
if (webStale && existsSync(vite)) {
  process.stderr.write('hermesx: building the dashboard...\n');
  try {
    const config = path.join(webSources, 'vite.config.ts');
    execFileSync(process.execPath, [vite, 'build', '--config', config, '--logLevel', 'warn'], {
      cwd: root,
      stdio: 'inherit',
    });
  } catch {
    // The API works without it; GET / says how to build it.
    process.stderr.write('hermesx: dashboard build failed (see above); the API still runs\n');
  }
}
if (!existsSync(entry)) {
  process.stderr.write(
    `hermesx: ${path.relative(root, entry)} is missing and TypeScript is not installed: run npm ci, then ./hermesx again\n`,
  );
  process.exit(1);
}
await import(entry);
