// The scheduler's JobStore on a real PostgreSQL, as the app role: what a pod loads, claims and
// records, through the SECURITY DEFINER functions of migration 109.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pool } from '../../src/db/pool.js';
import type { JobStore } from '../../src/scheduler/ports.js';
import { createPgJobStore } from '../../src/scheduler/pg-store.js';
import { createAppPool, createTestDatabase, withOwner } from '../helpers/database.js';

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
      lastScheduledAt: null,
      endsAt: null,
      jitterMs: null,
    });
  });

  it('claims each occurrence once, with the name and prompt committed at the claim', async () => {
    const id = await insertJob({ prompt: 'v1' });
    await store.loadJobs([id]);
    await sql(`UPDATE cron_jobs SET prompt = 'v2' WHERE id = $1`, [id]);
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
      },
    });
    const taken = { kind: 'taken' };
    expect(again).toEqual(taken);
    // Still in flight: a later occurrence of the same job is refused.
    expect(await store.claimRun(id, new Date('2026-01-01T00:02:00Z'), 'pod-a')).toEqual(taken);

    const next = new Date('2026-01-01T00:02:00Z');
    const outcome = { success: true, result: 'done', error: null, errorKind: null, attempts: 1 };
    const runId = first.kind === 'claimed' ? first.run.runId : '';
    expect(await store.finishRun(runId, outcome, next, 'pod-a')).toBe(true);
    expect(await store.finishRun(runId, outcome, next, 'pod-a')).toBe(false);
    const { rows } = await sql(
      `SELECT run_count, last_run_success, next_run_at FROM cron_jobs WHERE id = $1`,
      [id],
    );
    expect(rows[0]).toEqual({ run_count: '1', last_run_success: true, next_run_at: next }); // bigint as text
    const [job] = await store.loadJobs([id]);
    expect(job?.lastScheduledAt).toEqual(at);
    expect(await store.claimRun(id, at, 'pod-b')).toEqual(taken);
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
      store.finishRun(runIds[0] as string, ok, null, 'pod-a'),
      store.finishRun(runIds[1] as string, bad, null, 'pod-a'),
      store.finishRun(runIds[2] as string, ok, null, 'pod-a'),
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
});
