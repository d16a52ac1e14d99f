// GET /v1/cluster's fire lag is the scheduler's: the first attempts of occurrences fired on time
// or caught up. A backfilled occurrence (nominal time days ago, by design), a manual run and a
// retry after its backoff are runs of the hour, but not lag.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  DEFAULT_TENANT_ID,
  buildTestApp,
  call,
  type TestApp,
} from '../helpers/api.js';
import { createTestDatabase, withOwner } from '../helpers/database.js';

const POD = 'lag-pod';

let service: TestApp;

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  service = await buildTestApp({ databaseUrl, redis: undefined });
  await withOwner(databaseUrl, async (db) => {
    const { rows: jobs } = await db.query<{ id: string }>(
      `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt)
       VALUES ($1, 'lag job', '* * * * *', 'p') RETURNING id`,
      [DEFAULT_TENANT_ID],
    );
    // [origin, attempt, lag, minutes ago the occurrence was nominally due]
    const runs: [string, number, string, number][] = [
      ['scheduled', 1, '100 milliseconds', 5],
      ['scheduled', 1, '200 milliseconds', 6],
      ['catch_up', 1, '2 seconds', 7],
      // Not the scheduler's lag: a backfill of 29 days ago, a retry after 10 minutes of backoff,
      // and a manual run.
      ['backfill', 1, '29 days', 29 * 24 * 60],
      ['backfill', 1, '28 days', 28 * 24 * 60],
      ['scheduled', 2, '10 minutes', 20],
      ['manual', 1, '5 minutes', 8],
    ];
    for (const [origin, attempt, lag, minutesAgo] of runs) {
      await db.query(
        `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, started_at, finished_at,
                                    status, pod_id, origin, attempt)
         VALUES ($1, $2, date_trunc('minute', now()) - make_interval(mins => $3),
                 date_trunc('minute', now()) - make_interval(mins => $3) + $4::interval, now(),
                 'success', $5, $6, $7)`,
        [jobs[0]!.id, DEFAULT_TENANT_ID, minutesAgo, lag, POD, origin, attempt],
      );
    }
  });
});

afterAll(async () => {
  await service?.close();
});

describe('GET /v1/cluster fire lag', () => {
  it('leaves out backfills, manual runs and retries', async () => {
    const response = await call(service.app, ADMIN_TOKEN, 'GET', '/v1/cluster');
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json<{
      totals: { runs_last_hour: number; fire_lag_p99_ms: number | null };
      pods: { pod_id: string; runs_last_hour: number; fire_lag_p99_ms: number | null }[];
    }>();
    const pod = body.pods.find((p) => p.pod_id === POD);
    // Every run of the hour counts as a run; only three of them as lag (p99 of 100 ms, 200 ms,
    // 2 s, interpolated as percentile_cont does).
    expect(pod?.runs_last_hour).toBe(7);
    expect(pod?.fire_lag_p99_ms).toBeGreaterThan(1900);
    expect(pod?.fire_lag_p99_ms).toBeLessThanOrEqual(2000);
    expect(body.totals.fire_lag_p99_ms).toBeLessThanOrEqual(2000);
  });
});
