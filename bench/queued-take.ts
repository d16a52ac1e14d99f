// The cost of the pods' take of queued runs (scheduler_take_queued), which every pod calls every
// second: with an empty queue beside a large run history, and with a backlog of queued runs
// spread over many jobs and tenants. Usage: node --import tsx bench/queued-take.ts [--runs N]
// [--queued N] [--jobs N]; prints the median and p95 of each case in ms.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { migrate } from '../src/db/migrate.js';
import { createLogger } from '../src/log.js';
import { numberOption } from './cli-option.js';
import { startBenchPostgres, withClient } from './infra.js';
import { quantile } from './analysis.js';

async function timeTakes(url: string, times: number): Promise<number[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const durations: number[] = [];
  try {
    for (let i = 0; i < times; i++) {
      await client.query('BEGIN');
      const started = performance.now();
      await client.query('SELECT * FROM scheduler_take_queued($1, 100)', ['bench-pod']);
      durations.push(performance.now() - started);
      // Leave the queue as it was: every take sees the same backlog.
      await client.query('ROLLBACK');
    }
  } finally {
    await client.end();
  }
  return durations;
}

async function main(): Promise<void> {
  const runs = numberOption('runs', 100_000);
  const queued = numberOption('queued', 1000);
  const jobs = numberOption('jobs', 1000);
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'hermesx-queued-take-'));
  const postgres = await startBenchPostgres(workDir);
  try {
    await migrate(postgres.url, createLogger({ level: 'warn', format: 'text' }));
    await withClient(postgres.url, async (c) => {
      await c.query(
        `INSERT INTO tenants (name) SELECT 'bench ' || i FROM generate_series(1, 10) i`,
      );
      await c.query(
        `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt)
         SELECT (SELECT id FROM tenants ORDER BY id OFFSET (i % 10) LIMIT 1), 'job ' || i,
                '0 0 1 1 *', 'p'
           FROM generate_series(1, $1) i`,
        [jobs],
      );
      // A finished history: one run a minute per job, going back.
      await c.query(
        `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, pod_id,
                                    finished_at)
         SELECT j.id, j.tenant_id, date_trunc('minute', now()) - (s.n * interval '1 minute'),
                'success', 'old-pod', now()
           FROM (SELECT id, tenant_id, row_number() OVER () AS k FROM cron_jobs) j,
                generate_series(1, ceil($1::numeric / $2)::integer) s (n)`,
        [runs, jobs],
      );
      await c.query('ANALYZE');
    });
    const empty = await timeTakes(postgres.url, 200);
    await withClient(postgres.url, (c) =>
      c.query(
        `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, pod_id, origin,
                                    not_before)
         SELECT j.id, j.tenant_id, date_trunc('minute', now()) + interval '30 seconds'
                - (s.n * interval '1 minute'), 'queued', NULL, 'backfill', now() - interval '1 second'
           FROM (SELECT id, tenant_id FROM cron_jobs ORDER BY id) j,
                generate_series(1, ceil($1::numeric / $2)::integer) s (n)`,
        [queued, jobs],
      ),
    );
    await withClient(postgres.url, (c) => c.query('ANALYZE cron_job_runs'));
    const backlog = await timeTakes(postgres.url, 200);
    const line = (label: string, d: number[]) => {
      const sorted = [...d].sort((a, b) => a - b);
      return `${label}: median ${quantile(sorted, 0.5).toFixed(2)} ms, p95 ${quantile(sorted, 0.95).toFixed(2)} ms`;
    };
    console.log(`history ${runs} runs, ${jobs} jobs in 10 tenants`);
    console.log(line('empty queue', empty));
    console.log(line(`${queued} queued runs (takes 100)`, backlog));
  } finally {
    await postgres.stop();
    rmSync(workDir, { recursive: true, force: true });
  }
}

await main();
