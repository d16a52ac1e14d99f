// Full results and the run detail, through the real service: the scheduler runs jobs against the
// fake model, long answers go to the object store (a temporary directory, or S3 via s3rver)
// before the run is recorded, lists show the short form and GET /v1/runs/{id} the whole text.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startService, type RunningService } from '../../src/main.js';
import { ADMIN_TOKEN, DEFAULT_TENANT_ID, DEFAULT_TENANT_KEY } from '../helpers/api.js';
import { insertJob } from '../helpers/cluster.js';
import { createAppPool, createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { silentLogger } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';
import { createPgJobStore } from '../../src/db/job-store.js';
import { maintainRunHistory } from '../../src/scheduler/run-history.js';
import { DiskObjectStore } from '../../src/storage/disk-store.js';
import { createResultStore } from '../../src/storage/run-results.js';
import { S3ObjectStore } from '../../src/storage/s3-store.js';
import { startS3Server, type S3Server } from '../helpers/s3-server.js';

const KIB = 1024;

interface Service {
  service: RunningService;
  api(method: string, url: string, token?: string, body?: unknown): Promise<Response>;
}

let db: pg.Client;
let databaseUrl: string;
let llm: FakeLlm;
const temp: string[] = [];
const services: RunningService[] = [];

async function tempDir(label: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `hermesx-${label}-`));
  temp.push(dir);
  return dir;
}

async function start(env: Record<string, string>): Promise<Service> {
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    REDIS_URL: inject('redisUrl'),
    LLM_API_URL: llm.url,
    LLM_MODEL: 'results-test-model',
    SAAS_API_PORT: '0',
    SAAS_API_HOST: '127.0.0.1',
    HERMES_ACP_TOKEN: ADMIN_TOKEN,
    HERMES_API_KEY: DEFAULT_TENANT_KEY,
    HERMES_POD_ID: `results-${Math.random().toString(36).slice(2, 8)}`,
    SCHEDULER_POLL_INTERVAL: '2s',
    SCHEDULER_SHUTDOWN_GRACE: '1s',
    ...env,
  });
  const service = await startService(config, silentLogger());
  services.push(service);
  await waitFor(() => expect(service.scheduler?.running).toBe(true), {
    timeoutMs: 10_000,
    what: 'the scheduler to start',
  });
  return {
    service,
    api: (method, url, token = DEFAULT_TENANT_KEY, body) =>
      fetch(new URL(url, service.url), {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
  };
}

interface StoredRun {
  id: string;
  status: string;
  result: string | null;
  result_object_key: string | null;
  result_bytes: number | null;
  result_truncated: boolean;
  origin: string;
  error_kind: string | null;
  error: string | null;
}

async function firstFinishedRun(jobId: string): Promise<StoredRun> {
  return waitFor(
    async () => {
      const { rows } = await db.query<StoredRun>(
        `SELECT id, status, result, result_object_key, result_bytes, result_truncated, origin,
                error_kind, error
           FROM cron_job_runs WHERE cron_job_id = $1 AND status IN ('success', 'failed')
          ORDER BY scheduled_at LIMIT 1`,
        [jobId],
      );
      if (!rows[0]) throw new Error('no finished run yet');
      return rows[0];
    },
    { timeoutMs: 15_000, intervalMs: 100, what: 'a finished run' },
  );
}

/** A job that runs once: every second, disabled again after its first claim. */
async function runOnce(prompt: string): Promise<{ jobId: string; run: StoredRun }> {
  const job = await insertJob(db, { name: `results ${prompt}`, schedule: '* * * * * *', prompt });
  const run = await firstFinishedRun(job.id);
  await db.query('UPDATE cron_jobs SET enabled = false WHERE id = $1', [job.id]);
  return { jobId: job.id, run };
}

/** Text of a given UTF-8 size whose end is recognisable, so a cut shows. */
function answerOf(bytes: number, tag: string): string {
  const head = `${tag}:`;
  return head + 'x'.repeat(bytes - head.length - 4) + 'TAIL';
}

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  llm = await startFakeLlm();
});

afterEach(() => {
  llm.setHandler(() => ({ content: 'ok' }));
});

