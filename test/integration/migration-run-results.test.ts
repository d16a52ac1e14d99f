// Migration 200 is written for a cron_job_runs that an earlier migration may have turned into a
// partitioned table (with its CHECKs under other names): here it runs against such a table.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/database.js';
import { REPO_ROOT } from '../helpers/process-cli.js';

let db: pg.Client;

beforeAll(async () => {
  db = new pg.Client({ connectionString: await createTestDatabase({ migrate: false }) });
  await db.connect();
});
afterAll(() => db?.end());

it('applies to a partitioned cron_job_runs whose old checks have other names', async () => {
  await db.query(`
    CREATE TABLE cron_job_runs (
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      cron_job_id uuid NOT NULL,
      tenant_id uuid NOT NULL,
      scheduled_at timestamptz NOT NULL,
      status text NOT NULL,
      result text CONSTRAINT runs_result_len CHECK (length(result) <= 4096),
      error_kind text CONSTRAINT runs_kind CHECK (error_kind IN ('timeout', 'not_recorded')),
      PRIMARY KEY (id, scheduled_at)
    ) PARTITION BY RANGE (scheduled_at);
    CREATE TABLE cron_job_runs_2030 PARTITION OF cron_job_runs
      FOR VALUES FROM ('2030-01-01') TO ('2031-01-01');
  `);
  const sql = readFileSync(
    path.join(REPO_ROOT, 'migrations/200_run_results_and_details.sql'),
    'utf8',
  );
  await db.query(sql);

  const insert = (result: string, kind: string | null) =>
    db.query(
      `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, result, error_kind)
       VALUES (gen_random_uuid(), gen_random_uuid(), '2030-06-01', 'failed', $1, $2)
       RETURNING origin, result_truncated`,
      [result, kind],
    );
  // 8 KiB fits now (the old 4,096-character limit is gone from the parent and the partition).
  expect((await insert('x'.repeat(8192), 'result_not_stored')).rows).toEqual([
    { origin: 'scheduled', result_truncated: false },
  ]);
  await expect(insert('x'.repeat(8193), null)).rejects.toThrow(/cron_job_runs_result_inline_check/);
  await expect(insert('x', 'no_such_kind')).rejects.toThrow(/cron_job_runs_error_kind_check/);
  const { rows } = await db.query<{ conname: string }>(
    `SELECT conname FROM pg_constraint
      WHERE conrelid = 'cron_job_runs_2030'::regclass AND contype = 'c' ORDER BY conname`,
  );
  expect(rows.map((r) => r.conname)).not.toContain('runs_result_len');
  expect(rows.map((r) => r.conname)).not.toContain('runs_kind');
});
