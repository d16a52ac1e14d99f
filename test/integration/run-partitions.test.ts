// cron_job_runs partitioned by day (migration 111): each partition keeps the tenants apart when
// queried directly, the scheduler's upkeep creates days ahead once however many pods call it, and
// retention drops whole partitions and trims only the tenants that keep less.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenant, type Pool } from '../../src/db/pool.js';
import { listRunsOfJob } from '../../src/db/run-history.js';
import { createPgJobStore } from '../../src/db/job-store.js';
import { createAppPool, createTestDatabase, withOwner } from '../helpers/database.js';

const DAY_MS = 86_400_000;
const RLS_VIOLATION = '42501';

async function partitionsOf(url: string): Promise<string[]> {
  return withOwner(url, async (client) => {
    const { rows } = await client.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'cron_job_runs'::regclass AND c.relkind = 'r' ORDER BY 1`,
    );
    return rows.map((row) => row.name);
  });
}

async function addTenantWithJob(url: string, retentionDays = 30) {
  const tenantId = randomUUID();
  const jobId = randomUUID();
  await withOwner(url, async (client) => {
    await client.query(`INSERT INTO tenants (id, name, run_retention_days) VALUES ($1, 't', $2)`, [
      tenantId,
      retentionDays,
    ]);
    await client.query(
      `INSERT INTO cron_jobs (id, tenant_id, name, schedule, prompt, run_count, last_run_at)
       VALUES ($1, $2, 'j', '* * * * *', 'p', 42, '2026-06-01T00:00:00Z')`,
      [jobId, tenantId],
    );
  });
  return { tenantId, jobId };
}

/** Finished runs of the job at the given times (one per time). */
async function addRuns(url: string, job: { tenantId: string; jobId: string }, at: Date[]) {
  await withOwner(url, (client) =>
    client.query(
      `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, pod_id)
       SELECT $1, $2, s, 'success', 'pod-a' FROM unnest($3::timestamptz[]) AS s`,
      [job.jobId, job.tenantId, at],
    ),
  );
}

const startOfTodayMs = () => Math.floor(Date.now() / DAY_MS) * DAY_MS;
const daysFromToday = (days: number, hours = 12) =>
  new Date(startOfTodayMs() + days * DAY_MS + hours * 3_600_000);

describe('partitioned run history', () => {
  let url: string;
  let pool: Pool;

  beforeAll(async () => {
    url = await createTestDatabase();
    pool = createAppPool(url);
  });
  afterAll(async () => {
    await pool?.end();
  });

  it('has a partition per day from today to a week ahead, one for all before, and a default', async () => {
    const names = await partitionsOf(url);
    const day = (offset: number) =>
      new Date(startOfTodayMs() + offset * DAY_MS).toISOString().slice(0, 10).replaceAll('-', '');
    expect(names).toEqual(
      [
        `cron_job_runs_before_${day(0)}`,
        'cron_job_runs_default',
        ...Array.from({ length: 8 }, (_, i) => `cron_job_runs_p${day(i)}`),
      ].sort(),
    );
  });

  it('creates the days ahead once, however many pods call the upkeep at the same time', async () => {
    const stores = ['pod-a', 'pod-b', 'pod-c'].map((pod) => createPgJobStore(pool, pod));
    const rounds = await Promise.all(stores.map((store) => store.maintainRunHistory(10, 1000)));
    expect(rounds.reduce((sum, round) => sum + round.created, 0)).toBe(3);
    expect(rounds.every((round) => round.dropped === 0 && round.deleted === 0)).toBe(true);
    expect(await partitionsOf(url)).toHaveLength(13);
    expect(await stores[0]?.maintainRunHistory(10, 1000)).toEqual({
      created: 0,
      dropped: 0,
      deleted: 0,
      purgedJobs: [],
    });
  });

  it('shows a tenant none of another tenant’s runs through any partition, queried directly', async () => {
    const a = await addTenantWithJob(url);
    const b = await addTenantWithJob(url);
    // One run of each tenant in every kind of partition: before today, today, ahead, default.
    const times = [daysFromToday(-3), daysFromToday(0), daysFromToday(9), new Date('2099-01-01')];
    await addRuns(url, a, times);
    await addRuns(url, b, times);
    const partitions = await partitionsOf(url);
    let seen = 0;
    for (const partition of partitions) {
      const rows = await withTenant(pool, a.tenantId, async (client) => {
        const result = await client.query<{ tenant_id: string }>(
          `SELECT tenant_id FROM ${partition}`,
        );
        return result.rows;
      });
      expect(rows.every((row) => row.tenant_id === a.tenantId)).toBe(true);
      seen += rows.length;
      if (rows.length === 0) continue;
      // Nor can it write another tenant's row into one.
      await expect(
        withTenant(pool, a.tenantId, (client) =>
          client.query(
            `INSERT INTO ${partition} (cron_job_id, tenant_id, scheduled_at, pod_id)
             SELECT $1, $2, scheduled_at + interval '1 second', 'x' FROM ${partition} LIMIT 1`,
            [b.jobId, b.tenantId],
          ),
        ),
      ).rejects.toMatchObject({ code: RLS_VIOLATION });
    }
    expect(seen).toBe(times.length);
    // Through the parent, the same.
    const all = await withTenant(pool, a.tenantId, (client) =>
      client.query<{ n: number }>('SELECT count(*)::int AS n FROM cron_job_runs'),
    );
    expect(all.rows[0]?.n).toBe(times.length);
  });

  it('pages a job’s runs newest first across partitions, none repeated or skipped', async () => {
    const job = await addTenantWithJob(url);
    const times = [-5, -2, 0, 1, 3, 8].flatMap((d) => [daysFromToday(d, 1), daysFromToday(d, 2)]);
    await addRuns(url, job, [...times, new Date('2099-01-01')]);
    const pages: string[][] = [];
    let before: { at: string; id: string } | null = null;
    for (;;) {
      const rows = await withTenant(pool, job.tenantId, (client) =>
        listRunsOfJob(client, job.jobId, 5, before),
      );
      pages.push(rows.map((row) => row.scheduled_at.toISOString()));
      const last = rows.at(-1);
      if (!last || rows.length < 5) break;
      before = { at: last.page_key, id: last.id };
    }
    const expected = [new Date('2099-01-01'), ...times]
      .map((t) => t.toISOString())
      .sort()
      .reverse();
    expect(pages.flat()).toEqual(expected);
    expect(pages.map((page) => page.length)).toEqual([5, 5, 3]);
  });
});

describe('run retention', () => {
  it('drops whole partitions past the longest retention; trims shorter ones in bounded batches', async () => {
    const url = await createTestDatabase();
    const pool = createAppPool(url);
    try {
      const store = createPgJobStore(pool, 'pod-a');
      const keeps30 = await addTenantWithJob(url, 30);
      const keeps2 = await addTenantWithJob(url, 2);
      const old = [-6, -5, -4, -3].map((d) => daysFromToday(d));
      const recent = [-1, 0, 1].map((d) => daysFromToday(d, 0));
      await addRuns(url, keeps30, [...old, ...recent]);
      await addRuns(url, keeps2, [...old, ...recent]);
      const count = (tenantId: string) =>
        withOwner(url, async (client) => {
          const { rows } = await client.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM cron_job_runs WHERE tenant_id = $1',
            [tenantId],
          );
          return rows[0]?.n;
        });

      // The tenant keeping two days loses its four older runs, at most three per call.
      const call = () =>
        withOwner(url, async (client) => {
          const { rows } = await client.query<{ deleted: number; dropped: number }>(
            'SELECT deleted, dropped FROM scheduler_runs_maintain(7, 3)',
          );
          return rows[0];
        });
      expect(await call()).toEqual({ deleted: 3, dropped: 0 });
      expect(await call()).toEqual({ deleted: 1, dropped: 0 });
      expect(await call()).toEqual({ deleted: 0, dropped: 0 });
      expect(await count(keeps2.tenantId)).toBe(recent.length);
      expect(await count(keeps30.tenantId)).toBe(old.length + recent.length);
      expect((await store.maintainRunHistory(7, 3)).deleted).toBe(0);

      // Forty days on, every partition up to ten days ahead of today is past 30 days: dropped
      // whole, rows and all, while the jobs' counters stay as they were.
      const before = await partitionsOf(url);
      const later = await withOwner(url, async (client) => {
        const { rows } = await client.query<{ dropped: number; created: number }>(
          'SELECT dropped, created FROM scheduler_runs_maintain(7, 1000, $1)',
          [new Date(Date.now() + 40 * DAY_MS)],
        );
        return rows[0];
      });
      expect(later?.dropped).toBe(before.length - 1); // all but the default partition
      expect(later?.created).toBe(8);
      expect(await count(keeps30.tenantId)).toBe(0);
      const jobs = await withOwner(url, (client) =>
        client.query<{ run_count: string; last_run_at: Date }>(
          'SELECT run_count, last_run_at FROM cron_jobs WHERE id = ANY ($1::uuid[])',
          [[keeps30.jobId, keeps2.jobId]],
        ),
      );
      for (const job of jobs.rows) {
        expect(job).toEqual({ run_count: '42', last_run_at: new Date('2026-06-01T00:00:00Z') });
      }
    } finally {
      await pool.end();
    }
  });

  it('removes the tool calls of runs that are gone, and keeps those of runs still there', async () => {
    const url = await createTestDatabase();
    const job = await addTenantWithJob(url, 30);
    await addRuns(url, job, [daysFromToday(0, 1), daysFromToday(0, 2)]);
    const toolCalls = () =>
      withOwner(url, async (client) => {
        const { rows } = await client.query<{ run_id: string }>(
          'SELECT run_id FROM cron_run_tool_calls ORDER BY run_id',
        );
        return rows.map((row) => row.run_id);
      });
    const [kept, gone] = await withOwner(url, async (client) => {
      const { rows } = await client.query<{ id: string }>(
        'SELECT id FROM cron_job_runs ORDER BY scheduled_at',
      );
      for (const row of rows) {
        await client.query(
          `INSERT INTO cron_run_tool_calls (run_id, seq, tenant_id, tool, arguments, status,
                                            duration_ms, created_at)
           VALUES ($1, 1, $2, 'skill', '{}', 'ok', 1, now() - interval '2 hours')`,
          [row.id, job.tenantId],
        );
      }
      await client.query('DELETE FROM cron_job_runs WHERE id = $1', [rows[1]!.id]);
      return [rows[0]!.id, rows[1]!.id];
    });
    expect((await toolCalls()).sort()).toEqual([kept, gone].sort());
    await withOwner(url, (client) => client.query('SELECT * FROM scheduler_runs_maintain(7, 100)'));
    expect(await toolCalls()).toEqual([kept]);
  });

  it('purges a deleted job once its last run is gone and an hour has passed, never before', async () => {
    const url = await createTestDatabase();
    const jobs = {
      purged: await addTenantWithJob(url),
      withRuns: await addTenantWithJob(url),
      justDeleted: await addTenantWithJob(url),
      live: await addTenantWithJob(url),
    };
    await addRuns(url, jobs.withRuns, [daysFromToday(0, 1)]);
    await withOwner(url, async (client) => {
      for (const job of [jobs.purged, jobs.withRuns]) {
        await client.query(
          `UPDATE cron_jobs SET deleted_at = now() - interval '2 hours' WHERE id = $1`,
          [job.jobId],
        );
      }
      await client.query(
        `UPDATE cron_jobs SET deleted_at = now() - interval '10 minutes' WHERE id = $1`,
        [jobs.justDeleted.jobId],
      );
    });
    const appPool = createAppPool(url);
    try {
      const done = await createPgJobStore(appPool, 'purge-test').maintainRunHistory(7, 1000);
      expect(done.purgedJobs).toEqual([jobs.purged]);
    } finally {
      await appPool.end();
    }
    const left = await withOwner(url, async (client) => {
      const { rows } = await client.query<{ id: string }>('SELECT id FROM cron_jobs');
      return rows.map((row) => row.id).sort();
    });
    expect(left).toEqual([jobs.withRuns.jobId, jobs.justDeleted.jobId, jobs.live.jobId].sort());
  });
});
