// The outbox triggers also work on a partitioned runs table (PostgreSQL clones the row trigger of
// a partitioned parent, migration 210's, onto every partition, later ones included; the statement
// trigger of migration 390 sees the rows of every partition in its transition tables): the same
// trigger definitions, read from cron_job_runs, are created on a partitioned copy of it.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/database.js';

let db: pg.Client;

beforeAll(async () => {
  db = new pg.Client({ connectionString: await createTestDatabase() });
  await db.connect();
});

afterAll(async () => {
  await db?.end();
});

describe('the outbox on a partitioned runs table', () => {
  it('queues deliveries for runs finished in any partition, one created later too', async () => {
    await db.query(`CREATE TABLE runs_part (LIKE cron_job_runs INCLUDING DEFAULTS)
                      PARTITION BY RANGE (scheduled_at)`);
    await db.query(`CREATE TABLE runs_part_2026 PARTITION OF runs_part
                      FOR VALUES FROM ('2026-01-01') TO ('2027-01-01')`);
    const { rows: triggers } = await db.query<{ def: string }>(
      `SELECT pg_get_triggerdef(oid) AS def FROM pg_trigger
        WHERE tgrelid = 'cron_job_runs'::regclass
          AND tgname IN ('cron_job_runs_webhooks_on_insert', 'cron_job_runs_outbox_on_finish')`,
    );
    expect(triggers.length).toBe(2);
    for (const { def } of triggers) {
      await db.query(def.replace(' ON public.cron_job_runs ', ' ON public.runs_part '));
    }
    await db.query(`CREATE TABLE runs_part_2027 PARTITION OF runs_part
                      FOR VALUES FROM ('2027-01-01') TO ('2028-01-01')`);

    const tenantId = randomUUID();
    const jobId = randomUUID();
    await db.query(`INSERT INTO tenants (id, name) VALUES ($1, 'p')`, [tenantId]);
    await db.query(
      `INSERT INTO cron_jobs (id, tenant_id, name, schedule, prompt) VALUES ($1, $2, 'j', '@daily', 'p')`,
      [jobId, tenantId],
    );
    await db.query(
      `INSERT INTO webhook_endpoints (tenant_id, url, secret) VALUES ($1, 'https://hooks.example.com/', 'whsec_x')`,
      [tenantId],
    );
    const insert = async (at: string, status: string) => {
      const { rows } = await db.query<{ id: string }>(
        `INSERT INTO runs_part (id, cron_job_id, tenant_id, scheduled_at, status, pod_id)
         VALUES (gen_random_uuid(), $1, $2, $3, $4, 'pod') RETURNING id`,
        [jobId, tenantId, at, status],
      );
      return rows[0]!.id;
    };
    const finishedLater = await insert('2026-06-01T08:00:00Z', 'running');
    await db.query(`UPDATE runs_part SET status = 'failed' WHERE id = $1`, [finishedLater]);
    await db.query(`UPDATE runs_part SET error = 'again' WHERE id = $1`, [finishedLater]);
    const recordedFinished = await insert('2027-06-01T08:00:00Z', 'success');
    const stillRunning = await insert('2026-07-01T08:00:00Z', 'running');

    const { rows } = await db.query<{ run_id: string; event_type: string }>(
      'SELECT run_id, event_type FROM webhook_deliveries WHERE tenant_id = $1 ORDER BY event_type',
      [tenantId],
    );
    expect(rows).toEqual([
      { run_id: finishedLater, event_type: 'run.failed' },
      { run_id: recordedFinished, event_type: 'run.succeeded' },
    ]);
    expect(rows.map((row) => row.run_id)).not.toContain(stillRunning);
  });
});
