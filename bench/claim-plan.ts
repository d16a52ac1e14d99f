// What claiming and recording a run cost PostgreSQL, from one connection (so wall time is
// PostgreSQL's time): 10,000 jobs of 100 tenants without endpoints or channels, claimed in
// batches of 100 through scheduler_claim and finished through scheduler_finish, seven rounds
// (the median printed), each after VACUUM ANALYZE. So the claim's plan is made while
// cron_job_runs_in_flight's statistics say "empty" (as after autovacuum at a quiet moment), and
// the table churns as in a burst: every run of a round goes in and out before autovacuum passes.
//   node --import tsx bench/claim-plan.ts [--seqscan on]
// --seqscan on gives the claim back the planner's sequential scans (the function's setting
// reset), to compare with the plan as shipped.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migrate } from '../src/db/migrate.js';
import { createLogger } from '../src/log.js';
import { startBenchPostgres, withClient } from './infra.js';

const JOBS = 10_000;
const BATCH = 100;
// Rounds, of which the median is printed: a single round varies by ±30 % on a busy 2-core machine.
const ROUNDS = 7;
const log = (line: string) => process.stdout.write(`[claim-plan] ${line}\n`);

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

/** Claims every job's occurrence at `at` (straight into running), in batches, in one call. */
const claimAll = (at: string) => `DO $$ DECLARE b uuid[]; BEGIN
  FOR b IN SELECT array_agg(id) FROM (SELECT id, row_number() OVER () / ${BATCH} AS g
                                        FROM cron_jobs) x GROUP BY g LOOP
    PERFORM * FROM scheduler_claim(b, array_fill('${at}'::timestamptz, ARRAY[cardinality(b)]),
      array_fill('${at}'::timestamptz + interval '1 min', ARRAY[cardinality(b)]), 'bench-pod',
      array_fill('scheduled'::text, ARRAY[cardinality(b)]));
  END LOOP; END $$`;

/** Finishes every running run, successful with one priced model call, in batches. */
const finishAll = `DO $$ DECLARE b uuid[]; s timestamptz[]; BEGIN
  FOR b, s IN SELECT array_agg(id), array_agg(scheduled_at)
                FROM (SELECT id, scheduled_at, row_number() OVER () / ${BATCH} AS g
                        FROM cron_job_runs WHERE status = 'running') x GROUP BY g LOOP
    PERFORM * FROM scheduler_finish(b, array_fill(true, ARRAY[cardinality(b)]),
      array_fill('ok'::text, ARRAY[cardinality(b)]), array_fill(NULL::text, ARRAY[cardinality(b)]),
      array_fill(NULL::text, ARRAY[cardinality(b)]), array_fill(1, ARRAY[cardinality(b)]),
      'bench-pod', array_fill(('{"usage": {"prompt_tokens": 120, "cached_tokens": 0, '
        '"completion_tokens": 12, "cost_micros": 42}, "usage_calls": [{"model": "m", '
        '"prompt_tokens": 120, "cached_tokens": 0, "completion_tokens": 12, '
        '"cost_micros": 42}]}')::jsonb, ARRAY[cardinality(b)]), s);
  END LOOP; END $$`;

async function main(): Promise<void> {
  const seqscan = process.argv[process.argv.indexOf('--seqscan') + 1] === 'on';
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'claim-plan-'));
  const pg = await startBenchPostgres(workDir);
  try {
    await migrate(pg.url, createLogger({ format: 'text', level: 'error' }));
    await withClient(pg.url, async (c) => {
      await c.query(`INSERT INTO tenants (name, max_concurrent_runs)
                     SELECT 'bench tenant ' || n, NULL FROM generate_series(1, 100) n`);
      await c.query(
        `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt, next_run_at)
         SELECT t.ids[1 + n % 100], 'job ' || n, '0 * * * * *', 'Summarise the alerts.', $2
           FROM generate_series(1, $1) n, (SELECT array_agg(id) AS ids FROM tenants) t`,
        [JOBS, '2030-01-01T00:00:00Z'],
      );
      if (seqscan) {
        await c.query(`ALTER FUNCTION scheduler_claim(uuid[], timestamptz[], timestamptz[], text,
                       text[]) RESET enable_seqscan`);
      }
      log(
        `${JOBS} jobs, batches of ${BATCH}, one connection; sequential scans ${seqscan ? 'allowed' : 'off (as shipped)'}`,
      );
      const claims: number[] = [];
      const finishes: number[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        await c.query('VACUUM ANALYZE');
        const at = new Date(Date.UTC(2030, 0, 1, round)).toISOString();
        let t = process.hrtime.bigint();
        await c.query(claimAll(at));
        const claimUs = Number(process.hrtime.bigint() - t) / 1e3 / JOBS;
        t = process.hrtime.bigint();
        await c.query(finishAll);
        const finishUs = Number(process.hrtime.bigint() - t) / 1e3 / JOBS;
        claims.push(claimUs);
        finishes.push(finishUs);
        log(
          `round ${round}: claim ${claimUs.toFixed(1)} µs a run, finish ${finishUs.toFixed(1)} µs a run`,
        );
      }
      log(
        `median: claim ${median(claims).toFixed(1)} µs a run, finish ${median(finishes).toFixed(1)} µs a run`,
      );
    });
  } finally {
    await pg.stop();
    rmSync(workDir, { recursive: true, force: true });
  }
}

await main();
