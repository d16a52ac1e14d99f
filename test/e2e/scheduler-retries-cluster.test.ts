// A retry after a pod SIGKILL, with real pods: the run's attempt is lost with its pod, recovery
// on the survivor sends it back to the queue (the job retries; no side-effect call was made),
// and the survivor takes it and runs it as attempt 2 of the same row.
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  cronCallOf,
  DEFAULT_TENANT,
  duplicateRuns,
  linesWithMessage,
  startPod,
  stopAllPods,
  type Pod,
} from '../helpers/cluster.js';
import { createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { waitFor } from '../helpers/process-wait.js';

let databaseUrl: string;
let db: pg.Client;
let llm: FakeLlm;

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  llm = await startFakeLlm();
});

afterEach(async () => {
  await stopAllPods(3000);
  await db.query('DELETE FROM cron_jobs');
});

afterAll(async () => {
  await stopAllPods(3000);
  await db?.end();
  await llm?.close();
});

function pod(): Promise<Pod> {
  return startPod({
    databaseUrl,
    redisUrl: inject('redisUrl'),
    llmUrl: llm.url,
    podId: `retries-${Math.random().toString(36).slice(2, 8)}`,
  });
}

interface Row {
  id: string;
  status: string;
  attempt: number;
  pod_id: string | null;
  origin: string;
  previous_attempts: { attempt: number; error_kind: string; pod_id: string }[];
}

async function runOf(runId: string): Promise<Row> {
  const { rows } = await db.query<Row>(
    'SELECT id, status, attempt, pod_id, origin, previous_attempts FROM cron_job_runs WHERE id = $1',
    [runId],
  );
  return rows[0]!;
}

describe('a pod killed mid-run, the job retrying', () => {
  it('requeues the lost attempt and another pod runs it as attempt 2 of the same row', async () => {
    let calls = 0;
    llm.setHandler((body) => {
      if (cronCallOf(body)?.prompt !== 'lost once') return { content: 'ok' };
      calls += 1;
      return calls === 1 ? { hang: true } : { content: 'done the second time' };
    });
    const pods = await Promise.all([1, 2].map(() => pod()));
    // A job that never comes due by itself, and one backfilled occurrence of it.
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt, retry_max_attempts, retry_backoff_ms)
       VALUES ($1, 'lost once', '0 0 1 1 *', 'lost once', 3, 1000) RETURNING id`,
      [DEFAULT_TENANT],
    );
    const jobId = rows[0]!.id;
    const inserted = await db.query<{ id: string }>(
      `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, pod_id, origin,
                                  not_before)
       VALUES ($1, $2, date_trunc('minute', now()) - interval '1 hour', 'queued', NULL, 'backfill',
               now())
       RETURNING id`,
      [jobId, DEFAULT_TENANT],
    );
    const runId = inserted.rows[0]!.id;
    const running = await waitFor(
      async () => {
        const run = await runOf(runId);
        expect(run.status).toBe('running');
        expect(calls).toBe(1);
        return run;
      },
      { timeoutMs: 15_000, intervalMs: 100, what: 'the first attempt to reach the model' },
    );
    const victim = pods.find((p) => p.podId === running.pod_id)!;
    const survivor = pods.find((p) => p !== victim)!;
    expect(await victim.kill('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });

    const done = await waitFor(
      async () => {
        const run = await runOf(runId);
        expect(run.status).toBe('success');
        return run;
      },
      { timeoutMs: 45_000, intervalMs: 200, what: 'the retried attempt to succeed' },
    );
    expect(done).toMatchObject({ attempt: 2, pod_id: survivor.podId, origin: 'backfill' });
    expect(done.previous_attempts).toEqual([
      expect.objectContaining({ attempt: 1, error_kind: 'pod_lost', pod_id: victim.podId }),
    ]);
    expect(calls).toBe(2);
    expect(
      linesWithMessage(survivor, 'run requeued: its attempt was lost with its pod').join('\n'),
    ).toContain(runId);
    const job = await db.query<{ run_count: string; last_run_success: boolean }>(
      'SELECT run_count, last_run_success FROM cron_jobs WHERE id = $1',
      [jobId],
    );
    expect(job.rows[0]).toEqual({ run_count: '1', last_run_success: true });
    expect(await duplicateRuns(db)).toEqual([]);
  }, 90_000);
});
