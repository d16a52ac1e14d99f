// The scheduler's JobStore on a real PostgreSQL, as the app role: what a pod loads, claims and
// records, through the SECURITY DEFINER functions (migrations/functions/).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pool } from '../../src/db/pool.js';
import type { JobStore } from '../../src/scheduler/ports.js';
import { createPgJobStore } from '../../src/db/job-store.js';
import { createAppPool, createTestDatabase, withOwner } from '../helpers/database.js';

/** The start of the catch-up window the planning sweep passes: before every run of these tests. */
const SINCE = new Date('2000-01-01T00:00:00Z');

const TENANT = '00000000-0000-0000-0000-000000000001';

describe('PostgreSQL job store', () => {
  let url: string;
  let pool: Pool;
  let store: JobStore;

  beforeAll(async () => {
    url = await createTestDatabase();
    pool = createAppPool(url);
    store = createPgJobStore(pool, 'pod-a');
  });

  afterAll(async () => {
    await pool?.end();
  });

  /** A job inserted as the owner (as plain SQL would), returning its id. */
  async function insertJob(fields: { prompt?: string; tenantId?: string } = {}): Promise<string> {
    const id = randomUUID();
    await withOwner(url, (client) =>
      client.query(
        `INSERT INTO cron_jobs (id, tenant_id, name, schedule, prompt) VALUES ($1, $2, $3, '* * * * *', $4)`,
        [id, fields.tenantId ?? TENANT, `job ${id.slice(0, 8)}`, fields.prompt ?? 'v1'],
      ),
    );
    return id;
  }

  const sql = (text: string, values: unknown[] = []) =>
    withOwner(url, (client) => client.query(text, values));

  it('loads what scheduling needs, without names or prompts', async () => {
    const id = await insertJob({ prompt: 'x'.repeat(4000) });
    const [job] = await store.loadJobs([id]);
    expect(job).toEqual({
      id,
      tenantId: TENANT,
      schedule: '* * * * *',
      timezone: 'UTC',
      dueFrom: expect.any(Date),
      updatedAt: expect.any(Date),
      nextRunAt: null,
    });
  });

  it('refuses a deleted job, and records cancelled a run claimed before the delete', async () => {
    const id = await insertJob();
    const at = new Date('2026-01-01T00:01:00Z');
    const claim = await store.claimRun(id, at, 'pod-a');
    const runId = claim.kind === 'claimed' ? claim.run.runId : '';
    expect(runId).not.toBe('');
    // The delete commits while the claim's run is not yet sent (a claim it could not see).
    await sql(`UPDATE cron_jobs SET deleted_at = now(), enabled = false WHERE id = $1`, [id]);
    expect(await store.markSent(runId, 'pod-a')).toBe(false);
    const { rows } = await sql(
      `SELECT status, error_kind, error, finished_at IS NOT NULL AS finished
         FROM cron_job_runs WHERE id = $1`,
      [runId],
    );
    expect(rows[0]).toEqual({
      status: 'failed',
      error_kind: 'cancelled',
      error: 'cancelled: the job was deleted',
      finished: true,
    });
    // Nothing more is claimed for it, even re-enabled behind the API's back.
    await sql(`UPDATE cron_jobs SET enabled = true WHERE id = $1`, [id]);
    expect(await store.claimRun(id, new Date('2026-01-01T00:02:00Z'), 'pod-a')).toEqual({
      kind: 'taken',
    });
    expect(await store.loadJobs([id])).toEqual([]);
  });

  it('claims each occurrence once, with the name and prompt committed at the claim', async () => {
    const id = await insertJob({ prompt: 'v1' });
    await store.loadJobs([id]);
    await sql(
      `UPDATE cron_jobs SET prompt = 'v2', max_run_tokens = 500, daily_budget_micros = 7000000
        WHERE id = $1`,
      [id],
    );
    const at = new Date('2026-01-01T00:01:00Z');

    // Claims made together go in one statement; each caller gets its own answer.
    const [first, again] = await Promise.all([
      store.claimRun(id, at, 'pod-a'),
      store.claimRun(id, at, 'pod-a'),
    ]);
    expect(first).toEqual({
      kind: 'claimed',
      run: {
        runId: expect.any(String),
        name: `job ${id.slice(0, 8)}`,
        prompt: 'v2',
        timeoutMs: null,
        model: null,
        // What the agent reads comes with the claim: the job's settings, the tenant's version,
        // its answer settings (free text, no models of its own, no notify rule `agent`).
        agent: {
          skills: [],
          previousResult: false,
          tenantVersion: '0',
          answer: { outputSchema: null, models: null, notifyAgent: false },
          // The budgets its model calls are held to: the tenant has none, the job two.
          limits: {
            monthlyMicros: null,
            monthlyTokens: null,
            jobDailyMicros: 7_000_000,
            runTokens: 500,
          },
        },
      },
    });
    const taken = { kind: 'taken' };
    expect(again).toEqual(taken);
    // Still in flight: a later occurrence of the same job is refused.
    expect(await store.claimRun(id, new Date('2026-01-01T00:02:00Z'), 'pod-a')).toEqual(taken);

    const next = new Date('2026-01-01T00:02:00Z');
    const outcome = { success: true, result: 'done', error: null, errorKind: null, attempts: 1 };
    const runId = first.kind === 'claimed' ? first.run.runId : '';
    expect(await store.finishRun(runId, outcome, 'pod-a')).toBe('recorded');
    expect(await store.finishRun(runId, outcome, 'pod-a')).toBe(false);
    const { rows } = await sql(
      `SELECT run_count, last_run_success, next_run_at FROM cron_jobs WHERE id = $1`,
      [id],
    );
    expect(rows[0]).toEqual({ run_count: '1', last_run_success: true, next_run_at: null }); // bigint as text
    expect(await store.claimRun(id, at, 'pod-b')).toEqual(taken);
    // Re-planned (next_run_at cleared), the sweep sees the latest claimed occurrence.
    await sql(`UPDATE cron_jobs SET next_run_at = NULL WHERE id = $1`, [id]);
    const taken0: unknown[] = [];
    await store.planJobs([id], 10, SINCE, (jobs) => {
      taken0.push(...jobs);
      return jobs.map(() => next);
    });
    expect(taken0).toEqual([expect.objectContaining({ id, lastScheduledAt: at, nextRunAt: null })]);
  });

  it('retries a batch the database refused item by item, so only the bad item fails', async () => {
    const ids = [await insertJob(), await insertJob(), await insertJob()];
    const at = new Date('2026-01-01T00:07:00Z');
    const claims = await Promise.all(ids.map((id) => store.claimRun(id, at, 'pod-a')));
    const runIds = claims.map((c) => (c.kind === 'claimed' ? c.run.runId : ''));
    const ok = { success: true, result: 'fine', error: null, errorKind: null, attempts: 1 };
    // An error kind the table does not allow makes the whole batched statement fail.
    const bad = { ...ok, success: false, error: 'x', errorKind: 'no_such_kind' as 'timeout' };
    const results = await Promise.allSettled([
      store.finishRun(runIds[0] as string, ok, 'pod-a'),
      store.finishRun(runIds[1] as string, bad, 'pod-a'),
      store.finishRun(runIds[2] as string, ok, 'pod-a'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const { rows } = await sql(
      `SELECT id, status FROM cron_job_runs WHERE id = ANY ($1::uuid[]) ORDER BY array_position($1::uuid[], id)`,
      [runIds],
    );
    expect(rows.map((row) => row.status)).toEqual(['success', 'claimed', 'success']);
  });

  it('refuses disabled jobs and jobs of deleted tenants', async () => {
    const disabled = await insertJob();
    await sql(`UPDATE cron_jobs SET enabled = false WHERE id = $1`, [disabled]);
    const tenant = randomUUID();
    await sql(`INSERT INTO tenants (id, name) VALUES ($1, 'gone')`, [tenant]);
    const orphan = await insertJob({ tenantId: tenant });
    await sql(`UPDATE tenants SET deleted_at = now() WHERE id = $1`, [tenant]);

    const at = new Date('2026-01-01T00:05:00Z');
    expect(await store.claimRun(disabled, at, 'pod-a')).toEqual({ kind: 'taken' });
    expect(await store.claimRun(orphan, at, 'pod-a')).toEqual({ kind: 'taken' });
    expect(await store.loadJobs([disabled, orphan])).toEqual([]);
  });

  it('pods sweeping at the same time plan different jobs (FOR UPDATE SKIP LOCKED)', async () => {
    const ids = (await Promise.all(Array.from({ length: 6 }, () => insertJob()))).sort();
    const next = new Date('2031-06-01T00:00:00Z');
    const planned: string[] = [];
    const plan = (jobs: readonly { id: string }[]) => {
      planned.push(...jobs.map((job) => job.id));
      return jobs.map(() => next);
    };
    await withOwner(url, async (client) => {
      // Another pod's sweep holds the first three rows (its transaction is still open)...
      await client.query('BEGIN');
      await client.query('SELECT id FROM cron_jobs WHERE id = ANY ($1::uuid[]) FOR UPDATE', [
        ids.slice(0, 3),
      ]);
      // ...so this one takes the other three at once instead of waiting for them.
      expect(await store.planJobs(ids, 10, SINCE, plan)).toBe(3);
      expect([...planned].sort()).toEqual(ids.slice(3));
      await client.query('ROLLBACK');
    });
    expect(await store.planJobs(ids, 10, SINCE, plan)).toBe(3);
    expect([...planned].sort()).toEqual(ids);
    expect(await store.planJobs(ids, 10, SINCE, plan)).toBe(0);
  });

  it('the sweep takes jobs sharing a schedule together and reads on from its last batch, wrapping once', async () => {
    const next = new Date('2031-06-01T00:00:00Z');
    const drain = createPgJobStore(pool, 'pod-drain');
    while ((await drain.planJobs(null, 1000, SINCE, (jobs) => jobs.map(() => next))) > 0);
    const insert = async (schedule: string) => {
      const id = randomUUID();
      await sql(
        `INSERT INTO cron_jobs (id, tenant_id, name, schedule, prompt) VALUES ($1, $2, $3, $4, 'p')`,
        [id, TENANT, `sweep ${id.slice(0, 8)}`, schedule],
      );
      return id;
    };
    const ids: Record<string, string[]> = {};
    for (const schedule of ['3 * * * *', '1 * * * *', '2 * * * *', '1 * * * *', '2 * * * *']) {
      (ids[schedule] ??= []).push(await insert(schedule));
    }
    const sweeper = createPgJobStore(pool, 'pod-sweep');
    const batches: string[][] = [];
    const plan = (jobs: readonly { id: string; schedule: string }[]) => {
      batches.push(jobs.map((job) => job.schedule));
      return jobs.map(() => next);
    };
    expect(await sweeper.planJobs(null, 2, SINCE, plan)).toBe(2);
    expect(await sweeper.planJobs(null, 2, SINCE, plan)).toBe(2);
    // Written after the cursor passed its place in the order: found when the sweep wraps.
    const early = await insert('0 * * * *');
    expect(await sweeper.planJobs(null, 2, SINCE, plan)).toBe(2);
    expect(await sweeper.planJobs(null, 2, SINCE, plan)).toBe(0);
    expect(batches).toEqual([
      ['1 * * * *', '1 * * * *'],
      ['2 * * * *', '2 * * * *'],
      ['3 * * * *', '0 * * * *'],
    ]);
    const { rows } = await sql(
      `SELECT count(*)::int AS n FROM cron_jobs WHERE id = ANY ($1::uuid[]) AND next_run_at = $2`,
      [[...Object.values(ids).flat(), early], next],
    );
    expect(rows[0]?.n).toBe(6);
  });

  it('a schedule changed by plain SQL is re-planned; an edit that writes next_run_at keeps it', async () => {
    const id = await insertJob();
    await store.planJobs([id], 10, SINCE, (jobs) =>
      jobs.map(() => new Date('2031-01-01T00:00:00Z')),
    );
    await sql(`UPDATE cron_jobs SET schedule = '0 * * * *' WHERE id = $1`, [id]);
    const read = async () =>
      (await sql(`SELECT next_run_at FROM cron_jobs WHERE id = $1`, [id])).rows[0]?.next_run_at;
    expect(await read()).toBeNull();
    await sql(`UPDATE cron_jobs SET schedule = '5 * * * *', next_run_at = $2 WHERE id = $1`, [
      id,
      new Date('2031-01-01T00:05:00Z'),
    ]);
    expect(await read()).toEqual(new Date('2031-01-01T00:05:00Z'));
    // A prompt edit is not a schedule change.
    await sql(`UPDATE cron_jobs SET prompt = 'other' WHERE id = $1`, [id]);
    expect(await read()).toEqual(new Date('2031-01-01T00:05:00Z'));
  });
});
