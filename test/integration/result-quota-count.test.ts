// The count of stored result bytes when two pods record at once, against real PostgreSQL, and
// the result store's use of the quota (a refused answer is never written).
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finishRuns, type FinishRequest } from '../../src/db/runs.js';
import { DiskObjectStore } from '../../src/storage/disk-store.js';
import { readResultUsage } from '../../src/storage/result-quota.js';
import { createResultStore } from '../../src/storage/run-results.js';
import { DEFAULT_TENANT_ID } from '../helpers/api.js';
import { createAppPool, createTestDatabase } from '../helpers/database.js';

const KIB = 1024;
const temp: string[] = [];

async function tempDir(label: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `hermesx-${label}-`));
  temp.push(dir);
  return dir;
}

afterAll(() => Promise.all(temp.map((dir) => rm(dir, { recursive: true, force: true }))));

describe('the count when two pods record at once', () => {
  let databaseUrl: string;
  let db: pg.Client;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
  });
  afterAll(() => db?.end());

  it('adds every stored answer once, whichever pod records it', async () => {
    const pods = ['pod-a', 'pod-b'];
    const pools = pods.map(() => createAppPool(databaseUrl));
    try {
      const job = await db.query<{ id: string }>(
        `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt, enabled)
         VALUES ($1, 'busy', '* * * * *', 'busy', false) RETURNING id`,
        [DEFAULT_TENANT_ID],
      );
      const jobId = job.rows[0]?.id as string;
      // 200 runs in flight, every other one a pod's, each with a long answer of its own size.
      const { rows } = await db.query<{ id: string; scheduled_at: Date; pod_id: string }>(
        `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, pod_id)
         SELECT $1, $2, date_trunc('second', now()) - make_interval(secs => n), 'running',
                CASE WHEN n % 2 = 0 THEN 'pod-a' ELSE 'pod-b' END
           FROM generate_series(1, 200) AS n
         RETURNING id, scheduled_at, pod_id`,
        [jobId, DEFAULT_TENANT_ID],
      );
      const request = (run: (typeof rows)[number], index: number): FinishRequest => ({
        runId: run.id,
        scheduledAt: run.scheduled_at,
        outcome: {
          success: true,
          result: 'short form',
          error: null,
          errorKind: null,
          attempts: 1,
          resultObjectKey: `${DEFAULT_TENANT_ID}/runs/${jobId}/${run.id}.txt`,
          resultBytes: 10 * KIB + index,
        },
      });
      const requests = rows.map(request);
      // Small batches from both pods at once, interleaved.
      await Promise.all(
        pods.map(async (pod, p) => {
          const mine = requests.filter((_, i) => rows[i]?.pod_id === pod);
          for (let i = 0; i < mine.length; i += 5) {
            const answers = await finishRuns(pools[p] as pg.Pool, mine.slice(i, i + 5), pod);
            expect(answers).toEqual(answers.map(() => 'recorded'));
          }
        }),
      );
      const expected = requests.reduce((sum, r) => sum + (r.outcome.resultBytes ?? 0), 0);
      const [usage] = await readResultUsage(pools[0] as pg.Pool, [DEFAULT_TENANT_ID], 0);
      expect(usage).toEqual({ tenantId: DEFAULT_TENANT_ID, usedBytes: expected, quotaBytes: 0 });
      const rowsSum = await db.query<{ sum: string }>(
        `SELECT sum(result_bytes) AS sum FROM cron_job_runs WHERE result_object_key IS NOT NULL`,
      );
      expect(Number(rowsSum.rows[0]?.sum)).toBe(expected);

      // A retried attempt clears its answer: its bytes go with it.
      await db.query(
        `UPDATE cron_job_runs SET result_object_key = NULL, result_bytes = NULL WHERE id = $1`,
        [rows[0]?.id],
      );
      const [after] = await readResultUsage(pools[1] as pg.Pool, [DEFAULT_TENANT_ID], 5);
      expect(after).toEqual({
        tenantId: DEFAULT_TENANT_ID,
        usedBytes: expected - (10 * KIB + 0),
        quotaBytes: 5,
      });
      await db.query('TRUNCATE cron_job_runs CASCADE');
      const [cleared] = await readResultUsage(pools[1] as pg.Pool, [DEFAULT_TENANT_ID], 5);
      expect(cleared?.usedBytes).toBe(0);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });
});

describe('the result store with a quota', () => {
  it('writes no object for a refused answer, and asks nothing for a short one', async () => {
    const dir = await tempDir('quota-store');
    const asked: number[] = [];
    const results = createResultStore(new DiskObjectStore(dir), {
      refusal: async (tenantId, bytes) => {
        asked.push(bytes);
        return { tenantId, usedBytes: 10, quotaBytes: 10 };
      },
    });
    const ids = { tenantId: DEFAULT_TENANT_ID, jobId: 'job', runId: 'run' };
    expect(await results.place(ids, 'z'.repeat(9000))).toEqual({
      refused: 'quota',
      bytes: 9000,
      usedBytes: 10,
      quotaBytes: 10,
    });
    expect(existsSync(path.join(dir, DEFAULT_TENANT_ID))).toBe(false);
    expect(await results.place(ids, 'short')).toEqual({
      column: 'short',
      objectKey: null,
      bytes: 5,
    });
    expect(asked).toEqual([9000]);
  });
});
