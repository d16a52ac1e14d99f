// The contract suite against the PostgreSQL JobStore, as the app role (migrations/functions/).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import type { Pool } from '../../src/db/pool.js';
import type { AttemptRecord } from '../../src/domain/run.js';
import type { JobStore } from '../../src/scheduler/ports.js';
import { createPgJobStore } from '../../src/db/job-store.js';
import { describeJobStoreContract } from '../contract/job-store.contract.js';
import type { RunAttempts, RunState } from '../contract/job-store-harness.js';
import { createAppPool, createTestDatabase, withOwner } from '../helpers/database.js';

const DEFAULT_TENANT = '00000000-0000-0000-0000-000000000001';
let url: string;
let pool: Pool;

beforeAll(async () => {
  url = await createTestDatabase();
  pool = createAppPool(url);
});
afterAll(async () => {
  await pool?.end();
});

const sql = <R extends object>(text: string, values: unknown[] = []) =>
  withOwner(url, (client) => client.query<R>(text, values));

describeJobStoreContract('PostgreSQL', () => {
  const stores = new Map<string, JobStore>();
  return {
    storeFor: (podId) => {
      let store = stores.get(podId);
      if (!store) stores.set(podId, (store = createPgJobStore(pool, podId)));
      return store;
    },
    addTenant: async (cap) => {
      const id = randomUUID();
      await sql(`INSERT INTO tenants (id, name, max_concurrent_runs) VALUES ($1, 'contract', $2)`, [
        id,
        cap,
      ]);
      return id;
    },
    addJob: async (tenantId) => {
      const id = randomUUID();
      await sql(
        `INSERT INTO cron_jobs (id, tenant_id, name, schedule, prompt) VALUES ($1, $2, 'j', '* * * * *', 'p')`,
        [id, tenantId ?? DEFAULT_TENANT],
      );
      return id;
    },
    disableJob: async (id) =>
      void (await sql(`UPDATE cron_jobs SET enabled = false WHERE id = $1`, [id])),
    setRetry: async (id, policy) =>
      void (await sql(
        `UPDATE cron_jobs SET retry_max_attempts = $2, retry_backoff_ms = $3 WHERE id = $1`,
        [id, policy.maxAttempts, policy.backoffMs],
      )),
    setOverlap: async (id, overlap) =>
      void (await sql(`UPDATE cron_jobs SET overlap = $2 WHERE id = $1`, [id, overlap])),
    run: async (runId) => {
      const { rows } = await sql<{
        status: string;
        pod_id: string;
        error: string | null;
        error_kind: RunState['errorKind'];
        attempts: number;
      }>(`SELECT status, pod_id, error, error_kind, attempts FROM cron_job_runs WHERE id = $1`, [
        runId,
      ]);
      const row = rows[0];
      return (
        row && {
          status: row.status,
          podId: row.pod_id,
          error: row.error,
          errorKind: row.error_kind,
          attempts: row.attempts,
        }
      );
    },
    attempts: async (runId) => {
      const { rows } = await sql<{
        attempt: number;
        status: string;
        previous: number;
        log: { started_at: string; duration_ms: number | null; outcome: string | null }[] | null;
      }>(
        `SELECT attempt, status, jsonb_array_length(previous_attempts) AS previous,
                detail->'attempt_log' AS log
           FROM cron_job_runs WHERE id = $1`,
        [runId],
      );
      const row = rows[0];
      if (!row) return undefined;
      const attemptLog: AttemptRecord[] | null =
        row.log?.map((entry) => ({
          startedAt: entry.started_at,
          durationMs: entry.duration_ms,
          outcome: entry.outcome,
        })) ?? null;
      const attempts: RunAttempts = {
        attempt: row.attempt,
        queued: row.status === 'queued',
        previousAttempts: row.previous,
        attemptLog,
      };
      return attempts;
    },
    outcomes: async (jobId) => {
      const { rows } = await sql<{
        run_count: number;
        last_run_success: boolean | null;
        last_run_error_kind: RunState['errorKind'];
      }>(
        `SELECT run_count::integer AS run_count, last_run_success, last_run_error_kind FROM cron_jobs WHERE id = $1`,
        [jobId],
      );
      const row = rows[0];
      if (!row) throw new Error(`no job ${jobId}`);
      return {
        runCount: row.run_count,
        lastRunSuccess: row.last_run_success,
        lastRunErrorKind: row.last_run_error_kind,
      };
    },
    trigger: async (jobId, triggeredAt) =>
      void (await sql(`UPDATE cron_jobs SET last_triggered_at = $2 WHERE id = $1`, [
        jobId,
        triggeredAt,
      ])),
    requestCancel: async (runId) =>
      void (await sql(`UPDATE cron_job_runs SET cancel_requested_at = now() WHERE id = $1`, [
        runId,
      ])),
    makeDue: async (runId) =>
      void (await sql(
        `UPDATE cron_job_runs SET not_before = now() WHERE id = $1 AND status = 'queued'`,
        [runId],
      )),
    age: async (runId, ms) =>
      void (await sql(
        `UPDATE cron_job_runs SET started_at = started_at - make_interval(secs => $2) WHERE id = $1`,
        [runId, ms / 1000],
      )),
    nextRunAt: async (jobId) => {
      const { rows } = await sql<{ next: Date | number | null }>(
        `SELECT next_run_at AS next FROM cron_jobs WHERE id = $1`,
        [jobId],
      );
      const next = rows[0]?.next ?? null;
      return next === Infinity ? 'parked' : (next as Date | null);
    },
  };
});
