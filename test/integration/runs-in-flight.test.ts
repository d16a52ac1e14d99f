// cron_job_runs_in_flight (migration 313): the runs in flight beside the partitioned history,
// kept by statement triggers whatever writes cron_job_runs (the scheduler's functions, the app
// role's cancel, a job's delete), and set right again by the hourly maintenance round.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgJobStore } from '../../src/db/job-store.js';
import { withTenant, type Pool } from '../../src/db/pool.js';
import { createAppPool, createTestDatabase, withOwner } from '../helpers/database.js';

const ok = { success: true, result: 'ok', error: null, errorKind: null, attempts: 1 };
let url: string;
let pool: Pool;
let tenantId: string;

beforeAll(async () => {
  url = await createTestDatabase();
  pool = createAppPool(url);
  tenantId = randomUUID();
  await sql(`INSERT INTO tenants (id, name, max_concurrent_runs) VALUES ($1, 'in-flight', 0)`, [
    tenantId,
  ]);
});
afterAll(async () => {
  await pool?.end();
});

const sql = <R extends object>(text: string, values: unknown[] = []) =>
  withOwner(url, (client) => client.query<R>(text, values));

async function addJob(): Promise<string> {
  const id = randomUUID();
  await sql(
    `INSERT INTO cron_jobs (id, tenant_id, name, schedule, prompt) VALUES ($1, $2, 'j', '* * * * *', 'p')`,
    [id, tenantId],
  );
  return id;
}

/** The run ids the side table holds for these jobs, and those cron_job_runs says are in flight. */
async function inFlight(jobIds: string[]): Promise<{ side: string[]; runs: string[] }> {
  const side = await sql<{ run_id: string }>(
    'SELECT run_id FROM cron_job_runs_in_flight WHERE cron_job_id = ANY($1) ORDER BY run_id',
    [jobIds],
  );
  const runs = await sql<{ id: string }>(
    `SELECT id FROM cron_job_runs WHERE cron_job_id = ANY($1) AND status IN ('claimed', 'running')
      ORDER BY id`,
    [jobIds],
  );
  return { side: side.rows.map((r) => r.run_id), runs: runs.rows.map((r) => r.id) };
}

async function claim(podId: string, jobId: string, at: Date): Promise<string> {
  const answer = await createPgJobStore(pool, podId).claimRun(jobId, at, podId, null, 'scheduled');
  if (answer.kind !== 'claimed') throw new Error(`not claimed: ${answer.kind}`);
  return answer.run.runId;
}

describe('runs in flight', () => {
  it('follows claims, finishes and failures, and refuses a second run of a job in flight', async () => {
    const [a, b] = [await addJob(), await addJob()];
    const at = new Date(Math.floor(Date.now() / 60_000) * 60_000);
    const runA = await claim('pod-a', a, at);
    const runB = await claim('pod-a', b, at);
    expect(await inFlight([a, b])).toEqual({
      side: [runA, runB].sort(),
      runs: [runA, runB].sort(),
    });

    // The job's next occurrence is refused while its run is in flight.
    const store = createPgJobStore(pool, 'pod-b');
    const later = new Date(at.getTime() + 60_000);
    expect((await store.claimRun(a, later, 'pod-b', null, 'scheduled')).kind).toBe('taken');

    const storeA = createPgJobStore(pool, 'pod-a');
    expect(await storeA.finishRun(runA, ok, 'pod-a', at)).toBe('recorded');
    expect(
      (await storeA.failRuns([runB], 'gone', 'pod_lost')).map((failed) => failed.runId),
    ).toEqual([runB]);
    expect(await inFlight([a, b])).toEqual({ side: [], runs: [] });
    expect((await store.claimRun(a, later, 'pod-b', null, 'scheduled')).kind).toBe('claimed');
  });

  it('a finish without the nominal time still finds its run', async () => {
    const job = await addJob();
    const at = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 120_000);
    const run = await claim('pod-a', job, at);
    expect(await createPgJobStore(pool, 'pod-a').finishRun(run, ok, 'pod-a')).toBe('recorded');
    expect(await inFlight([job])).toEqual({ side: [], runs: [] });
  });

  it('follows the app role’s writes and a deleted job’s runs', async () => {
    const job = await addJob();
    const at = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 180_000);
    const run = await claim('pod-a', job, at);
    await withTenant(pool, tenantId, (client) =>
      client.query(`UPDATE cron_job_runs SET status = 'failed' WHERE id = $1`, [run]),
    );
    expect(await inFlight([job])).toEqual({ side: [], runs: [] });

    const other = await addJob();
    const otherRun = await claim('pod-a', other, at);
    expect((await inFlight([other])).side).toEqual([otherRun]);
    await withTenant(pool, tenantId, (client) =>
      client.query('DELETE FROM cron_job_runs WHERE cron_job_id = $1', [other]),
    );
    expect(await inFlight([other])).toEqual({ side: [], runs: [] });
  });

  it('is not readable by the app role', async () => {
    await expect(
      withTenant(pool, tenantId, (client) => client.query('SELECT * FROM cron_job_runs_in_flight')),
    ).rejects.toThrow(/permission denied/);
  });

  it('the maintenance round removes rows of runs that are gone or settled', async () => {
    const job = await addJob();
    const at = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 240_000);
    const run = await claim('pod-a', job, at);
    // What a dropped partition leaves behind: a row whose run is not there.
    const ghost = randomUUID();
    await sql(
      `INSERT INTO cron_job_runs_in_flight (run_id, cron_job_id, tenant_id, scheduled_at)
       VALUES ($1, $2, $3, now() - interval '40 days')`,
      [ghost, job, tenantId],
    );
    await sql('SELECT scheduler_runs_maintain(1, 100)');
    expect((await inFlight([job])).side).toEqual([run]);

    // What a write with triggers disabled leaves behind: a run in flight the table lacks.
    const silent = await addJob();
    const missing = await withOwner(url, async (client) => {
      await client.query(`SET session_replication_role = replica`);
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, pod_id)
         VALUES ($1, $2, now(), 'running', 'pod-x') RETURNING id`,
        [silent, tenantId],
      );
      return rows[0]!.id;
    });
    expect((await inFlight([silent])).side).toEqual([]);
    await sql('SELECT scheduler_runs_maintain(1, 100)');
    expect(await inFlight([silent])).toEqual({ side: [missing], runs: [missing] });
  });

  it('TRUNCATE of the history empties it', async () => {
    const scratch = await createTestDatabase();
    const scratchPool = createAppPool(scratch);
    try {
      const job = randomUUID();
      await withOwner(scratch, (c) =>
        c.query(
          `INSERT INTO cron_jobs (id, tenant_id, name, schedule, prompt)
           VALUES ($1, '00000000-0000-0000-0000-000000000001', 'j', '* * * * *', 'p')`,
          [job],
        ),
      );
      const answer = await createPgJobStore(scratchPool, 'pod-a').claimRun(
        job,
        new Date(),
        'pod-a',
        null,
        'scheduled',
      );
      expect(answer.kind).toBe('claimed');
      const count = () =>
        withOwner(scratch, async (c) => {
          const { rows } = await c.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM cron_job_runs_in_flight',
          );
          return rows[0]?.n;
        });
      expect(await count()).toBe(1);
      await withOwner(scratch, (c) => c.query('TRUNCATE cron_job_runs CASCADE'));
      expect(await count()).toBe(0);
    } finally {
      await scratchPool.end();
    }
  });
});
