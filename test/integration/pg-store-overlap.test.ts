// The overlap policies' statements on a real PostgreSQL, as the app role: the claim of an
// allow_all job ignores runs in flight; a buffer_one / cancel_other occurrence claimed while the
// previous run holds the lock (at most one waits per job, the tenant's cap holds); the cancel of
// earlier runs on the cancel channel; a waiting run's start.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANCELS_CHANNEL } from '../../src/db/listen.js';
import type { Pool } from '../../src/db/pool.js';
import type { JobStore } from '../../src/scheduler/ports.js';
import type { OverlapPolicy } from '../../src/domain/vocabulary.js';
import { createPgJobStore } from '../../src/db/job-store.js';
import { createAppPool, createTestDatabase, withOwner } from '../helpers/database.js';
import { waitFor } from '../helpers/process-wait.js';

const TENANT = '00000000-0000-0000-0000-000000000001';
const T1 = new Date('2030-01-01T00:00:00Z');
const T2 = new Date('2030-01-01T00:01:00Z');
const T3 = new Date('2030-01-01T00:02:00Z');

describe('PostgreSQL job store: overlap policies', () => {
  let url: string;
  let pool: Pool;
  let podA: JobStore;
  let podB: JobStore;

  beforeAll(async () => {
    url = await createTestDatabase();
    pool = createAppPool(url);
    podA = createPgJobStore(pool, 'pod-a');
    podB = createPgJobStore(pool, 'pod-b');
  });

  afterAll(async () => {
    await pool?.end();
  });

  const sql = (text: string, values: unknown[] = []) =>
    withOwner(url, (client) => client.query(text, values));

  async function insertJob(overlap: OverlapPolicy): Promise<string> {
    const id = randomUUID();
    await sql(
      `INSERT INTO cron_jobs (id, tenant_id, name, schedule, prompt, overlap)
       VALUES ($1, $2, $3, '* * * * *', 'p', $4)`,
      [id, TENANT, `job ${id.slice(0, 8)}`, overlap],
    );
    return id;
  }

  it('loads the policy with the schedule (absent for skip)', async () => {
    const skip = await insertJob('skip');
    const all = await insertJob('allow_all');
    const loaded = await podA.loadJobs([skip, all]);
    expect(loaded.find((j) => j.id === skip)).not.toHaveProperty('overlap');
    expect(loaded.find((j) => j.id === all)?.overlap).toBe('allow_all');
  });

  it('allow_all claims an occurrence beside a run in flight; skip does not', async () => {
    const all = await insertJob('allow_all');
    const skip = await insertJob('skip');
    for (const id of [all, skip]) {
      expect((await podA.claimRun(id, T1, 'pod-a')).kind).toBe('claimed');
    }
    expect((await podB.claimRun(all, T2, 'pod-b')).kind).toBe('claimed');
    expect((await podB.claimRun(skip, T2, 'pod-b')).kind).toBe('taken');
    // Each occurrence still once.
    expect((await podB.claimRun(all, T1, 'pod-b')).kind).toBe('taken');
  });

  it('buffer_one: one occurrence waits beside the running one, a further one is refused overlap', async () => {
    const id = await insertJob('buffer_one');
    expect((await podA.claimRun(id, T1, 'pod-a')).kind).toBe('claimed');
    const waiting = await podB.claimWaiting!(id, T2, 'pod-b', null);
    expect(waiting.kind).toBe('claimed');
    // The same occurrence from another pod: already claimed.
    expect((await podA.claimWaiting!(id, T2, 'pod-a', null)).kind).toBe('taken');
    expect((await podA.claimWaiting!(id, T3, 'pod-a', null)).kind).toBe('overlap');
    // With the lock (the running one ended), a later occurrence is refused while one waits.
    await sql(
      `UPDATE cron_job_runs SET status = 'success', finished_at = now()
                WHERE cron_job_id = $1 AND scheduled_at = $2`,
      [id, T1],
    );
    expect((await podA.claimRun(id, T3, 'pod-a')).kind).toBe('taken');
  });

  it('only buffer_one and cancel_other jobs are claimed to wait', async () => {
    for (const overlap of ['skip', 'allow_all'] as const) {
      const id = await insertJob(overlap);
      expect((await podA.claimWaiting!(id, T1, 'pod-a', null)).kind).toBe('taken');
    }
  });

  it('a waiting claim keeps the tenant’s max_concurrent_runs', async () => {
    const tenant = randomUUID();
    await sql(`INSERT INTO tenants (id, name, max_concurrent_runs) VALUES ($1, $2, 1)`, [
      tenant,
      `capped ${tenant.slice(0, 8)}`,
    ]);
    const id = randomUUID();
    await sql(
      `INSERT INTO cron_jobs (id, tenant_id, name, schedule, prompt, overlap)
       VALUES ($1, $2, 'capped', '* * * * *', 'p', 'buffer_one')`,
      [id, tenant],
    );
    expect((await podA.claimRun(id, T1, 'pod-a')).kind).toBe('claimed');
    expect((await podB.claimWaiting!(id, T2, 'pod-b', null)).kind).toBe('capped');
  });

  it('cancel_other: asks for the earlier runs in flight on the cancel channel', async () => {
    const id = await insertJob('cancel_other');
    const first = await podA.claimRun(id, T1, 'pod-a');
    expect(first.kind).toBe('claimed');
    const listener = new pg.Client({ connectionString: url });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (message) => heard.push(message.payload ?? ''));
    await listener.query(`LISTEN ${CANCELS_CHANNEL}`);
    try {
      const runId = first.kind === 'claimed' ? first.run.runId : '';
      expect(await podB.cancelOlderRuns!(id, T2)).toEqual([runId]);
      // Nothing earlier than the first one.
      expect(await podB.cancelOlderRuns!(id, T1)).toEqual([]);
      await waitFor(() => expect(heard).toEqual([`${id}|${runId}|overlap`]), {
        timeoutMs: 5000,
        what: 'the cancel notification',
      });
    } finally {
      await listener.end();
    }
  });

  it('a waiting run starts once: started_at moves to its start, only while it is the pod’s', async () => {
    const id = await insertJob('buffer_one');
    const waiting = await podB.claimWaiting!(id, T2, 'pod-b', null);
    if (waiting.kind !== 'claimed') throw new Error(waiting.kind);
    const runId = waiting.run.runId;
    await sql(`UPDATE cron_job_runs SET started_at = now() - interval '1 minute' WHERE id = $1`, [
      runId,
    ]);
    expect(await podA.startWaiting!(runId, T2, 'pod-a')).toBe(false);
    expect(await podB.startWaiting!(runId, T2, 'pod-b')).toBe(true);
    const { rows } = await sql(
      `SELECT now() - started_at < interval '10 seconds' AS fresh
                                  FROM cron_job_runs WHERE id = $1`,
      [runId],
    );
    expect(rows[0]).toEqual({ fresh: true });
    await podB.failRuns([runId], 'cancelled: stopped by request', 'cancelled');
    expect(await podB.startWaiting!(runId, T2, 'pod-b')).toBe(false);
  });
});