afterAll(async () => {
  for (const service of services) await service.stop();
  await db?.end();
  await llm?.close();
  await Promise.all(temp.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('full results on the disk object store', () => {
  let objectsDir: string;
  let svc: Service;
  beforeAll(async () => {
    objectsDir = await tempDir('results');
    svc = await start({ OBJECT_STORE_DIR: objectsDir });
  });
  // One service at a time: another pod would run the next describe's jobs with its own store.
  afterAll(async () => {
    await db.query('DELETE FROM cron_jobs');
    await svc.service.stop();
  });

  it('keeps a 100 KB answer whole in the store, its short form in the row and the list', async () => {
    const answer = answerOf(100 * KIB, 'hundred');
    llm.setHandler((body) =>
      JSON.stringify(body).includes('hundred-kb')
        ? { content: answer, model: 'resolved-model-7b' }
        : { content: 'ok' },
    );
    const { jobId, run } = await runOnce('hundred-kb');
    expect(run).toMatchObject({
      status: 'success',
      result_bytes: 100 * KIB,
      result_truncated: false,
      result_object_key: `${DEFAULT_TENANT_ID}/runs/${jobId}/${run.id}.txt`,
    });
    // A job inserted between two loads has its first occurrence caught up or scheduled.
    expect(['scheduled', 'catch_up']).toContain(run.origin);
    expect(run.result).toBe(answer.slice(0, 4096));
    const file = path.join(objectsDir, DEFAULT_TENANT_ID, 'runs', jobId, `${run.id}.txt`);
    expect(await readFile(file, 'utf8')).toBe(answer);

    const list = await svc.api('GET', `/v1/cron-jobs/${jobId}/runs`);
    expect(list.status).toBe(200);
    const [listed] = ((await list.json()) as { data: Record<string, unknown>[] }).data;
    expect(listed).toMatchObject({
      id: run.id,
      result: answer.slice(0, 4096),
      result_complete: false,
      result_bytes: 100 * KIB,
      origin: run.origin,
    });

    const detailResponse = await svc.api('GET', `/v1/runs/${run.id}`);
    expect(detailResponse.status).toBe(200);
    const detail = (await detailResponse.json()) as Record<string, unknown> & {
      result: string;
      prompt_sent: { role: string; content: string }[];
      attempt_log: { outcome: string; duration_ms: number }[];
      timings: Record<string, string | null>;
    };
    expect(detail.result).toBe(answer);
    expect(detail).toMatchObject({
      id: run.id,
      cron_job_id: jobId,
      job_name: 'results hundred-kb',
      status: 'success',
      origin: run.origin,
      result_truncated: false,
      result_complete: false,
      model: 'resolved-model-7b',
      usage: { prompt_tokens: 10, completion_tokens: Math.ceil(answer.length / 4) },
      attempts: 1,
      error: null,
      error_kind: null,
      deliveries: [],
    });
    expect(detail.prompt_sent.map((m) => m.role)).toEqual(['system', 'user']);
    expect(detail.prompt_sent[1]?.content).toBe('hundred-kb');
    expect(detail.prompt_sent[0]?.content).toContain(jobId);
    expect(detail.attempt_log).toHaveLength(1);
    expect(detail.attempt_log[0]?.outcome).toBe('success');
    expect(detail.attempt_log[0]?.duration_ms).toBeGreaterThanOrEqual(0);
    const { timings } = detail;
    const at = (name: string) => Date.parse(timings[name] as string);
    expect(at('scheduled_at')).toBeLessThanOrEqual(at('model_called_at'));
    expect(at('started_at')).toBeLessThanOrEqual(at('model_called_at'));
    expect(at('model_called_at')).toBeLessThanOrEqual(at('finished_at'));
  });

  it('cuts a 2 MB answer at RUN_RESULT_MAX_BYTES (1 MiB) and says so', async () => {
    const answer = answerOf(2 * 1000 * 1000, 'two-mb');
    llm.setHandler((body) =>
      JSON.stringify(body).includes('two-mb-answer') ? { content: answer } : { content: 'ok' },
    );
    const { jobId, run } = await runOnce('two-mb-answer');
    expect(run).toMatchObject({
      status: 'success',
      result_bytes: KIB * KIB,
      result_truncated: true,
    });
    const detail = (await (await svc.api('GET', `/v1/runs/${run.id}`)).json()) as {
      result: string;
      result_truncated: boolean;
    };
    expect(detail.result_truncated).toBe(true);
    expect(detail.result).toBe(answer.slice(0, KIB * KIB));
    expect(detail.result.endsWith('TAIL')).toBe(false);
    const file = path.join(objectsDir, DEFAULT_TENANT_ID, 'runs', jobId, `${run.id}.txt`);
    expect((await readFile(file)).length).toBe(KIB * KIB);
  });

  it('keeps an answer up to 8 KiB in the row only; a list shows its first 4,096 characters', async () => {
    const answer = answerOf(6 * KIB, 'six');
    llm.setHandler((body) =>
      JSON.stringify(body).includes('six-kb') ? { content: answer } : { content: 'ok' },
    );
    const { jobId, run } = await runOnce('six-kb');
    expect(run).toMatchObject({ result: answer, result_object_key: null, result_bytes: 6 * KIB });
    expect(existsSync(path.join(objectsDir, DEFAULT_TENANT_ID, 'runs', jobId))).toBe(false);
    const list = (await (await svc.api('GET', `/v1/cron-jobs/${jobId}/runs`)).json()) as {
      data: { result: string; result_complete: boolean }[];
    };
    expect(list.data[0]?.result).toBe(answer.slice(0, 4096));
    expect(list.data[0]?.result_complete).toBe(false);
    const detail = (await (await svc.api('GET', `/v1/runs/${run.id}`)).json()) as {
      result: string;
    };
    expect(detail.result).toBe(answer);
  });

  it('keeps the stored results as long as the runs of a deleted job, then purges them', async () => {
    const answer = answerOf(20 * KIB, 'deleted');
    llm.setHandler(() => ({ content: answer }));
    const { jobId, run } = await runOnce('to be deleted');
    const dir = path.join(objectsDir, DEFAULT_TENANT_ID, 'runs', jobId);
    expect(existsSync(path.join(dir, `${run.id}.txt`))).toBe(true);
    expect((await svc.api('DELETE', `/v1/cron-jobs/${jobId}`)).status).toBe(204);
    expect(existsSync(path.join(dir, `${run.id}.txt`))).toBe(true);
    const detail = await svc.api('GET', `/v1/runs/${run.id}`);
    expect(detail.status).toBe(200);
    expect(((await detail.json()) as { result: string }).result).toBe(answer);

    // Retention removes the run (here by hand), and the next upkeep, over an hour after the
    // delete, purges the job's row and then its objects.
    await db.query('DELETE FROM cron_job_runs WHERE cron_job_id = $1', [jobId]);
    await db.query(`UPDATE cron_jobs SET deleted_at = now() - interval '2 hours' WHERE id = $1`, [
      jobId,
    ]);
    const pool = createAppPool(databaseUrl);
    try {
      await maintainRunHistory(
        {
          store: createPgJobStore(pool, 'results-upkeep'),
          log: silentLogger(),
          results: createResultStore(new DiskObjectStore(objectsDir)),
        },
        () => true,
      );
    } finally {
      await pool.end();
    }
    expect(existsSync(dir)).toBe(false);
    expect((await db.query('SELECT 1 FROM cron_jobs WHERE id = $1', [jobId])).rowCount).toBe(0);
    expect((await svc.api('GET', `/v1/runs/${run.id}`)).status).toBe(404);
  });

  it('shows a run only to its tenant', async () => {
    const { run } = await runOnce('private');
    const tenant = await svc.api('POST', '/v1/tenants', ADMIN_TOKEN, { name: 'other tenant' });
    const { id: tenantId } = (await tenant.json()) as { id: string };
    const created = await svc.api('POST', '/v1/api-keys', ADMIN_TOKEN, {
      tenant_id: tenantId,
      name: 'other',
    });
    expect(created.status).toBe(201);
    const { key } = (await created.json()) as { key: string };
    expect((await svc.api('GET', `/v1/runs/${run.id}`)).status).toBe(200);
    const foreign = await svc.api('GET', `/v1/runs/${run.id}`, key);
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toEqual({
      error: { code: 'not_found', message: `no run with id ${run.id}` },
    });
    expect((await svc.api('GET', '/v1/runs/not-a-uuid')).status).toBe(404);
  });

  it('never reads an object outside the run’s tenant, even if a row pointed there', async () => {
    const { run } = await runOnce('pointing elsewhere');
    await db.query('UPDATE cron_job_runs SET result_object_key = $1 WHERE id = $2', [
      '0b5f3c3e-1d2a-4c6e-9f00-00000000000b/runs/x/y.txt',
      run.id,
    ]);
    const answer = await svc.api('GET', `/v1/runs/${run.id}`);
    expect(answer.status).toBe(404);
  });

  it('records a manual run as manual', async () => {
    const job = await insertJob(db, { name: 'by hand', schedule: '0 0 1 1 *', prompt: 'manual' });
    await waitFor(
      async () => {
        const answer = await svc.api('POST', `/v1/cron-jobs/${job.id}/trigger`);
        expect(answer.status).toBe(202);
      },
      { timeoutMs: 10_000, what: 'the trigger to be accepted' },
    );
    const run = await firstFinishedRun(job.id);
    expect(run.origin).toBe('manual');
    const detail = (await (await svc.api('GET', `/v1/runs/${run.id}`)).json()) as {
      origin: string;
    };
    expect(detail.origin).toBe('manual');
  });

  it('shows a retrying run: attempts and the attempt log grow while it is running', async () => {
    let calls = 0;
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    llm.setHandler(async (body) => {
      if (!JSON.stringify(body).includes('retrying-run')) return { content: 'ok' };
      calls += 1;
      if (calls <= 2) return { status: 503, headers: { 'retry-after': '0.2' } };
      await released;
      return { content: 'finally' };
    });
    const job = await insertJob(db, {
      name: 'retrying',
      schedule: '* * * * * *',
      prompt: 'retrying-run',
    });
    const running = await waitFor(
      async () => {
        const { rows } = await db.query<{ id: string }>(
          "SELECT id FROM cron_job_runs WHERE cron_job_id = $1 AND status = 'running'",
          [job.id],
        );
        const id = rows[0]?.id;
        if (!id) throw new Error('not running yet');
        const detail = (await (await svc.api('GET', `/v1/runs/${id}`)).json()) as {
          status: string;
          attempts: number;
          attempt_log: { outcome: string | null }[];
        };
        expect(detail.status).toBe('running');
        expect(detail.attempts).toBe(3);
        expect(detail.attempt_log.map((a) => a.outcome)).toEqual([
          'retried_overloaded',
          'retried_overloaded',
          null,
        ]);
        return id;
      },
      { timeoutMs: 15_000, intervalMs: 50, what: 'the third attempt to show while running' },
    );
    await db.query('UPDATE cron_jobs SET enabled = false WHERE id = $1', [job.id]);
    const list = (await (await svc.api('GET', `/v1/cron-jobs/${job.id}/runs`)).json()) as {
      data: { id: string; attempts: number; status: string }[];
    };
    expect(list.data.find((r) => r.id === running)).toMatchObject({
      status: 'running',
      attempts: 3,
    });
    release();
    const run = await firstFinishedRun(job.id);
    expect(run).toMatchObject({ id: running, status: 'success', result: 'finally' });
    const detail = (await (await svc.api('GET', `/v1/runs/${running}`)).json()) as {
      attempts: number;
      attempt_log: { outcome: string | null }[];
    };
    expect(detail.attempts).toBe(3);
    expect(detail.attempt_log.map((a) => a.outcome)).toEqual([
      'retried_overloaded',
      'retried_overloaded',
      'success',
    ]);
  });
});

describe('full results on S3 (s3rver)', () => {
  let s3: S3Server;
  let svc: Service;
  beforeAll(async () => {
    s3 = await startS3Server();
    svc = await start({
      S3_ENDPOINT: s3.endpoint,
      S3_BUCKET: 'hermesx-results',
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
    });
  });
  afterAll(async () => {
    await db.query('DELETE FROM cron_jobs');
    await svc.service.stop();
    await s3.close();
  });

  it('keeps a 100 KB answer in the bucket, returns it whole, and keeps it after the job is deleted', async () => {
    const answer = answerOf(100 * KIB, 's3');
    llm.setHandler(() => ({ content: answer }));
    const { jobId, run } = await runOnce('s3 hundred');
    expect(run.result_object_key).toBe(`${DEFAULT_TENANT_ID}/runs/${jobId}/${run.id}.txt`);
    const bucket = new S3ObjectStore({
      source: 'S3_*',
      endpoint: s3.endpoint,
      bucket: 'hermesx-results',
      region: 'us-east-1',
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
    });
    const key = run.result_object_key as string;
    expect((await bucket.get(key))?.toString('utf8')).toBe(answer);
    const detail = (await (await svc.api('GET', `/v1/runs/${run.id}`)).json()) as {
      result: string;
    };
    expect(detail.result).toBe(answer);
    expect((await svc.api('DELETE', `/v1/cron-jobs/${jobId}`)).status).toBe(204);
    // The run outlives its job, and so does its answer (purged with the run's job row).
    expect((await bucket.get(key))?.toString('utf8')).toBe(answer);
    bucket.close();
  });
});

describe('an object store that refuses writes', () => {
  it('fails the run as result_not_stored and keeps the short form, never a missing object', async () => {
    // Writable at startup (an unwritable one stops it), then a file where the store's directory
    // was: every later write fails.
    const dir = path.join(await tempDir('blocked'), 'objects');
    const svc = await start({ OBJECT_STORE_DIR: dir });
    await rm(dir, { recursive: true, force: true });
    await writeFile(dir, 'a file where the store wants a directory');
    const answer = answerOf(50 * KIB, 'refused');
    llm.setHandler(() => ({ content: answer }));
    const { run } = await runOnce('refused write');
    expect(run).toMatchObject({
      status: 'failed',
      error_kind: 'result_not_stored',
      result: answer.slice(0, 4096),
      result_object_key: null,
      result_truncated: true,
    });
    expect(run.error).toMatch(/the answer \(51200 bytes\) could not be stored/);
    const detail = (await (await svc.api('GET', `/v1/runs/${run.id}`)).json()) as {
      result: string;
    };
    expect(detail.result).toBe(answer.slice(0, 4096));
    await svc.service.stop();
  });
});
