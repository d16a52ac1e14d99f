// `npm run verify:cluster` as a user runs it: the guide's multi-pod mutual exclusion and fault
// recovery verifications on three real replicas behind nginx (installed by the script when
// missing). The script must pass every check, then leave no process and no temp dir behind.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../scripts/verify/cluster/report.js';
import { spawnProcess } from '../helpers/process-cli.js';
import { isAlive } from '../helpers/process-wait.js';

const RUN_TIMEOUT_MS = 180_000;

describe('npm run verify:cluster', () => {
  it(
    'passes every check of both verifications and stops everything it started',
    async () => {
      const run = spawnProcess(
        process.execPath,
        ['--import', 'tsx', 'scripts/verify/cluster/verify-cluster.ts'],
        process.env,
      );
      let exit: Awaited<ReturnType<typeof run.waitForExit>>;
      try {
        exit = await run.waitForExit(RUN_TIMEOUT_MS);
      } catch (err) {
        // Too slow: let the script stop what it started (SIGTERM), then make sure it is gone.
        process.kill(run.pid, 'SIGTERM');
        await run.waitForExit(30_000).catch(() => run.kill());
        throw err;
      }
      const output = run.stdout();
      const context = `${output.slice(-12_000)}\nstderr: ${run.stderr().slice(-3000)}`;
      expect(exit, context).toEqual({ code: 0, signal: null });

      // Every check passed, the PostgreSQL restart's included (part of the default run).
      const names = Object.values(CHECKS);
      for (const name of names) {
        expect(output, `PASS line for "${name}"`).toContain(`\nPASS  ${name}\n`);
      }
      expect(output, context).not.toMatch(/^FAIL /m);
      expect(output, context).not.toContain('] SKIP ');
      const total = names.length;
      expect(output).toContain(`RESULT: PASS (${total} of ${total} checks passed)`);
      // The footer's counts and the faults' times.
      expect(output).toMatch(/^pipeline +runs \d+, .*duplicates \d+ \(same id\), lost 0$/m);
      expect(output).toMatch(
        /^failover +Redis primary killed → replica promoted \d+\.\d s, every replica scheduling again \d+\.\d s$/m,
      );
      expect(output).toMatch(
        /^pg restart +PostgreSQL down \d+\.\d s; every job run again \d+\.\d s/m,
      );

      // Every process named in the report's header is gone, and so is the temp dir.
      const pids = [...output.matchAll(/ pid (\d+)/g)].map((match) => Number(match[1]));
      expect(
        pids.length,
        'nginx, three replicas, PostgreSQL, the Redis primary and replica, three sentinels',
      ).toBeGreaterThanOrEqual(10);
      for (const pid of pids) expect(isAlive(pid), `pid ${pid} still alive`).toBe(false);
      const tmpDir = /^temp dir +(\S+)/m.exec(output)?.[1];
      expect(tmpDir).toBeDefined();
      expect(existsSync(tmpDir!), `${tmpDir} removed`).toBe(false);
    },
    RUN_TIMEOUT_MS + 40_000,
  );
});
