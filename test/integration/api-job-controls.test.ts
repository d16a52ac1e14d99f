// The per-job run controls through the REST API on a real PostgreSQL: labels and their filters,
// pausing with a reason, the limits (ends_at, max_runs, pause_after_failures, recorded by the
// same SQL that records runs), the per-job timeout and model, and GET /v1/runs across jobs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCronjobTool } from '../../src/agent/tools/cronjob.js';
import type { RunOutcome } from '../../src/domain/run.js';
import { createPgJobStore } from '../../src/db/job-store.js';
import {
  buildTestApp,
  call,
  createJob,
  createTenantWithKey,
  expectError,
  type JobView,
  type TestApp,
} from '../helpers/api.js';
import { createTestDatabase } from '../helpers/database.js';

interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

interface RunItem {
  id: string;
  cron_job_id: string;
  job_name: string;
  labels: Record<string, string>;
  status: string;
  error_kind: string | null;
  scheduled_at: string;
}

const NOW = new Date('2030-01-01T00:02:30.000Z');
const FAILED: RunOutcome = {
  success: false,
  result: null,
  error: 'the model server answered 500',
  errorKind: 'model_error',
  attempts: 1,
};
const SUCCEEDED: RunOutcome = {
  success: true,
  result: 'done',
  error: null,
  errorKind: null,
  attempts: 1,
};

