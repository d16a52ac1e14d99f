// The benchmark harness at its tiny size, so it cannot rot: a few dozen jobs, W1 only, both
// systems, on the suite's PostgreSQL and Redis. Zero duplicates, zero misses, and a report.
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

describe('npm run bench -- --size tiny', () => {
  it('runs W1 on both systems with no duplicate and no miss, and writes a report', async () => {
    const databaseUrl = await createTestDatabase({ migrate: false });
    const { code, output } = await runBench(
      [
        '--size',
        'tiny',
        '--database-url',
        databaseUrl,
        '--redis-url',
        inject('redisUrl'),
        '--out',
        outDir,
      ],
      110_000,
    );
    expect(code, output).toBe(0);

    const results = JSON.parse(readFileSync(path.join(outDir, 'results.json'), 'utf8')) as {
      windows: Window[];
    };
    expect(results.windows.map((w) => `${w.system} ${w.workload}`).sort()).toEqual([
      'bullmq w1',
      'hermesx w1',
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

    const report = readFileSync(path.join(outDir, 'benchmarks.md'), 'utf8');
    expect(report).toContain('bench:results:start');
    expect(report).toMatch(/W1 steady/);
    expect(report).toMatch(/\| fire lag p99 \(ms\) +\| +\d/);
    expect(existsSync(path.join(outDir, 'img', 'fire-lag.svg'))).toBe(true);
  }, 150_000);
});
