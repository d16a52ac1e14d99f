// The benchmark harness at its tiny size, so it cannot rot: a few dozen jobs, W1 on HermesX, on
// HermesX with budgets on every call and on BullMQ, and W5t (contention with 429s) on HermesX, on
// the suite's PostgreSQL and Redis. Zero duplicates, zero misses, every budgeted call priced (so
// reserved and settled) and none refused, every throttled run accounted for, and a report.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase } from '../helpers/database.js';
import { cliEnv, REPO_ROOT } from '../helpers/process-cli.js';

const outDir = mkdtempSync(path.join(os.tmpdir(), 'hermesx-bench-smoke-'));

afterAll(() => {
  rmSync(outDir, { recursive: true, force: true });
});

interface Contention {
  workload: string;
  acc: Window['acc'];
  model: { answered: number; throttled: number };
  outcomes: { status: string; count: number }[];
  small: { perTenant: { runLagMs: number | null }[] };
}

interface Window {
  workload: string;
  system: string;
  acc: {
    expected: number;
    runs: number;
    calls: number;
    runDuplicates: number;
    callDuplicates: number;
    runMisses: number;
    callMisses: number;
  };
}

function runBench(
  args: string[],
  timeoutMs: number,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/run.ts', ...args], {
      cwd: REPO_ROOT,
      env: cliEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // SIGINT lets the harness stop everything it started before it exits.
    const timer = setTimeout(() => child.kill('SIGINT'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('npm run bench -- --size tiny --workloads w1,w5t --systems hermesx,hermesx-budget,bullmq', () => {
  it('runs W1 on the three systems and W5t on HermesX with no duplicate and no miss, and writes a report', async () => {
    const databaseUrl = await createTestDatabase({ migrate: false });
    const { code, output } = await runBench(
      [
        '--size',
        'tiny',
        '--workloads',
        'w1,w5t',
        '--systems',
        'hermesx,hermesx-budget,bullmq',
        '--database-url',
        databaseUrl,
        '--redis-url',
        inject('redisUrl'),
        '--out',
        outDir,
      ],
      190_000,
    );
    expect(code, output).toBe(0);

    const results = JSON.parse(readFileSync(path.join(outDir, 'results.json'), 'utf8')) as {
      windows: Window[];
      contention: Contention[];
    };
    expect(results.windows.map((w) => `${w.system} ${w.workload}`).sort()).toEqual([
      'bullmq w1',
      'hermesx w1',
      'hermesx-budget w1',
    ]);
    for (const w of results.windows) {
      expect(w.acc.expected, w.system).toBeGreaterThan(0);
      expect(w.acc.runs, w.system).toBe(w.acc.expected);
      expect(w.acc.calls, w.system).toBe(w.acc.expected);
      expect(
        [w.acc.runDuplicates, w.acc.callDuplicates, w.acc.runMisses, w.acc.callMisses],
        w.system,
      ).toEqual([0, 0, 0, 0]);
    }

    // W5t: 30 jobs of one tenant and 3 small tenants' jobs at one second, 30 % of requests 429.
    // Whether the scheduler retries them or not, every run is recorded once, and a run succeeds
    // exactly when its occurrence got one answered (200) call.
    expect(results.contention.map((c) => c.workload)).toEqual(['w5t']);
    const [w5t] = results.contention as [Contention];
    expect(w5t.acc.expected).toBe(33);
    expect(w5t.acc.runs).toBe(33);
    expect([w5t.acc.runDuplicates, w5t.acc.runMisses, w5t.acc.callDuplicates]).toEqual([0, 0, 0]);
    expect(w5t.model.throttled).toBeGreaterThan(0);
    const count = (status: string) =>
      w5t.outcomes.filter((o) => o.status === status).reduce((n, o) => n + o.count, 0);
    expect(count('success')).toBe(w5t.model.answered);
    expect(w5t.model.answered + w5t.acc.callMisses).toBe(33);
    expect(w5t.outcomes.reduce((n, o) => n + o.count, 0)).toBe(33);
    expect(w5t.small.perTenant.map((t) => t.runLagMs !== null)).toEqual([true, true, true]);

    // With budgets on, every call of W1 (and any after its window) was priced, none refused.
    const budgeted = results.windows.find((w) => w.system === 'hermesx-budget')!;
    const priced =
      /model calls priced \(reserved and settled\): (\d+); runs refused by a budget: (\d+)/.exec(
        output,
      );
    expect(priced, output).not.toBeNull();
    expect(Number(priced![1])).toBeGreaterThanOrEqual(budgeted.acc.calls);
    expect(Number(priced![2])).toBe(0);

    const report = readFileSync(path.join(outDir, 'benchmarks.md'), 'utf8');
    expect(report).toContain('bench:results:start');
    expect(report).toMatch(/W1 steady/);
    expect(report).toMatch(/\| fire lag p99 \(ms\) +\| +\d/);
    expect(report).toMatch(/HermesX with budgets on and off/);
    expect(report).toMatch(/\| +\| budgets on +\| budgets off +\| on\/off +\|/);
    expect(report).toMatch(/W5 contention/);
    expect(report).toMatch(/\| small tenants: start lag p50 \/ max [^|]*\| +\d/);
    expect(existsSync(path.join(outDir, 'img', 'fire-lag.svg'))).toBe(true);
  }, 230_000);
});
