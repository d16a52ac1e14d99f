// "Run now" and a cancel reach the pods as notifications; a pod whose notification connection is
// down when one is sent reads it from the database once it listens again (migration 389). Each
// pod logs in as its own role, so the test cuts one pod's connection and keeps it down
// (NOLOGIN) while the request is made, whatever the listener's back-off.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { Pool } from '../../src/db/pool.js';
import { triggerJob } from '../../src/jobs/commands.js';
import { cancelRun } from '../../src/jobs/run-cancel.js';
import { startService, type RunningService } from '../../src/main.js';
import { cronCallOf, DEFAULT_TENANT, runsOf } from '../helpers/cluster.js';
import { createAppPool, createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { capturingLogger } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';

const PASSWORD = 'listen-pass';
const suffix = randomBytes(4).toString('hex');

interface Pod {
  role: string;
  podId: string;
  service: RunningService;
  lines: string[];
}

let databaseUrl: string;
let db: pg.Client;
let appPool: Pool;
let llm: FakeLlm;
const pods: Pod[] = [];

async function startPod(name: string): Promise<Pod> {
  const role = `hermesx_${name}_${suffix}`;
  await db.query(`CREATE ROLE ${role} LOGIN PASSWORD '${PASSWORD}' NOINHERIT IN ROLE hermesx_app`);
  const appUrl = new URL(databaseUrl);
  appUrl.username = role;
  appUrl.password = PASSWORD;
  const podId = `${name}-${suffix}`;
  const { log, lines } = capturingLogger();
  const service = await startService(
    loadConfig({
      DATABASE_URL: databaseUrl,
      APP_DATABASE_URL: appUrl.toString(),
      REDIS_URL: inject('redisUrl'),
      LLM_API_URL: llm.url,
      SAAS_API_PORT: '0',
      SAAS_API_HOST: '127.0.0.1',
      HERMES_POD_ID: podId,
      SCHEDULER_EXEC_TIMEOUT: '2m',
      SCHEDULER_SHUTDOWN_GRACE: '1s',
    }),
    log,
  );
  const pod = { role, podId, service, lines };
  pods.push(pod);
  await waitFor(() => expect(service.scheduler?.running).toBe(true), {
    timeoutMs: 10_000,
    what: `${name}'s scheduler to start`,
  });
  return pod;
}

const listening = async (role: string) => {
  const { rows } = await db.query(
    `SELECT 1 FROM pg_stat_activity
      WHERE usename = $1 AND application_name = 'hermesx-listen' AND datname = current_database()`,
    [role],
  );
  return rows.length > 0;
};

/** Cuts the pod's notification connection and keeps it from logging in again. */
async function cut(pod: Pod): Promise<void> {
  await db.query(`ALTER ROLE ${pod.role} NOLOGIN`);
  await db.query(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE usename = $1 AND application_name = 'hermesx-listen'`,
    [pod.role],
  );
  await waitFor(async () => expect(await listening(pod.role)).toBe(false), {
    timeoutMs: 5000,
    what: `${pod.podId}'s notification connection to end`,
  });
}

/**
 * Lets the pod log in again; resolves once it listens and has read the run-now requests, with
 * its log lines since.
 */
async function restore(pod: Pod): Promise<string> {
  const mark = pod.lines.length;
  await db.query(`ALTER ROLE ${pod.role} LOGIN`);
  const after = () => pod.lines.slice(mark).join('\n');
  await waitFor(() => expect(after()).toMatch(/msg="job notifications: listening again"/), {
    timeoutMs: 20_000,
    what: `${pod.podId} to listen again`,
  });
  await waitFor(() => expect(after()).toMatch(/msg="run-now requests not run yet/), {
    timeoutMs: 10_000,
    what: `${pod.podId} to read the run-now requests it missed`,
  });
  return after();
}

