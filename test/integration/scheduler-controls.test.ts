// The per-job run controls in a running service (real scheduler, PostgreSQL, Redis; the model is
// the fake LLM server): pause_after_failures after N model 500s, max_runs, ends_at, the job's
// own timeout and its model.
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startService, type RunningService } from '../../src/main.js';
import { cronCallOf, DEFAULT_TENANT, runsOf } from '../helpers/cluster.js';
import { createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { silentLogger } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';

let db: pg.Client;
let llm: FakeLlm;
let service: RunningService;

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  llm = await startFakeLlm();
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    REDIS_URL: inject('redisUrl'),
    LLM_API_URL: llm.url,
    LLM_MODELS: 'default-model,large-model',
    SAAS_API_PORT: '0',
    SAAS_API_HOST: '127.0.0.1',
    HERMES_POD_ID: `controls-test-${Math.random().toString(36).slice(2, 8)}`,
    SCHEDULER_POLL_INTERVAL: '2s',
    SCHEDULER_SHUTDOWN_GRACE: '1s',
  });
  service = await startService(config, silentLogger());
  await waitFor(() => expect(service.scheduler?.running).toBe(true), {
    timeoutMs: 10_000,
    what: 'the scheduler to start',
  });
});

afterEach(async () => {
  await db.query('DELETE FROM cron_jobs');
  llm.setHandler(() => ({ content: 'ok' }));
});

afterAll(async () => {
  await service?.stop();
  await db?.end();
  await llm?.close();
});

/** A job as plain SQL inserts it, with the given control columns. */
async function insertJob(name: string, controls: Record<string, unknown> = {}): Promise<string> {
  const columns = Object.keys(controls);
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt${columns.map((c) => `, ${c}`).join('')})
     VALUES ($1, $2, '* * * * * *', 'do it'${columns.map((_, i) => `, $${i + 3}`).join('')})
     RETURNING id`,
    [DEFAULT_TENANT, name, ...Object.values(controls)],
  );
  return rows[0]!.id;
}

interface JobState {
  enabled: boolean;
  paused_by: string | null;
  paused_reason: string | null;
  stopped_by: string | null;
  consecutive_failures: number;
  run_count: string;
}

async function jobState(id: string): Promise<JobState> {
  const { rows } = await db.query<JobState>(
    `SELECT enabled, paused_by, paused_reason, stopped_by, consecutive_failures, run_count
       FROM cron_jobs WHERE id = $1`,
    [id],
  );
  return rows[0]!;
}

const finished = async (id: string) =>
  (await runsOf(db, [id])).filter((r) => r.status === 'success' || r.status === 'failed');

/** Waits until another every-second job has run twice more: the scheduler has moved on. */
async function waitForSchedulerToMoveOn(): Promise<void> {
  const witness = await insertJob('witness');
  await waitFor(async () => expect((await finished(witness)).length).toBeGreaterThanOrEqual(2), {
    timeoutMs: 15_000,
    what: 'two runs of a witness job',
  });
}

describe('job controls in the scheduler', () => {
  it('pause_after_failures: 3 model 500s in a row pause the job, paused_by system', async () => {
    llm.setHandler((body) =>
      cronCallOf(body)?.prompt === 'do it'
        ? { status: 500, errorMessage: 'boom' }
        : { content: 'ok' },
    );
    const id = await insertJob('flaky', { pause_after_failures: 3 });
    await waitFor(async () => expect((await jobState(id)).enabled).toBe(false), {
      timeoutMs: 20_000,
      what: 'the job to pause itself',
    });
    expect(await jobState(id)).toMatchObject({
      paused_by: 'system',
      stopped_by: 'pause_after_failures',
      consecutive_failures: 3,
      run_count: '3',
    });
    expect((await jobState(id)).paused_reason).toMatch(
      /^3 consecutive failed runs; last error: the model server answered/,
    );
    llm.setHandler(() => ({ content: 'ok' }));
    await waitForSchedulerToMoveOn();
    const runs = await runsOf(db, [id]);
    expect(runs.map((r) => [r.status, r.error_kind])).toEqual([
      ['failed', 'model_error'],
      ['failed', 'model_error'],
      ['failed', 'model_error'],
    ]);
  });

  it('max_runs: 2 runs, then the job stops itself', async () => {
    const id = await insertJob('twice', { max_runs: 2 });
    await waitFor(async () => expect((await jobState(id)).stopped_by).toBe('max_runs'), {
      timeoutMs: 15_000,
      what: 'the job to stop at max_runs',
    });
    await waitForSchedulerToMoveOn();
    expect(await finished(id)).toHaveLength(2);
    expect((await runsOf(db, [id])).length).toBe(2);
    expect(await jobState(id)).toMatchObject({ enabled: false, paused_by: 'system' });
  });

  it('ends_at: no occurrence after it', async () => {
    const endsAt = new Date(Math.floor(Date.now() / 1000) * 1000 + 3000);
    const id = await insertJob('until soon', { ends_at: endsAt });
    await waitFor(() => expect(Date.now()).toBeGreaterThan(endsAt.getTime() + 1000), {
      timeoutMs: 10_000,
      what: 'ends_at to pass',
    });
    await waitForSchedulerToMoveOn();
    const runs = await runsOf(db, [id]);
    expect(runs.length).toBeGreaterThanOrEqual(1);
    for (const run of runs)
      expect(run.scheduled_at.getTime()).toBeLessThanOrEqual(endsAt.getTime());
    // After its last occurrence the job is parked, not left at that occurrence (which the due
    // window would read again and again as overdue).
    await waitFor(
      async () => {
        const { rows } = await db.query<{ parked: boolean }>(
          `SELECT next_run_at = 'infinity' AS parked FROM cron_jobs WHERE id = $1`,
          [id],
        );
        expect(rows[0]?.parked).toBe(true);
      },
      { timeoutMs: 5000, what: 'the ended job to be parked' },
    );
  });

  it("timeout: the run fails `timeout` at the job's timeout, not the global one", async () => {
    llm.setHandler(() => ({ hang: true }));
    const id = await insertJob('slow', { timeout_ms: 2000, max_runs: 1 });
    const run = await waitFor(
      async () => {
        const [first] = await finished(id);
        if (!first) throw new Error('no finished run yet');
        return first;
      },
      { timeoutMs: 15_000, what: 'the run to time out' },
    );
    expect(run).toMatchObject({
      status: 'failed',
      error_kind: 'timeout',
      error: "timeout: run exceeded the job's timeout (2s)",
    });
    expect(run.duration_ms).toBeGreaterThanOrEqual(1900);
    expect(run.duration_ms).toBeLessThan(4000);
  });

  it('model: the job’s model is the one asked; a job without one gets the default', async () => {
    const large = await insertJob('large', { model: 'large-model', max_runs: 1 });
    const plain = await insertJob('plain', { max_runs: 1 });
    await waitFor(
      async () => expect((await finished(large)).length + (await finished(plain)).length).toBe(2),
      { timeoutMs: 15_000, what: 'one run of each job' },
    );
    const modelAsked = (id: string) =>
      (llm.calls.find((c) => cronCallOf(c.body)?.jobId === id)?.body as { model: string }).model;
    expect(modelAsked(large)).toBe('large-model');
    expect(modelAsked(plain)).toBe('default-model');
  });
});
