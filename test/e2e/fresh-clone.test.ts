// `./hermesx` on a fresh clone, before any `npm ci` (the README lists `./hermesx dev` first): it
// installs the locked dependencies itself, with one line saying so, then builds and runs. It
// once died with ERR_MODULE_NOT_FOUND … dist/cli.js. `npm` here is a stand-in on PATH that
// records its arguments and links this checkout's node_modules (no network in tests).
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { cliEnv, REPO_ROOT } from '../helpers/process-cli.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

it('installs the dependencies, builds and runs on a fresh clone', { timeout: 300_000 }, () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'hermesx-fresh-clone-'));
  const clone = path.join(dir, 'clone');
  mkdirSync(clone);
  // The tracked files as they are in this checkout: what a clone holds (no node_modules, no dist).
  const copy = spawnSync(
    'sh',
    ['-c', `git ls-files -z | xargs -0 tar -cf - | tar -xf - -C '${clone}'`],
    { cwd: REPO_ROOT },
  );
  expect(copy.status, copy.stderr.toString()).toBe(0);
  const bin = path.join(dir, 'bin');
  mkdirSync(bin);
  const npmLog = path.join(dir, 'npm.log');
  writeFileSync(
    path.join(bin, 'npm'),
    `#!/bin/sh\necho "$*" >> '${npmLog}'\nln -s '${path.join(REPO_ROOT, 'node_modules')}' node_modules\n`,
  );
  chmodSync(path.join(bin, 'npm'), 0o755);
  const env = cliEnv();
  env.PATH = `${bin}:${env.PATH ?? ''}`;
  const run = spawnSync(path.join(clone, 'hermesx'), ['--version'], {
    cwd: clone,
    env,
    timeout: 280_000,
  });
  const stderr = run.stderr.toString();
  expect(run.status, `${run.stdout.toString()}\n${stderr}`).toBe(0);
  expect(run.stdout.toString()).toMatch(/^hermesx \S+/);
  expect(readFileSync(npmLog, 'utf8')).toBe('ci --no-audit --no-fund --loglevel=error\n');
  const lines = stderr.trim().split('\n');
  expect(lines[0]).toBe('hermesx: installing dependencies (npm ci), once...');
  expect(stderr).not.toContain('ERR_MODULE_NOT_FOUND');
});
