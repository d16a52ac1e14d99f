// `hermesx dev --demo-model`: no model server needed; chat and scheduled runs get the built-in
// demo model's answers, which say what they are. saas-api has no such option.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { findFreePort } from '../../src/dev/processes.js';
import { cliEnv, REPO_ROOT, spawnCli } from '../helpers/process-cli.js';
import { waitFor } from '../helpers/process-wait.js';

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

async function api(port: number, method: string, route: string, key: string, body?: unknown) {
  const response = await fetch(`http://127.0.0.1:${port}${route}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

it('answers chat and runs with the demo model, saying so', { timeout: 180_000 }, async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'hermesx-dev-demo-'));
  chmodSync(dir, 0o755);
  symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  const port = await findFreePort();
  child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(REPO_ROOT, 'src', 'cli.ts'), 'dev', '--demo-model'],
    {
      cwd: dir,
      // A model server setting that answers nothing: the demo model replaces it.
      env: cliEnv({ SAAS_API_PORT: String(port), LLM_API_URL: 'http://127.0.0.1:9/v1' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const running = child;
  const exited = new Promise<number | null>((resolve) => running.once('exit', resolve));
  const early = exited.then((code) => {
    throw new Error(`dev exited with ${code}: ${out}`);
  });
  await Promise.race([
    waitFor(() => expect(out).toContain('HermesX dev is running.'), {
      timeoutMs: 150_000,
      intervalMs: 200,
      what: 'the dev banner',
    }),
    early,
  ]);
  expect(out).toContain('Model server:   the built-in demo model (hermesx-demo)');
  const key = /export HERMESX_API_KEY=(\S+)/.exec(out)?.[1] ?? '';
  expect(key).toMatch(/^hk_/);

  const chat = await api(port, 'POST', '/v1/chat/completions', key, {
    model: 'hermesx-demo',
    messages: [{ role: 'user', content: 'What is the weather on Mars?' }],
  });
  expect(chat.status).toBe(200);
  const choices = chat.body.choices as { message: { content: string } }[];
  expect(choices[0]?.message.content).toContain('[HermesX demo model]');
  expect(choices[0]?.message.content).toContain('What is the weather on Mars?');

  const job = await api(port, 'POST', '/v1/cron-jobs', key, {
    name: 'demo',
    schedule: '0 3 * * *',
    prompt: 'Summarise the news',
  });
  expect(job.status).toBe(201);
  expect(
    (await api(port, 'POST', `/v1/cron-jobs/${String(job.body.id)}/trigger`, key, {})).status,
  ).toBeLessThan(300);
  await waitFor(
    async () => {
      const runs = await api(port, 'GET', `/v1/cron-jobs/${String(job.body.id)}/runs`, key);
      const data = runs.body.data as { status: string; result: string | null }[];
      expect(data[0]?.status).toBe('success');
      expect(data[0]?.result).toContain('[HermesX demo model]');
    },
    { timeoutMs: 60_000, intervalMs: 250, what: 'the triggered run to succeed' },
  );

  early.catch(() => {});
  running.kill('SIGTERM');
  expect(await exited).toBe(0);
});

it('exists for dev alone: saas-api refuses --demo-model', async () => {
  const cli = spawnCli(['saas-api', '--demo-model'], cliEnv());
  expect((await cli.waitForExit(30_000)).code).toBe(2);
  expect(cli.stderr()).toBe(
    'hermesx: unknown option --demo-model for hermesx saas-api (see hermesx saas-api --help)\n',
  );
});