async function insertJob(name: string, prompt: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt) VALUES ($1, $2, '@yearly', $3)
     RETURNING id`,
    [DEFAULT_TENANT, name, prompt],
  );
  return rows[0]!.id;
}

/** What POST /v1/cron-jobs/{id}/trigger does (answered 202): the nominal time of the run-now. */
async function runNow(jobId: string): Promise<number> {
  const { scheduled_at } = await triggerJob(
    { pool: appPool, now: () => new Date(), schedulerRunning: () => true },
    DEFAULT_TENANT,
    jobId,
  );
  return Date.parse(scheduled_at);
}

const finishedRuns = async (jobId: string) =>
  (await runsOf(db, [jobId])).filter((run) => run.status === 'success' || run.status === 'failed');

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  await db.query('UPDATE tenants SET min_schedule_interval_seconds = 0');
  appPool = createAppPool(databaseUrl);
  llm = await startFakeLlm({
    handler: (body) => (cronCallOf(body)?.prompt === 'hold' ? { hang: true } : { content: 'ok' }),
  });
  await startPod('a');
}, 30_000);

afterAll(async () => {
  for (const pod of pods) await pod.service.stop();
  await appPool?.end();
  for (const pod of pods) {
    await db.query(`ALTER ROLE ${pod.role} LOGIN`);
    await db.query(`REVOKE ALL ON DATABASE ${db.database} FROM ${pod.role}`);
    await db.query(`DROP ROLE IF EXISTS ${pod.role}`);
  }
  await db?.end();
  await llm?.close();
});

describe('requests made while a pod did not listen', () => {
  it('runs a run-now it did not hear once it listens again, once', async () => {
    const [a] = pods as [Pod];
    const jobId = await insertJob('unheard run-now', 'say hello');
    await cut(a);
    const scheduledAtMs = await runNow(jobId);
    expect(await runsOf(db, [jobId]), 'no pod heard the run-now').toEqual([]);
    await restore(a);
    const [run] = await waitFor(
      async () => {
        const runs = await finishedRuns(jobId);
        expect(runs).toHaveLength(1);
        return runs;
      },
      { timeoutMs: 10_000, what: 'the missed run-now to run' },
    );
    expect(run).toMatchObject({ status: 'success', pod_id: a.podId });
    expect(run!.scheduled_at.getTime()).toBe(scheduledAtMs);
    // Answered: a later reconnect finds nothing to run.
    const { rows } = await db.query(
      `SELECT id FROM scheduler_missed_triggers(now() - interval '1 hour', NULL, NULL, 100)`,
    );
    expect(rows).toEqual([]);
    await cut(a);
    await restore(a);
    expect(await runsOf(db, [jobId])).toHaveLength(1);
  }, 60_000);

  it('leaves alone a run-now made well before its connection was lost (heard, then skipped)', async () => {
    const [a] = pods as [Pod];
    const jobId = await insertJob('skipped run-now', 'say hello');
    // As a run-now heard while the job was still in flight (overlap skip) leaves it: no run.
    await db.query(
      `UPDATE cron_jobs SET last_triggered_at = now() - interval '1 minute' WHERE id = $1`,
      [jobId],
    );
    await cut(a);
    expect(await restore(a)).toMatch(/msg="run-now requests not run yet: none"/);
    expect(await runsOf(db, [jobId])).toEqual([]);
  }, 60_000);

  it('stops a run whose cancel it did not hear once it listens again, recorded cancelled', async () => {
    const [a] = pods as [Pod];
    const jobId = await insertJob('held', 'hold');
    await runNow(jobId);
    const run = await waitFor(
      async () => {
        const [held] = await runsOf(db, [jobId]);
        expect(held?.status).toBe('running');
        return held!;
      },
      { timeoutMs: 10_000, what: 'the run to reach the model' },
    );
    await cut(a);
    expect(await cancelRun(appPool, DEFAULT_TENANT, run.id)).toMatchObject({
      status: 'cancelling',
    });
    const { rows } = await db.query<{ status: string; requested: boolean }>(
      'SELECT status, cancel_requested_at IS NOT NULL AS requested FROM cron_job_runs WHERE id = $1',
      [run.id],
    );
    expect(rows[0], 'the cancel is kept, unheard').toEqual({ status: 'running', requested: true });
    await restore(a);
    const [cancelled] = await waitFor(
      async () => {
        const runs = await finishedRuns(jobId);
        expect(runs).toHaveLength(1);
        return runs;
      },
      { timeoutMs: 10_000, what: 'the run to be cancelled' },
    );
    expect(cancelled).toMatchObject({
      id: run.id,
      status: 'failed',
      error_kind: 'cancelled',
      error: 'cancelled: stopped by request',
      pod_id: a.podId,
    });
  }, 60_000);

  it('runs a run-now once when a pod that heard it and one that did not both try', async () => {
    const [a] = pods as [Pod];
    const b = pods[1] ?? (await startPod('b'));
    const jobId = await insertJob('heard by one', 'say hello');
    await cut(a);
    const scheduledAtMs = await runNow(jobId);
    await waitFor(async () => expect(await finishedRuns(jobId)).toHaveLength(1), {
      timeoutMs: 10_000,
      what: 'the pod that heard it to run it',
    });
    await restore(a);
    const runs = await runsOf(db, [jobId]);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: 'success', pod_id: b.podId });
    expect(runs[0]!.scheduled_at.getTime()).toBe(scheduledAtMs);
  }, 60_000);

  it('runs a run-now once when every pod missed it and all of them race for it', async () => {
    const b = pods[1] ?? (await startPod('b'));
    const jobId = await insertJob('heard by none', 'say hello');
    for (const pod of pods) await cut(pod);
    const scheduledAtMs = await runNow(jobId);
    await Promise.all(pods.map(async (pod) => restore(pod)));
    const runs = await waitFor(
      async () => {
        const finished = await finishedRuns(jobId);
        expect(finished).toHaveLength(1);
        return finished;
      },
      { timeoutMs: 10_000, what: 'the missed run-now to run' },
    );
    expect(await runsOf(db, [jobId])).toHaveLength(1);
    expect(runs[0]!.scheduled_at.getTime()).toBe(scheduledAtMs);
    expect([pods[0]!.podId, b.podId]).toContain(runs[0]!.pod_id);
  }, 60_000);
});
