// Ctrl-C in `hermesx dev` with a run in flight: the terminal sends SIGINT to the whole
// foreground process group. The service must stop first and let the run finish and be recorded;
// the embedded PostgreSQL and Redis stop last (they once died with the service, and the run was
// later marked pod_lost).
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { findFreePort } from '../../src/dev/processes.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { cliEnv, REPO_ROOT } from '../helpers/process-cli.js';
import { waitFor } from '../helpers/process-wait.js';

let child: ChildProcess | undefined;
let dir: string | undefined;
let llm: FakeLlm | undefined;

afterEach(async () => {
  if (child?.pid && child.exitCode === null && child.signalCode === null) {
    const gone = new Promise((resolve) => child?.once('exit', resolve));
    process.kill(-child.pid, 'SIGKILL');
    await gone;
  }
  await llm?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  child = undefined;
  dir = undefined;
  llm = undefined;
});

it(
  'stops the service first on Ctrl-C: the run in flight finishes and is recorded',
  { timeout: 240_000 },
  async () => {
    llm = await startFakeLlm();
    llm.setHandler(() => ({ content: 'finished after Ctrl-C', delayMs: 3000 }));
    dir = mkdtempSync(path.join(os.tmpdir(), 'hermesx-dev-ctrl-c-'));
    chmodSync(dir, 0o755);
    symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    const port = await findFreePort();
    // Its own process group, as a shell gives a foreground job: SIGINT to the group is Ctrl-C.
    child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(REPO_ROOT, 'src', 'cli.ts'), 'dev'],
      {
        cwd: dir,
        detached: true,
        env: cliEnv({
          SAAS_API_PORT: String(port),
          LLM_API_URL: llm.url,
          SCHEDULER_SHUTDOWN_GRACE: '20s',
        }),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const running = child;
    const exited = new Promise<number | null>((resolve) => running.once('exit', resolve));
    const key = await waitFor(
      () => {
        expect(out).toContain('msg="scheduler started"');
        const match = /Tenant API key: (\S+)/.exec(out);
        expect(match).not.toBeNull();
        return match?.[1] ?? '';
      },
      { timeoutMs: 180_000, intervalMs: 200, what: 'dev to start with its scheduler' },
    );
    const api = (route: string, body?: object) =>
      fetch(`http://127.0.0.1:${port}${route}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body ?? {}),
      });
    const created = await api('/v1/cron-jobs', {
      name: 'ctrl-c',
      schedule: '0 0 1 1 *',
      prompt: 'take three seconds',
    });
    expect(created.status).toBe(201);
    const job = (await created.json()) as { id: string };
    expect((await api(`/v1/cron-jobs/${job.id}/trigger`)).status).toBe(202);
    await llm.waitForCalls(1, 30_000);

    process.kill(-(running.pid ?? 0), 'SIGINT');
    expect(await exited).toBe(0);
    expect(llm.calls[0]?.aborted).toBe(false);
    const executed = out.split('\n').find((line) => line.includes('msg="cron job executed"'));
    expect(executed, out.slice(-3000)).toContain('status=success');
    expect(executed).not.toContain('recorded=false');
    expect(out).not.toContain('cannot record run');
  },
);