describe('per-job run controls', () => {
  let api: TestApp;
  let key: string;
  let tenantId: string;

  beforeAll(async () => {
    const url = await createTestDatabase();
    api = await buildTestApp({
      databaseUrl: url,
      now: () => NOW,
      schedulerRunning: () => true,
      config: { LLM_MODELS: 'small-model, large-model', SCHEDULER_EXEC_TIMEOUT: '2m' },
    });
    const created = await createTenantWithKey(api.app, { min_schedule_interval_seconds: 0 });
    key = created.key;
    tenantId = created.tenant.id;
  });

  afterAll(async () => {
    await api?.close();
  });

  const get = async (id: string) =>
    (await call(api.app, key, 'GET', `/v1/cron-jobs/${id}`)).json<JobView>();
  const patch = (id: string, body: unknown) =>
    call(api.app, key, 'PATCH', `/v1/cron-jobs/${id}`, body);

  /** Runs one occurrence the way a pod records it (scheduler_claim, then scheduler_finish). */
  let minute = 0;
  async function recordRun(jobId: string, outcome: RunOutcome): Promise<string> {
    const store = createPgJobStore(api.pool, 'pod-test');
    minute += 1;
    const at = new Date(Date.UTC(2029, 11, 31, 0, minute));
    const claim = await store.claimRun(jobId, at, 'pod-test');
    if (claim.kind !== 'claimed') throw new Error(`not claimed: ${claim.kind}`);
    expect(await store.finishRun(claim.run.runId, outcome, 'pod-test')).toBe('recorded');
    return claim.run.runId;
  }

  it('stores labels, lists them, and filters by key=value (AND) and by key', async () => {
    const ops = await createJob(api.app, key, {
      name: 'ops',
      labels: { team: 'ops', env: 'prod' },
    });
    await createJob(api.app, key, { name: 'ops-dev', labels: { team: 'ops', env: 'dev' } });
    await createJob(api.app, key, { name: 'web', labels: { team: 'web' } });
    expect(ops.labels).toEqual({ env: 'prod', team: 'ops' });

    const names = async (query: string) =>
      (await call(api.app, key, 'GET', `/v1/cron-jobs?${query}`))
        .json<Page<JobView>>()
        .data.map((job) => job.name)
        .sort();
    expect(await names('label=team=ops')).toEqual(['ops', 'ops-dev']);
    expect(await names('label=team=ops&label=env=prod')).toEqual(['ops']);
    expect(await names('label=env')).toEqual(['ops', 'ops-dev']);
    expect(await names('label=team=nobody')).toEqual([]);
    expect(await names('label=team')).toEqual(['ops', 'ops-dev', 'web']);

    expectError(
      await call(api.app, key, 'GET', '/v1/cron-jobs?label=bad%20key'),
      400,
      'validation_error',
    );
    const seventeen = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']));
    expectError(
      await call(api.app, key, 'POST', '/v1/cron-jobs', {
        name: 'x',
        schedule: '@hourly',
        prompt: 'p',
        labels: seventeen,
      }),
      400,
      'validation_error',
    );
    // PATCH replaces the labels; {} removes them all.
    expect((await patch(ops.id, { labels: { team: 'sre' } })).json<JobView>().labels).toEqual({
      team: 'sre',
    });
  });

  it('pauses with a reason (paused_by user) and resuming clears all three', async () => {
    const job = await createJob(api.app, key);
    const paused = (
      await patch(job.id, { enabled: false, paused_reason: 'vendor outage' })
    ).json<JobView>();
    expect(paused).toMatchObject({
      enabled: false,
      paused_reason: 'vendor outage',
      paused_at: NOW.toISOString(),
      paused_by: 'user',
      next_run_at: null,
    });
    // The reason may be reworded while paused; who and when stay.
    const reworded = (await patch(job.id, { paused_reason: 'still out' })).json<JobView>();
    expect(reworded).toMatchObject({ paused_reason: 'still out', paused_by: 'user' });

    const resumed = (await patch(job.id, { enabled: true })).json<JobView>();
    expect(resumed).toMatchObject({
      enabled: true,
      paused_reason: null,
      paused_at: null,
      paused_by: null,
      stopped_by: null,
    });
    expect(resumed.next_run_at).not.toBeNull();
    expectError(await patch(job.id, { paused_reason: 'no' }), 400, 'validation_error');
  });

  it('pause_after_failures: N failed occurrences in a row pause the job, paused_by system', async () => {
    const job = await createJob(api.app, key, { pause_after_failures: 3 });
    await recordRun(job.id, FAILED);
    await recordRun(job.id, SUCCEEDED); // a success resets the count
    await recordRun(job.id, FAILED);
    await recordRun(job.id, FAILED);
    expect(await get(job.id)).toMatchObject({ enabled: true, consecutive_failures: 2 });
    await recordRun(job.id, FAILED);
    const stopped = await get(job.id);
    expect(stopped).toMatchObject({
      enabled: false,
      paused_by: 'system',
      stopped_by: 'pause_after_failures',
      consecutive_failures: 3,
      next_run_at: null,
    });
    expect(stopped.paused_reason).toBe(
      '3 consecutive failed runs; last error: the model server answered 500',
    );
    expect(stopped.paused_at).not.toBeNull();

    const resumed = (await patch(job.id, { enabled: true })).json<JobView>();
    expect(resumed).toMatchObject({
      enabled: true,
      paused_by: null,
      paused_reason: null,
      paused_at: null,
      stopped_by: null,
      consecutive_failures: 0,
    });
  });

  it('max_runs: the job disables itself after N runs and says so', async () => {
    const job = await createJob(api.app, key, { max_runs: 2 });
    await recordRun(job.id, SUCCEEDED);
    expect(await get(job.id)).toMatchObject({ enabled: true, run_count: 1 });
    await recordRun(job.id, FAILED);
    expect(await get(job.id)).toMatchObject({
      enabled: false,
      run_count: 2,
      stopped_by: 'max_runs',
      paused_by: 'system',
      paused_reason: 'max_runs reached: 2 runs',
      next_run_at: null,
    });
    // Enabling again needs a higher (or no) max_runs.
    expectError(await patch(job.id, { enabled: true }), 422, 'limit_reached');
    const raised = (await patch(job.id, { enabled: true, max_runs: 3 })).json<JobView>();
    expect(raised).toMatchObject({ enabled: true, max_runs: 3, stopped_by: null });
  });

  it('ends_at: no occurrence after it, a run-now after it is refused, and the job says ends_at', async () => {
    const job = await createJob(api.app, key, {
      schedule: '0 * * * *',
      ends_at: '2030-01-01T02:30:00Z',
    });
    expect(job).toMatchObject({ next_run_at: '2030-01-01T01:00:00.000Z', stopped_by: null });
    const preview = await call(api.app, key, 'PATCH', `/v1/cron-jobs/${job.id}`, {
      ends_at: '2030-01-01T00:59:59Z',
    });
    expect(preview.json<JobView>()).toMatchObject({
      next_run_at: null,
      ends_at: '2030-01-01T00:59:59.000Z',
    });
    const ended = (await patch(job.id, { ends_at: '2029-12-31T00:00:00Z' })).json<JobView>();
    expect(ended).toMatchObject({ next_run_at: null, stopped_by: 'ends_at', enabled: true });
    expectError(
      await call(api.app, key, 'POST', `/v1/cron-jobs/${job.id}/trigger`),
      409,
      'job_ended',
    );
    const cleared = (await patch(job.id, { ends_at: null })).json<JobView>();
    expect(cleared).toMatchObject({
      ends_at: null,
      stopped_by: null,
      next_run_at: '2030-01-01T01:00:00.000Z',
    });
  });

  it('timeout: a Go duration up to SCHEDULER_EXEC_TIMEOUT, given back as one', async () => {
    const job = await createJob(api.app, key, { timeout: '90s' });
    expect(job.timeout).toBe('1m30s');
    expectError(await patch(job.id, { timeout: '3m' }), 400, 'validation_error');
    expectError(await patch(job.id, { timeout: 'soon' }), 400, 'validation_error');
    expectError(await patch(job.id, { timeout: '500ms' }), 400, 'validation_error');
    expect((await patch(job.id, { timeout: null })).json<JobView>().timeout).toBeNull();
  });

  it('jitter: a Go duration shorter than the gap between occurrences', async () => {
    const job = await createJob(api.app, key, { schedule: '*/5 * * * *', jitter: '90s' });
    expect(job.jitter).toBe('1m30s');
    // scheduled times stay nominal: next_run_at is the schedule's, not shifted.
    expect(job.next_run_at).toBe('2030-01-01T00:05:00.000Z');
    expectError(await patch(job.id, { jitter: '5m' }), 422, 'jitter_too_long');
    expectError(await patch(job.id, { jitter: '2h' }), 400, 'validation_error');
    expect((await patch(job.id, { jitter: null })).json<JobView>().jitter).toBeNull();
  });

  it('overlap: skip by default, one of the four policies, null back to skip', async () => {
    const plain = await createJob(api.app, key, {});
    expect(plain.overlap).toBe('skip');
    const job = await createJob(api.app, key, { overlap: 'buffer_one' });
    expect(job.overlap).toBe('buffer_one');
    for (const overlap of ['allow_all', 'cancel_other', 'skip'] as const) {
      expect((await patch(job.id, { overlap })).json<JobView>().overlap).toBe(overlap);
    }
    const refused = expectError(await patch(job.id, { overlap: 'queue' }), 400, 'validation_error');
    expect(refused).toContain('overlap');
    await patch(job.id, { overlap: 'allow_all' });
    expect((await patch(job.id, { overlap: null })).json<JobView>().overlap).toBe('skip');
  });

  it('model: only one of LLM_MODELS', async () => {
    const job = await createJob(api.app, key, { model: 'large-model' });
    expect(job.model).toBe('large-model');
    const refused = expectError(await patch(job.id, { model: 'gpt-9' }), 422, 'model_not_allowed');
    expect(refused).toContain('small-model, large-model');
    expect((await patch(job.id, { model: null })).json<JobView>().model).toBeNull();
  });

  it("GET /v1/runs filters across jobs; a job's runs filter by status", async () => {
    const { key: other } = await createTenantWithKey(api.app, { min_schedule_interval_seconds: 0 });
    const mine = key;
    key = other; // a fresh tenant, so the counts below are exact
    try {
      const a = await createJob(api.app, key, { name: 'a', labels: { team: 'ops' } });
      const b = await createJob(api.app, key, { name: 'b', labels: { team: 'web' } });
      const aFailed = await recordRun(a.id, FAILED);
      await recordRun(a.id, SUCCEEDED);
      await recordRun(b.id, FAILED);
      await recordRun(b.id, SUCCEEDED);
      const list = async (query: string) =>
        (await call(api.app, key, 'GET', `/v1/runs?${query}`)).json<Page<RunItem>>();

      expect((await list('')).data).toHaveLength(4);
      const failedOps = await list('status=failed&label=team=ops');
      expect(failedOps.data.map((r) => r.id)).toEqual([aFailed]);
      expect(failedOps.data[0]).toMatchObject({
        job_name: 'a',
        labels: { team: 'ops' },
        error_kind: 'model_error',
      });
      expect((await list(`job_id=${b.id}`)).data.every((r) => r.cron_job_id === b.id)).toBe(true);
      expect((await list('error_kind=model_error')).data).toHaveLength(2);
      expect((await list('error_kind=timeout')).data).toHaveLength(0);
      expect((await list('origin=scheduled')).data).toHaveLength(4);
      expect((await list('origin=manual')).data).toHaveLength(0);
      // Keyset pages: 4 runs in pages of 3 and 1, newest occurrence first, none twice.
      const first = await list('limit=3');
      const second = await list(`limit=3&cursor=${first.next_cursor}`);
      const all = [...first.data, ...second.data];
      expect(second.next_cursor).toBeNull();
      expect(new Set(all.map((r) => r.id)).size).toBe(4);
      const times = all.map((r) => r.scheduled_at);
      expect(times).toEqual([...times].sort().reverse());
      // The time range: [from, to).
      const [newest] = first.data;
      const older = await list(`to=${encodeURIComponent(newest!.scheduled_at)}`);
      expect(older.data).toHaveLength(3);
      expect((await list(`from=${encodeURIComponent(newest!.scheduled_at)}`)).data).toHaveLength(1);
      expectError(await call(api.app, key, 'GET', '/v1/runs?status=nope'), 400, 'validation_error');
      expectError(await call(api.app, key, 'GET', '/v1/runs?job_id=x'), 400, 'validation_error');

      const failedOfA = await call(api.app, key, 'GET', `/v1/cron-jobs/${a.id}/runs?status=failed`);
      expect(failedOfA.json<Page<RunItem>>().data.map((r) => r.id)).toEqual([aFailed]);
      // Another tenant sees none of these runs.
      expect(
        (await call(api.app, mine, 'GET', `/v1/runs?job_id=${a.id}`)).json<Page<RunItem>>().data,
      ).toEqual([]);
    } finally {
      key = mine;
    }
  });

  it('the cronjob tool takes the same controls, under the same rules', async () => {
    const tool = createCronjobTool({
      pool: api.pool,
      now: () => NOW,
      schedulerRunning: () => true,
      controls: { execTimeoutMs: 120_000, listModels: () => Promise.resolve(['small-model']) },
    });
    const context = { tenantId, signal: new AbortController().signal, changes: [] };
    const use = async (args: Record<string, unknown>) =>
      JSON.parse(await tool.run(args, context)) as {
        ok: boolean;
        job?: JobView;
        data?: JobView[];
        error?: { code: string };
      };
    const created = await use({
      action: 'create',
      name: 'tool job',
      schedule: '@hourly',
      prompt: 'hi',
      labels: { via: 'tool' },
      timeout: '45s',
      pause_after_failures: 2,
      max_runs: 5,
      overlap: 'cancel_other',
    });
    expect(created.job).toMatchObject({
      labels: { via: 'tool' },
      timeout: '45s',
      pause_after_failures: 2,
      max_runs: 5,
      overlap: 'cancel_other',
    });
    const id = created.job!.id;
    const listed = await use({ action: 'list', label: 'via=tool' });
    expect(listed.data?.map((job) => job.id)).toEqual([id]);
    const paused = await use({ action: 'disable', id, paused_reason: 'asked by the user' });
    expect(paused.job).toMatchObject({ paused_by: 'user', paused_reason: 'asked by the user' });
    expect(await use({ action: 'update', id, model: 'huge-model' })).toMatchObject({
      ok: false,
      error: { code: 'model_not_allowed' },
    });
    // The tool's arguments are checked first: the model reads which policies there are.
    expect(await use({ action: 'update', id, overlap: 'sometimes' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_arguments', message: expect.stringContaining('cancel_other') },
    });
    expect(await use({ action: 'update', id, timeout: '10m' })).toMatchObject({
      ok: false,
      error: { code: 'validation_error' },
    });
  });
});
