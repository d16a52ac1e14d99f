// `hermesx dev` in a folder holding the guide's .env block: the guide's keys work against it,
// and its banner shows them.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { findFreePort } from '../../src/dev/processes.js';
import { cliEnv, REPO_ROOT } from '../helpers/process-cli.js';
import { waitFor } from '../helpers/process-wait.js';
import { GUIDE_ENV } from '../helpers/guide-env.js';

let child: ChildProcess | undefined;
let dir: string | undefined;

afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const gone = new Promise((resolve) => child?.once('exit', resolve));
    child.kill('SIGKILL');
    await gone;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
  child = undefined;
  dir = undefined;
});

const get = (port: number, route: string, token: string) =>
  fetch(`http://127.0.0.1:${port}${route}`, {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(5000),
  });

it("reads the guide's .env from its working directory", { timeout: 150_000 }, async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'hermesx-dev-env-'));
  // Run as root, the embedded PostgreSQL runs as its own user, which must reach the folder.
  chmodSync(dir, 0o755);
  writeFileSync(path.join(dir, '.env'), GUIDE_ENV);
  const port = await findFreePort();
  // The CLI from sources, run from the folder; dev's helper processes load tsx from there too.
  symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  const cli = path.join(REPO_ROOT, 'src', 'cli.ts');
  child = spawn(process.execPath, ['--import', 'tsx', cli, 'dev'], {
    cwd: dir,
    env: cliEnv({ SAAS_API_PORT: String(port) }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const running = child;
  const exited = new Promise<number | null>((resolve) => running.once('exit', resolve));
  const banner = waitFor(() => expect(out).toContain('HermesX dev is running.'), {
    timeoutMs: 120_000,
    intervalMs: 200,
    what: 'the dev banner',
  });
  const early = exited.then((code) => {
    throw new Error(`dev exited with ${code}: ${out}`);
  });
  await Promise.race([banner, early]);

  expect(out).toMatch(/msg="dev: read \.env"/);
  expect(out).toContain('Admin token:    my-admin-token');
  // A development system with a printed admin token listens on loopback only by default.
  expect(out).toContain(`Listening on:   127.0.0.1:${port}`);
  expect(out).toContain('API key:        my-api-key   (HERMES_API_KEY)');
  // The guide's REDIS_URL names the compose service: dev runs its own Redis instead.
  expect(out).not.toContain('redis://redis:6379');
  // The guide's model server (host.docker.internal, here localhost) does not run on this machine.
  expect(out).toContain(
    'Model server:   http://localhost:11434/v1 (qwen3:30b): not answering GET /models (connection refused); runs fail with model_unreachable',
  );
  // …and says how to get one running, or how to try HermesX without one.
  expect(out).toContain(
    'Start one: `ollama serve` and `ollama pull qwen3:30b` (https://ollama.com)',
  );
  expect(out).toContain('or try: hermesx dev --demo-model');
  expect(out).toMatch(/msg="object store ready" object_store="disk .*\.hermesx\/objects"/);
  // The export lines paste into a shell as they are, and what they set works.
  const exports = out
    .split('\n')
    .filter((line) => /^ {4}export HERMESX_/.test(line))
    .map((line) => line.trim());
  expect(exports.map((line) => /^export (\w+)=/.exec(line)?.[1])).toEqual([
    'HERMESX_URL',
    'HERMESX_API_KEY',
    'HERMESX_ADMIN_TOKEN',
  ]);
  const pasted = execFileSync(
    'sh',
    [
      '-c',
      `${exports.join('\n')}\nprintf '%s\\n' "$HERMESX_URL" "$HERMESX_API_KEY" "$HERMESX_ADMIN_TOKEN"`,
    ],
    { encoding: 'utf8', env: {} },
  ).split('\n');
  expect(pasted[0]).toBe(`http://localhost:${port}`);
  expect(pasted[1]).toMatch(/^hk_/);
  expect(pasted[2]).toBe('my-admin-token');
  expect((await get(port, '/v1/cron-jobs', pasted[1] ?? '')).status).toBe(200);
  expect((await get(port, '/v1/tenants', pasted[2] ?? '')).status).toBe(200);
  // The README's first curl reads them.
  const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  expect(readme).toContain('curl -X POST "$HERMESX_URL/v1/chat/completions"');
  expect(readme).toContain('-H "Authorization: Bearer $HERMESX_API_KEY"');
  expect((await get(port, '/v1/cron-jobs', 'my-api-key')).status).toBe(200);
  expect((await get(port, '/v1/tenants', 'my-admin-token')).status).toBe(200);
  expect((await get(port, '/v1/cron-jobs', 'not-a-key')).status).toBe(401);
  // dev lets webhooks reach local receivers (saas-api does not unless told).
  expect(out).toMatch(/msg="webhook sender started" .*allow_private_networks=true/);
  const hook = await fetch(`http://127.0.0.1:${port}/v1/webhooks`, {
    method: 'POST',
    headers: { authorization: 'Bearer my-api-key', 'content-type': 'application/json' },
    body: JSON.stringify({ url: 'http://127.0.0.1:9/hook' }),
    signal: AbortSignal.timeout(5000),
  });
  expect(hook.status).toBe(201);

  early.catch(() => {});
  running.kill('SIGTERM');
  expect(await exited).toBe(0);
});
