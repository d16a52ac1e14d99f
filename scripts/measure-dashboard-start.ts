// Measures the time from starting `hermesx dev` to a signed-in jobs page in Chromium, twice: on
// a fresh state directory (initdb, migrations) and on the second start (data kept). Figures go
// in docs/dashboard.md. Run: node --import tsx scripts/measure-dashboard-start.ts
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findFreePort } from '../src/dev/processes.js';
import { launchChromium } from '../test/browser/chromium.js';
import { ensureWebBuilt } from '../test/browser/web-build.js';
import { REPO_ROOT } from '../test/helpers/process-cli.js';

const TIMEOUT_MS = 120_000;

async function measureOnce(cwd: string): Promise<{ serviceMs: number; pageMs: number }> {
  const port = await findFreePort();
  const startedMs = performance.now();
  const browser = launchChromium();
  let browserClosed = false;
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin/hermesx.js'), 'dev'], {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      SAAS_API_PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const { url, key } = await new Promise<{ url: string; key: string }>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => reject(new Error(`no banner:\n${output}`)), TIMEOUT_MS);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        const url = /URL:\s+(\S+)/.exec(output)?.[1];
        const key = /Tenant API key:\s+(\S+)/.exec(output)?.[1];
        if (url && key) {
          clearTimeout(timer);
          resolve({ url, key });
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      void exited.then(() => reject(new Error(`hermesx dev exited:\n${output}`)));
    });
    const serviceMs = performance.now() - startedMs;
    const { context, close } = await browser;
    browserClosed = true;
    try {
      const page = await context.newPage();
      await page.goto(url);
      await page.getByLabel('API key').fill(key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Jobs' }).waitFor({ timeout: TIMEOUT_MS });
      return { serviceMs, pageMs: performance.now() - startedMs };
    } finally {
      await close();
    }
  } finally {
    if (!browserClosed) await (await browser).close();
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  }
}

await ensureWebBuilt();
const cwd = mkdtempSync(path.join(os.tmpdir(), 'hermesx-measure-'));
// As root, embedded PostgreSQL runs initdb as the postgres user, which must reach the data dir.
chmodSync(cwd, 0o755);
try {
  for (const label of ['fresh state directory', 'second start']) {
    const { serviceMs, pageMs } = await measureOnce(cwd);
    console.log(
      `${label}: banner after ${(serviceMs / 1000).toFixed(1)} s, signed-in jobs page after ${(pageMs / 1000).toFixed(1)} s`,
    );
  }
} finally {
  rmSync(cwd, { recursive: true, force: true });
}
