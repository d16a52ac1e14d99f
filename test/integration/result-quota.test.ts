// The per-tenant quota of stored result bytes, through the real service: long answers go to the
// object store (a temporary directory) until the tenant's quota, the next one is kept short and
// fails its run (result_quota) while another tenant goes on; runs that leave the history free
// their bytes (result-quota-count.test.ts: the count when two pods record at once).
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createPgJobStore } from '../../src/db/job-store.js';
import { startService, type RunningService } from '../../src/main.js';
import { maintainRunHistory } from '../../src/scheduler/run-history.js';
import { DiskObjectStore } from '../../src/storage/disk-store.js';
import { createResultStore } from '../../src/storage/run-results.js';
import { ADMIN_TOKEN, DEFAULT_TENANT_ID, DEFAULT_TENANT_KEY } from '../helpers/api.js';
import { metricValue } from '../helpers/cluster.js';
import { createAppPool, createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { silentLogger } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';

const KIB = 1024;
const temp: string[] = [];

async function tempDir(label: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `hermesx-${label}-`));
  temp.push(dir);
  return dir;
}

afterAll(() => Promise.all(temp.map((dir) => rm(dir, { recursive: true, force: true }))));

interface StoredRun {
  id: string;
  status: string;
  result: string | null;
  result_object_key: string | null;
  result_bytes: number | null;
  result_truncated: boolean;
  error_kind: string | null;
  error: string | null;
}

/** Text of a given UTF-8 size whose end is recognisable, so a cut shows. */
function answerOf(bytes: number, tag: string): string {
  const head = `${tag}:`;
  return head + 'x'.repeat(bytes - head.length - 4) + 'TAIL';
}

