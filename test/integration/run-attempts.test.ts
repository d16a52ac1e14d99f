// A run's attempts and model calls, told apart, in a running service (real scheduler, PostgreSQL,
// Redis; the fake LLM server as the model): a run its retry policy ran again shows attempt 2,
// its earlier attempt, the model calls of each, and its lateness apart from the retry wait; the
// tenant's text of a model failure carries the model server's first line, redacted; and a
// tenant key reads the model server's status.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startService, type RunningService } from '../../src/main.js';
import { createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { capturingLogger, loggedLine } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';

const KEY = 'attempts-test-key-0123456789abcdef';
const ADMIN = 'attempts-test-admin-0123456789abcdef';
let db: pg.Client;
let llm: FakeLlm;
let service: RunningService;
const logged = capturingLogger('json');

interface RunDetail {
  id: string;
  status: string;
  scheduled_at: string;
  attempt: number;
  attempts: number;
  model_requests: number;
  max_attempts: number | null;
  error: string | null;
  error_kind: string | null;
  duration_ms: number | null;
  previous_attempts: {
    attempt: number;
    error_kind: string | null;
    error: string | null;
    started_at: string;
    finished_at: string;
    duration_ms: number;
    pod_id: string | null;
    model_requests: number;
  }[];
  timings: {
    scheduled_at: string;
    started_at: string;
    first_started_at: string;
    start_lag_ms: number;
    retry_wait_ms: number;
  };
}

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  llm = await startFakeLlm();
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    REDIS_URL: inject('redisUrl'),
    LLM_API_URL: llm.url,
    SAAS_API_PORT: '0',
    SAAS_API_HOST: '127.0.0.1',
    HERMES_API_KEY: KEY,
    HERMES_ACP_TOKEN: ADMIN,
    HERMES_POD_ID: `attempts-test-${Math.random().toString(36).slice(2, 8)}`,
    MANUAL_RUNS_PER_MINUTE: '100',
    SCHEDULER_POLL_INTERVAL: '2s',
    SCHEDULER_SHUTDOWN_GRACE: '1s',
  });
  service = await startService(config, logged.log);
  await waitFor(() => expect(service.scheduler?.running).toBe(true), {
    timeoutMs: 10_000,
    what: 'the scheduler to start',
  });
});

afterAll(async () => {
  await service?.stop();
  await db?.end();
  await llm?.close();
});

async function api<T>(method: string, url: string, body?: unknown): Promise<T> {
  const response = await fetch(`${service.url}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${KEY}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(response.status, `${method} ${url}`).toBeLessThan(300);
  return (await response.json()) as T;
}

/** Creates a job that never comes due by itself, runs it now, and waits for its final outcome. */
async function runOnce(name: string, extra: Record<string, unknown> = {}): Promise<RunDetail> {
  const job = await api<{ id: string }>('POST', '/v1/cron-jobs', {
    name,
    schedule: '0 0 1 1 *',
    prompt: name,
    ...extra,
  });
  await api('POST', `/v1/cron-jobs/${job.id}/trigger`);
  return waitFor(
    async () => {
      const runs = await api<{ data: { id: string; status: string }[] }>(
        'GET',
        `/v1/cron-jobs/${job.id}/runs`,
      );
      const run = runs.data[0];
      expect(run?.status).toMatch(/^(success|failed)$/);
      return api<RunDetail>('GET', `/v1/runs/${run!.id}`);
    },
    { timeoutMs: 30_000, intervalMs: 200, what: `the run of ${name} to end` },
  );
}

describe('attempts and model calls', () => {
  it('shows attempt 2 of a run its policy retried, its earlier attempt, and model calls apart', async () => {
    let calls = 0;
    llm.setHandler((body) => {
      if (!JSON.stringify(body).includes('Retried digest')) return { content: 'ok' };
      calls += 1;
      // Attempt 1: one model call, a 502. Attempt 2: a 429 sent again, then the answer.
      if (calls === 1) {
        return {
          status: 502,
          errorMessage:
            'upstream https://svc:hunter2@10.1.2.3:8443/v1 refused by gpu-7.internal.corp\nTraceback: worker.py',
        };
      }
      if (calls === 2) return { status: 429, headers: { 'retry-after': '0' } };
      return { content: 'the digest' };
    });
    const run = await runOnce('Retried digest', { retry: { max_attempts: 3, backoff: '1s' } });
    expect(run).toMatchObject({
      status: 'success',
      attempt: 2,
      attempts: 2,
      model_requests: 2,
      max_attempts: 3,
    });
    expect(run.previous_attempts).toHaveLength(1);
    const [earlier] = run.previous_attempts;
    expect(earlier).toMatchObject({ attempt: 1, error_kind: 'model_error', model_requests: 1 });
    expect(earlier!.pod_id).not.toBeNull();
    expect(earlier!.error).toContain('"upstream [url] refused by [host]"');
    for (const secret of ['hunter2', '10.1.2.3', 'gpu-7', 'internal.corp', 'Traceback']) {
      expect(earlier!.error).not.toContain(secret);
    }
    // Lateness is the first attempt's; the back-off (at least 1 s) is counted apart.
    const ms = (iso: string) => new Date(iso).getTime();
    const { timings } = run;
    expect(timings.first_started_at).toBe(earlier!.started_at);
    expect(timings.start_lag_ms).toBe(ms(earlier!.started_at) - ms(run.scheduled_at));
    expect(timings.start_lag_ms).toBeLessThan(1000);
    expect(timings.retry_wait_ms).toBeGreaterThanOrEqual(999);
    expect(timings.retry_wait_ms).toBe(ms(timings.started_at) - ms(earlier!.finished_at));
  });

  it("stores a model failure's first line, redacted, in the tenant's error", async () => {
    llm.setHandler((body) =>
      JSON.stringify(body).includes('Broken backend')
        ? {
            status: 500,
            errorMessage:
              'no route to https://admin:s3cret@llm-backend.svc.cluster.local:8000/v1 from 192.168.4.20 (key=sk-live-0123456789)\nat line 2',
          }
        : { content: 'ok' },
    );
    const run = await runOnce('Broken backend');
    expect(run).toMatchObject({ status: 'failed', error_kind: 'model_error', attempt: 1 });
    expect(run.error).toBe(
      `the model server answered with an error: "no route to [url] from [address] (key=[redacted])"; details are in the service log (run id ${run.id})`,
    );
    const { rows } = await db.query<{ last_run_error: string }>(
      `SELECT last_run_error FROM cron_jobs WHERE name = 'Broken backend'`,
    );
    for (const secret of [
      's3cret',
      'llm-backend',
      'cluster.local',
      '192.168',
      'sk-live',
      'line 2',
    ]) {
      expect(run.error).not.toContain(secret);
      expect(rows[0]?.last_run_error).not.toContain(secret);
    }
    // The whole text stays in the service's log line of the run.
    const line = await loggedLine(logged.lines, run.id, 'cron job executed');
    expect(line).toContain('llm-backend.svc.cluster.local');
  });

  it("lets a tenant key read the model server's status", async () => {
    const health = await api<{ status: string; model: string }>('GET', '/health/model');
    expect(health.status).toBe('ok');
  });
});