describe('the quota of stored result bytes, through the service', () => {
  let db: pg.Client;
  let databaseUrl: string;
  let llm: FakeLlm;
  let service: RunningService;
  let objectsDir: string;
  const answers = new Map<string, string>();

  const api = async (method: string, url: string, token = DEFAULT_TENANT_KEY, body?: unknown) =>
    fetch(new URL(url, service.url), {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  /** A job of the tenant that runs once (every second, disabled after its first run). */
  async function runOnce(tenantId: string, prompt: string, answer: string): Promise<StoredRun> {
    answers.set(prompt, answer);
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt)
       VALUES ($1, $2, '* * * * * *', $2) RETURNING id`,
      [tenantId, prompt],
    );
    const jobId = rows[0]?.id as string;
    const run = await waitFor(
      async () => {
        const found = await db.query<StoredRun>(
          `SELECT id, status, result, result_object_key, result_bytes, result_truncated,
                  error_kind, error
             FROM cron_job_runs WHERE cron_job_id = $1 AND status IN ('success', 'failed')
            ORDER BY scheduled_at LIMIT 1`,
          [jobId],
        );
        if (!found.rows[0]) throw new Error('no finished run yet');
        return found.rows[0];
      },
      { timeoutMs: 15_000, intervalMs: 100, what: `a finished run of ${prompt}` },
    );
    await db.query('UPDATE cron_jobs SET enabled = false WHERE id = $1', [jobId]);
    return run;
  }

  async function tenantView(tenantId: string) {
    const response = await api('GET', `/v1/tenants/${tenantId}`, ADMIN_TOKEN);
    expect(response.status).toBe(200);
    return (await response.json()) as {
      result_bytes_quota: number | null;
      result_bytes_stored: number;
      result_bytes_quota_in_force: number;
    };
  }

  let otherTenant: string;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    llm = await startFakeLlm();
    llm.setHandler((body) => {
      const text = JSON.stringify(body);
      for (const [prompt, answer] of answers) {
        if (text.includes(prompt)) return { content: answer };
      }
      return { content: 'ok' };
    });
    objectsDir = await tempDir('quota');
    const config = loadConfig({
      DATABASE_URL: databaseUrl,
      REDIS_URL: inject('redisUrl'),
      LLM_API_URL: llm.url,
      LLM_MODEL: 'quota-test-model',
      SAAS_API_PORT: '0',
      SAAS_API_HOST: '127.0.0.1',
      HERMES_ACP_TOKEN: ADMIN_TOKEN,
      HERMES_API_KEY: DEFAULT_TENANT_KEY,
      HERMES_POD_ID: `quota-${Math.random().toString(36).slice(2, 8)}`,
      SCHEDULER_POLL_INTERVAL: '2s',
      SCHEDULER_SHUTDOWN_GRACE: '1s',
      OBJECT_STORE_DIR: objectsDir,
      TENANT_RESULT_BYTES_QUOTA: String(300 * KIB),
    });
    service = await startService(config, silentLogger());
    await waitFor(() => expect(service.scheduler?.running).toBe(true), {
      timeoutMs: 10_000,
      what: 'the scheduler to start',
    });
    const created = await api('POST', '/v1/tenants', ADMIN_TOKEN, { name: 'roomy tenant' });
    expect(created.status).toBe(201);
    otherTenant = ((await created.json()) as { id: string }).id;
  });

  afterAll(async () => {
    await service?.stop();
    await db?.end();
    await llm?.close();
  });

  it('stores answers up to the quota, then keeps the next one short; another tenant goes on', async () => {
    const patched = await api('PATCH', `/v1/tenants/${DEFAULT_TENANT_ID}`, ADMIN_TOKEN, {
      result_bytes_quota: 250 * KIB,
    });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({
      result_bytes_quota: 250 * KIB,
      result_bytes_stored: 0,
      result_bytes_quota_in_force: 250 * KIB,
    });

    const first = await runOnce(DEFAULT_TENANT_ID, 'quota-first', answerOf(100 * KIB, 'first'));
    const second = await runOnce(DEFAULT_TENANT_ID, 'quota-second', answerOf(100 * KIB, 'second'));
    for (const run of [first, second]) {
      expect(run).toMatchObject({ status: 'success', result_bytes: 100 * KIB });
      expect(run.result_object_key).not.toBeNull();
    }
    expect((await tenantView(DEFAULT_TENANT_ID)).result_bytes_stored).toBe(200 * KIB);

    const thirdAnswer = answerOf(100 * KIB, 'third');
    const third = await runOnce(DEFAULT_TENANT_ID, 'quota-third', thirdAnswer);
    expect(third).toMatchObject({
      status: 'failed',
      error_kind: 'result_quota',
      result: thirdAnswer.slice(0, 4096),
      result_object_key: null,
      result_bytes: 4096,
      result_truncated: true,
    });
    expect(third.error).toContain(`quota of ${250 * KIB} bytes`);
    expect(third.error).toContain(`(${200 * KIB} bytes)`);
    expect(third.error).toContain('result_bytes_quota');
    expect(third.error).toContain('TENANT_RESULT_BYTES_QUOTA');
    const detail = await api('GET', `/v1/runs/${third.id}`);
    expect(detail.status).toBe(200);
    expect(await detail.json()).toMatchObject({
      status: 'failed',
      error_kind: 'result_quota',
      error: third.error,
      result: thirdAnswer.slice(0, 4096),
      result_truncated: true,
    });
    const refusals = await waitFor(
      async () => {
        const text = await (await fetch(new URL('/metrics', service.url))).text();
        const value = metricValue(text, 'hermesx_result_quota_refusals_total');
        expect(value).toBe(1);
        return value;
      },
      { timeoutMs: 5_000, what: 'the refusal counted' },
    );
    expect(refusals).toBe(1);
    expect((await tenantView(DEFAULT_TENANT_ID)).result_bytes_stored).toBe(200 * KIB);

    // A short answer needs no room in the store; the other tenant has the server's default.
    expect(await runOnce(DEFAULT_TENANT_ID, 'quota-short', 'short answer')).toMatchObject({
      status: 'success',
      result: 'short answer',
    });
    const roomy = await runOnce(otherTenant, 'quota-other', answerOf(100 * KIB, 'other'));
    expect(roomy).toMatchObject({ status: 'success', result_bytes: 100 * KIB });
    expect(roomy.result_object_key?.startsWith(`${otherTenant}/runs/`)).toBe(true);
    expect(await tenantView(otherTenant)).toMatchObject({
      result_bytes_quota: null,
      result_bytes_stored: 100 * KIB,
      result_bytes_quota_in_force: 300 * KIB,
    });

    // 0: unlimited for this tenant.
    await api('PATCH', `/v1/tenants/${DEFAULT_TENANT_ID}`, ADMIN_TOKEN, { result_bytes_quota: 0 });
    const unlimited = await runOnce(DEFAULT_TENANT_ID, 'quota-unlimited', answerOf(100 * KIB, 'u'));
    expect(unlimited).toMatchObject({ status: 'success', result_bytes: 100 * KIB });
    expect((await tenantView(DEFAULT_TENANT_ID)).result_bytes_stored).toBe(300 * KIB);
  });

  it('frees the bytes of runs that leave the history, and of a dropped partition', async () => {
    await api('PATCH', `/v1/tenants/${otherTenant}`, ADMIN_TOKEN, {
      result_bytes_quota: 150 * KIB,
    });
    expect((await tenantView(otherTenant)).result_bytes_stored).toBe(100 * KIB);
    const refused = await runOnce(otherTenant, 'quota-refused', answerOf(100 * KIB, 'refused'));
    expect(refused.error_kind).toBe('result_quota');

    // Retention removes the stored run (by hand here); its job was deleted over an hour ago, so
    // the upkeep purges the job and its objects.
    const { rows } = await db.query<{ id: string; cron_job_id: string }>(
      `SELECT id, cron_job_id FROM cron_job_runs
        WHERE tenant_id = $1 AND result_object_key IS NOT NULL`,
      [otherTenant],
    );
    const stored = rows[0] as { id: string; cron_job_id: string };
    await db.query(`UPDATE cron_jobs SET deleted_at = now() - interval '2 hours' WHERE id = $1`, [
      stored.cron_job_id,
    ]);
    await db.query('DELETE FROM cron_job_runs WHERE cron_job_id = $1', [stored.cron_job_id]);
    expect((await tenantView(otherTenant)).result_bytes_stored).toBe(0);
    const pool = createAppPool(databaseUrl);
    try {
      await maintainRunHistory(
        {
          store: createPgJobStore(pool, 'quota-upkeep'),
          log: silentLogger(),
          results: createResultStore(new DiskObjectStore(objectsDir)),
        },
        () => true,
      );
    } finally {
      await pool.end();
    }
    expect(existsSync(path.join(objectsDir, otherTenant, 'runs', stored.cron_job_id))).toBe(false);
    const again = await runOnce(otherTenant, 'quota-again', answerOf(100 * KIB, 'again'));
    expect(again).toMatchObject({ status: 'success', result_bytes: 100 * KIB });

    // A partition dropped whole (retention past the longest) fires no trigger: its answers stop
    // counting all the same. A run of a week ahead stands in for an old one.
    const job = await db.query<{ id: string }>(
      `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt, enabled)
       VALUES ($1, 'ahead', '0 0 1 1 *', 'ahead', false) RETURNING id`,
      [otherTenant],
    );
    const jobId = job.rows[0]?.id as string;
    const ahead = await db.query<{ partition: string }>(
      `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, result,
                                  result_object_key, result_bytes, finished_at)
       VALUES ($1, $2, date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
                       + interval '6 days 1 hour',
               'success', 'x', $3, $4, now())
       RETURNING tableoid::regclass::text AS partition`,
      [jobId, otherTenant, `${otherTenant}/runs/${jobId}/ahead.txt`, 40 * KIB],
    );
    expect((await tenantView(otherTenant)).result_bytes_stored).toBe(140 * KIB);
    await db.query(`DROP TABLE ${ahead.rows[0]?.partition as string}`);
    expect((await tenantView(otherTenant)).result_bytes_stored).toBe(100 * KIB);
    const left = await db.query('SELECT count(*)::int AS n FROM tenant_result_bytes');
    expect(left.rows[0]).toEqual({ n: 2 });
  });
});
