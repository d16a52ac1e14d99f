import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  JOB_FIELDS,
  buildTestApp,
  call,
  createJob,
  createTenantWithKey,
  expectError,
  type JobView,
  type TestApp,
} from '../helpers/api.js';
import { createTestDatabase, withOwner } from '../helpers/database.js';
import { waitFor } from '../helpers/process-wait.js';

const NOW = new Date('2030-01-01T00:02:30.000Z');
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

interface RunView {
  id: string;
  cron_job_id: string;
  scheduled_at: string;
  started_at: string;
  finished_at: string | null;
  status: string;
  result: string | null;
  error: string | null;
  error_kind: string | null;
  attempts: number;
  start_lag_ms: number | null;
  duration_ms: number | null;
  pod_id: string;
  created_at: string;
}

/** Follows next_cursor from the first page to the last; returns every page. */
async function walk<T>(app: FastifyInstance, key: string, url: string, limit?: number) {
  const pages: Page<T>[] = [];
  let cursor: string | null = null;
  do {
    const query = new URLSearchParams();
    if (limit !== undefined) query.set('limit', String(limit));
    if (cursor !== null) query.set('cursor', cursor);
    const qs = query.toString();
    const response = await call(app, key, 'GET', qs ? `${url}?${qs}` : url);
    expect(response.statusCode, response.body).toBe(200);
    const page = response.json<Page<T>>();
    pages.push(page);
    cursor = page.next_cursor;
    expect(pages.length).toBeLessThan(1000);
  } while (cursor !== null);
  return pages;
}

describe('cron jobs API', () => {
  let url: string;
  let testApp: TestApp;
  let app: FastifyInstance;
  let scheduler = true;
  let key: string;
  let tenantId: string;

  beforeAll(async () => {
    url = await createTestDatabase();
    testApp = await buildTestApp({
      databaseUrl: url,
      now: () => NOW,
      schedulerRunning: () => scheduler,
    });
    app = testApp.app;
    const created = await createTenantWithKey(app, { max_cron_jobs: 1000 });
    key = created.key;
    tenantId = created.tenant.id;
  });

  afterAll(async () => {
    await testApp?.close();
  });

  describe('create and get', () => {
    it('answers 201 with the full job shape', async () => {
      const response = await call(app, key, 'POST', '/v1/cron-jobs', {
        name: 'Daily digest',
        schedule: '*/5 * * * *',
        prompt: 'Summarise the news',
      });
      expect(response.statusCode).toBe(201);
      const job = response.json<JobView>();
      expect(Object.keys(job).sort()).toEqual([...JOB_FIELDS].sort());
      expect(job).toEqual({
        id: expect.stringMatching(UUID),
        name: 'Daily digest',
        schedule: '*/5 * * * *',
        timezone: 'UTC',
        prompt: 'Summarise the news',
        description: null,
        enabled: true,
        next_run_at: '2030-01-01T00:05:00.000Z',
        last_run_at: null,
        last_run_success: null,
        last_run_error: null,
        last_run_error_kind: null,
        run_count: 0,
        created_at: expect.stringMatching(ISO_MS),
        updated_at: expect.stringMatching(ISO_MS),
        labels: {},
        paused_reason: null,
        paused_at: null,
        paused_by: null,
        pause_after_failures: null,
        consecutive_failures: 0,
        ends_at: null,
        max_runs: null,
        max_run_tokens: null,
        daily_budget_micros: null,
        stopped_by: null,
        timeout: null,
        model: null,
        models: [],
        output_schema: null,
        jitter: null,
        overlap: 'skip',
        retry: null,
        mcp_servers: [],
        skills: [],
        context: { previous_result: false },
        notify: null,
      });

      const got = await call(app, key, 'GET', `/v1/cron-jobs/${job.id}`);
      expect(got.statusCode).toBe(200);
      expect(got.json()).toEqual(job);
      const stored = await withOwner(url, (client) =>
        client.query<{ tenant_id: string }>('SELECT tenant_id FROM cron_jobs WHERE id = $1', [
          job.id,
        ]),
      );
      expect(stored.rows[0]?.tenant_id).toBe(tenantId);
    });

    it('stores timezone and enabled; a disabled job has no next run', async () => {
      const job = await createJob(app, key, {
        name: '  padded name  ',
        schedule: '0 9 * * 1-5',
        timezone: 'Europe/Paris',
        enabled: false,
      });
      expect(job).toMatchObject({
        name: 'padded name',
        schedule: '0 9 * * 1-5',
        timezone: 'Europe/Paris',
        enabled: false,
        next_run_at: null,
      });
      const enabled = await createJob(app, key, {
        schedule: '0 9 * * *',
        timezone: 'Europe/Paris',
      });
      // 2030-01-01 09:00 in Paris (UTC+1 in winter).
      expect(enabled.next_run_at).toBe('2030-01-01T08:00:00.000Z');
    });

    it('shows the zone a CRON_TZ= prefix sets, since that is the zone it fires in', async () => {
      const job = await createJob(app, key, { schedule: 'CRON_TZ=Asia/Tokyo 30 6 * * *' });
      expect(job).toMatchObject({
        schedule: 'CRON_TZ=Asia/Tokyo 30 6 * * *',
        timezone: 'Asia/Tokyo',
        next_run_at: '2030-01-01T21:30:00.000Z',
      });
      const both = await createJob(app, key, {
        schedule: 'CRON_TZ=Asia/Tokyo 30 6 * * *',
        timezone: 'Europe/Paris',
      });
      expect(both.timezone).toBe('Asia/Tokyo');
    });

    it('accepts macros and @every', async () => {
      expect((await createJob(app, key, { schedule: '@hourly' })).next_run_at).toBe(
        '2030-01-01T01:00:00.000Z',
      );
      expect((await createJob(app, key, { schedule: '@every 90s' })).next_run_at).toBe(
        new Date(Math.floor(NOW.getTime() / 90_000 + 1) * 90_000).toISOString(),
      );
    });

    it('unknown and malformed ids answer 404 not_found', async () => {
      for (const id of ['6f1c7e0a-1111-4222-8333-444455556666', 'nope', "1'; DROP TABLE x;--"]) {
        const path = `/v1/cron-jobs/${encodeURIComponent(id)}`;
        expectError(await call(app, key, 'GET', path), 404, 'not_found');
        expectError(await call(app, key, 'PATCH', path, { name: 'x' }), 404, 'not_found');
        expectError(await call(app, key, 'DELETE', path), 404, 'not_found');
        expectError(await call(app, key, 'GET', `${path}/runs`), 404, 'not_found');
        expectError(await call(app, key, 'POST', `${path}/trigger`), 404, 'not_found');
      }
    });
  });

  describe('list', () => {
    let listKey: string;
    let jobs: JobView[];

    beforeAll(async () => {
      const created = await createTenantWithKey(app, { max_cron_jobs: 1000 });
      listKey = created.key;
      jobs = [];
      for (let i = 0; i < 45; i++) jobs.push(await createJob(app, listKey, { name: `job ${i}` }));
    });

    it('lists newest first, 20 by default, with a cursor to the rest', async () => {
      const response = await call(app, listKey, 'GET', '/v1/cron-jobs');
      expect(response.statusCode).toBe(200);
      const page = response.json<Page<JobView>>();
      expect(page.data).toHaveLength(20);
      expect(page.next_cursor).toEqual(expect.any(String));
      const newestFirst = [...jobs].reverse();
      expect(page.data).toEqual(newestFirst.slice(0, 20));
    });

    it('walking the pages returns each job once, in order', async () => {
      for (const limit of [undefined, 1, 7, 44, 45, 100]) {
        const pages = await walk<JobView>(app, listKey, '/v1/cron-jobs', limit);
        const ids = pages.flatMap((p) => p.data.map((j) => j.id));
        expect(ids, `limit ${limit}`).toEqual([...jobs].reverse().map((j) => j.id));
        expect(pages.at(-1)?.next_cursor).toBeNull();
        const size = limit ?? 20;
        for (const page of pages.slice(0, -1)) expect(page.data).toHaveLength(size);
      }
    });

    it('limit 100 is the maximum; 0, -1, 101, 1e3, 2.5 and words answer 400', async () => {
      expect((await call(app, listKey, 'GET', '/v1/cron-jobs?limit=100')).statusCode).toBe(200);
      for (const limit of ['0', '-1', '101', '1e3', '2.5', 'ten', '', '%20', '1,2']) {
        expectError(
          await call(app, listKey, 'GET', `/v1/cron-jobs?limit=${limit}`),
          400,
          'validation_error',
        );
      }
    });

    it('a cursor this API did not return answers 400 invalid_cursor', async () => {
      const garbage = [
        'garbage',
        '!!!',
        Buffer.from('[1,2]').toString('base64url'),
        Buffer.from('["2030-01-01T00:00:00Z","not-a-uuid"]').toString('base64url'),
        Buffer.from('["yesterday","6f1c7e0a-1111-4222-8333-444455556666"]').toString('base64url'),
        Buffer.from('{"at":1}').toString('base64url'),
        Buffer.from('null').toString('base64url'),
      ];
      for (const cursor of garbage) {
        expectError(
          await call(app, listKey, 'GET', `/v1/cron-jobs?cursor=${encodeURIComponent(cursor)}`),
          400,
          'invalid_cursor',
        );
      }
      expectError(
        await call(app, listKey, 'GET', `/v1/cron-jobs?cursor=${'a'.repeat(600)}`),
        400,
        'validation_error',
      );
      expectError(
        await call(app, listKey, 'GET', '/v1/cron-jobs?unknown=1'),
        400,
        'validation_error',
      );
    });

    it('an empty tenant lists nothing', async () => {
      const empty = await createTenantWithKey(app);
      const response = await call(app, empty.key, 'GET', '/v1/cron-jobs');
      expect(response.json()).toEqual({ data: [], next_cursor: null });
    });

    it('pages correctly when jobs were created within the same millisecond', async () => {
      const dense = await createTenantWithKey(app, { max_cron_jobs: 1000 });
      // Microsecond timestamps inside one millisecond (and equal ones): the cursor must not skip them.
      const stamps = [
        '2031-05-05 10:00:00.123100+00',
        '2031-05-05 10:00:00.123200+00',
        '2031-05-05 10:00:00.123200+00',
        '2031-05-05 10:00:00.123900+00',
        '2031-05-05 10:00:00.124000+00',
        '2031-05-05 10:00:00.122999+00',
      ];
      const expected = await withOwner(url, async (client) => {
        for (const [i, stamp] of stamps.entries()) {
          await client.query(
            `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt, created_at)
             VALUES ($1, $2, '@daily', 'p', $3)`,
            [dense.tenant.id, `dense ${i}`, stamp],
          );
        }
        const { rows } = await client.query<{ id: string }>(
          'SELECT id FROM cron_jobs WHERE tenant_id = $1 ORDER BY created_at DESC, id DESC',
          [dense.tenant.id],
        );
        return rows.map((r) => r.id);
      });
      for (const limit of [1, 2, 4]) {
        const pages = await walk<JobView>(app, dense.key, '/v1/cron-jobs', limit);
        expect(
          pages.flatMap((p) => p.data.map((j) => j.id)),
          `limit ${limit}`,
        ).toEqual(expected);
      }
    });
  });

  describe('patch', () => {
    it('changes name, prompt, schedule, timezone and enabled; keeps the rest', async () => {
      const job = await createJob(app, key, { name: 'before', prompt: 'p1' });
      const renamed = await call(app, key, 'PATCH', `/v1/cron-jobs/${job.id}`, {
        name: 'after',
        prompt: 'p2',
      });
      expect(renamed.statusCode).toBe(200);
      expect(renamed.json()).toEqual({
        ...job,
        name: 'after',
        prompt: 'p2',
        updated_at: expect.stringMatching(ISO_MS),
      });

      const rescheduled = await call(app, key, 'PATCH', `/v1/cron-jobs/${job.id}`, {
        schedule: '30 6 * * *',
        timezone: 'Asia/Tokyo',
      });
      expect(rescheduled.json()).toMatchObject({
        schedule: '30 6 * * *',
        timezone: 'Asia/Tokyo',
        // 06:30 in Tokyo (UTC+9) is 21:30 UTC the day before.
        next_run_at: '2030-01-01T21:30:00.000Z',
      });

      const paused = await call(app, key, 'PATCH', `/v1/cron-jobs/${job.id}`, { enabled: false });
      expect(paused.json()).toMatchObject({ enabled: false, next_run_at: null, name: 'after' });
      const resumed = await call(app, key, 'PATCH', `/v1/cron-jobs/${job.id}`, { enabled: true });
      expect(resumed.json()).toMatchObject({
        enabled: true,
        next_run_at: '2030-01-01T21:30:00.000Z',
      });
      expect((await call(app, key, 'GET', `/v1/cron-jobs/${job.id}`)).json()).toEqual(
        resumed.json(),
      );
    });

    it('refuses {}, unknown fields, nulls and bad values', async () => {
      const job = await createJob(app, key);
      const cases: [unknown, number, string][] = [
        [{}, 400, 'validation_error'],
        [{ id: job.id }, 400, 'validation_error'],
        [{ run_count: 5 }, 400, 'validation_error'],
        [{ name: null }, 400, 'validation_error'],
        [{ enabled: 'yes' }, 400, 'validation_error'],
        [{ name: '' }, 400, 'validation_error'],
        [{ name: 'x'.repeat(201) }, 400, 'validation_error'],
        [{ prompt: '  ' }, 400, 'validation_error'],
        [{ schedule: '* * *' }, 422, 'invalid_schedule'],
        [{ timezone: 'Mars/Olympus' }, 422, 'invalid_schedule'],
        [{ schedule: '*/30 * * * * *' }, 422, 'schedule_too_frequent'],
      ];
      for (const [body, status, code] of cases) {
        expectError(await call(app, key, 'PATCH', `/v1/cron-jobs/${job.id}`, body), status, code);
      }
      expect((await call(app, key, 'GET', `/v1/cron-jobs/${job.id}`)).json()).toEqual(job);
    });
  });

  describe('delete', () => {
    it('answers 204 with no body, then 404; its runs stay in the history with its name', async () => {
      const job = await createJob(app, key);
      await withOwner(url, (client) =>
        client.query(
          `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, pod_id)
           VALUES ($1, $2, now(), 'pod-x')`,
          [job.id, tenantId],
        ),
      );
      const response = await call(app, key, 'DELETE', `/v1/cron-jobs/${job.id}`);
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      expectError(await call(app, key, 'GET', `/v1/cron-jobs/${job.id}`), 404, 'not_found');
      expectError(await call(app, key, 'DELETE', `/v1/cron-jobs/${job.id}`), 404, 'not_found');
      const listed = (await call(app, key, 'GET', '/v1/cron-jobs?limit=100')).json() as {
        data: { id: string }[];
      };
      expect(listed.data.map((j) => j.id)).not.toContain(job.id);
      const history = (await call(app, key, 'GET', `/v1/runs?job_id=${job.id}`)).json() as {
        data: { cron_job_id: string; job_name: string }[];
      };
      expect(history.data).toEqual([
        expect.objectContaining({ cron_job_id: job.id, job_name: job.name }),
      ]);
    });
  });

  describe('runs', () => {
    let job: JobView;
    let inserted: { id: string; scheduled_at: Date }[];

    beforeAll(async () => {
      job = await createJob(app, key, { name: 'with runs' });
      inserted = await withOwner(url, async (client) => {
        const rows: { id: string; scheduled_at: Date }[] = [];
        for (let i = 0; i < 30; i++) {
          const status = i % 3 === 0 ? 'failed' : i === 29 ? 'running' : 'success';
          const { rows: added } = await client.query<{ id: string; scheduled_at: Date }>(
            `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, pod_id,
               finished_at, result, error, error_kind, attempts, duration_ms)
             VALUES ($1, $2, $3, $4, 'pod-a', CASE WHEN $4 = 'running' THEN NULL ELSE now() END,
               CASE WHEN $4 = 'success' THEN 'done' END, CASE WHEN $4 = 'failed' THEN 'boom' END,
               CASE WHEN $4 = 'failed' THEN 'model_error' END,
               CASE WHEN $4 = 'running' THEN 0 ELSE 1 END,
               CASE WHEN $4 = 'running' THEN NULL ELSE 1200 END)
             RETURNING id, scheduled_at`,
            // Shuffled insertion order; scheduled_at decides the order.
            [job.id, tenantId, new Date(Date.UTC(2030, 0, 1, 0, (i * 7) % 30)), status],
          );
          rows.push(...added);
        }
        return rows;
      });
    });

    it('lists newest occurrence first with the run shape, 20 by default', async () => {
      const response = await call(app, key, 'GET', `/v1/cron-jobs/${job.id}/runs`);
      expect(response.statusCode).toBe(200);
      const page = response.json<Page<RunView>>();
      expect(page.data).toHaveLength(20);
      expect(page.next_cursor).toEqual(expect.any(String));
      const expectedOrder = [...inserted]
        .sort((a, b) => b.scheduled_at.getTime() - a.scheduled_at.getTime())
        .map((r) => r.id);
      expect(page.data.map((r) => r.id)).toEqual(expectedOrder.slice(0, 20));
      for (const run of page.data) {
        expect(run).toEqual({
          id: expect.stringMatching(UUID),
          cron_job_id: job.id,
          scheduled_at: expect.stringMatching(ISO_MS),
          started_at: expect.stringMatching(ISO_MS),
          finished_at: run.status === 'running' ? null : expect.stringMatching(ISO_MS),
          status: expect.stringMatching(/^(running|success|failed)$/),
          result: run.status === 'success' ? 'done' : null,
          error: run.status === 'failed' ? 'boom' : null,
          error_kind: run.status === 'failed' ? 'model_error' : null,
          attempts: run.status === 'running' ? 0 : 1,
          attempt: 1,
          duration_ms: run.status === 'running' ? null : 1200,
          pod_id: 'pod-a',
          not_before: null,
          created_at: expect.stringMatching(ISO_MS),
          origin: 'scheduled',
          result_bytes: null,
          result_complete: true,
          model_requests: run.status === 'running' ? 0 : 1,
          start_lag_ms: expect.any(Number),
          retry_wait_ms: 0,
          prompt_tokens: null,
          cached_tokens: null,
          completion_tokens: null,
          cost_micros: null,
        });
        expect(run.start_lag_ms).toBe(Date.parse(run.started_at) - Date.parse(run.scheduled_at));
      }
    });

    it('walks all runs once with any page size', async () => {
      const expectedOrder = [...inserted]
        .sort((a, b) => b.scheduled_at.getTime() - a.scheduled_at.getTime())
        .map((r) => r.id);
      for (const limit of [1, 4, 29, 30, 100]) {
        const pages = await walk<RunView>(app, key, `/v1/cron-jobs/${job.id}/runs`, limit);
        expect(pages.flatMap((p) => p.data.map((r) => r.id))).toEqual(expectedOrder);
      }
      for (const limit of ['0', '101', '-1', '1e3']) {
        expectError(
          await call(app, key, 'GET', `/v1/cron-jobs/${job.id}/runs?limit=${limit}`),
          400,
          'validation_error',
        );
      }
      expectError(
        await call(app, key, 'GET', `/v1/cron-jobs/${job.id}/runs?cursor=zzz`),
        400,
        'invalid_cursor',
      );
    });

    it('pages correctly through runs within the same millisecond', async () => {
      const dense = await createJob(app, key, { name: 'dense runs' });
      const ids = await withOwner(url, async (client) => {
        for (const stamp of ['.500100', '.500200', '.500300', '.500999', '.499999', '.501000']) {
          await client.query(
            `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, pod_id)
             VALUES ($1, $2, $3, 'pod-b')`,
            [dense.id, tenantId, `2030-02-02 02:02:02${stamp}+00`],
          );
        }
        const { rows } = await client.query<{ id: string }>(
          'SELECT id FROM cron_job_runs WHERE cron_job_id = $1 ORDER BY scheduled_at DESC, id DESC',
          [dense.id],
        );
        return rows.map((r) => r.id);
      });
      for (const limit of [1, 2, 5]) {
        const pages = await walk<RunView>(app, key, `/v1/cron-jobs/${dense.id}/runs`, limit);
        expect(pages.flatMap((p) => p.data.map((r) => r.id))).toEqual(ids);
      }
    });

    it('a job without runs lists nothing', async () => {
      const fresh = await createJob(app, key);
      const response = await call(app, key, 'GET', `/v1/cron-jobs/${fresh.id}/runs`);
      expect(response.json()).toEqual({ data: [], next_cursor: null });
    });
  });

  describe('preview', () => {
    const preview = (body: unknown) => call(app, key, 'POST', '/v1/cron-jobs/preview', body);

    it('returns the next 10 fire times after now by default', async () => {
      const response = await preview({ schedule: '*/5 * * * *' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        schedule: '*/5 * * * *',
        timezone: 'UTC',
        next: Array.from({ length: 10 }, (_, i) =>
          new Date(Date.UTC(2030, 0, 1, 0, 5 + 5 * i)).toISOString(),
        ),
      });
    });

    it('respects count (1 to 100) and from', async () => {
      const one = await preview({ schedule: '@daily', count: 1, from: '2024-02-28T12:00:00Z' });
      expect(one.json()).toEqual({
        schedule: '@daily',
        timezone: 'UTC',
        next: ['2024-02-29T00:00:00.000Z'],
      });
      const hundred = await preview({ schedule: '0 * * * *', count: 100 });
      expect(hundred.json<{ next: string[] }>().next).toHaveLength(100);
      const offset = await preview({
        schedule: '0 12 * * *',
        count: 2,
        from: '2024-06-01T13:00:00+02:00',
      });
      expect(offset.json<{ next: string[] }>().next).toEqual([
        '2024-06-01T12:00:00.000Z',
        '2024-06-02T12:00:00.000Z',
      ]);
      for (const count of [0, -1, 101, 1.5]) {
        expectError(await preview({ schedule: '@daily', count }), 400, 'validation_error');
      }
      for (const from of ['yesterday', '2024-02-28', 12, null]) {
        expectError(await preview({ schedule: '@daily', from }), 400, 'validation_error');
      }
    });

    it('respects the time zone, across daylight saving time', async () => {
      const response = await preview({
        schedule: '0 9 * * *',
        timezone: 'America/New_York',
        count: 3,
        from: '2024-03-09T00:00:00Z',
      });
      expect(response.json()).toEqual({
        schedule: '0 9 * * *',
        timezone: 'America/New_York',
        next: ['2024-03-09T14:00:00.000Z', '2024-03-10T13:00:00.000Z', '2024-03-11T13:00:00.000Z'],
      });
      const prefixed = await preview({
        schedule: 'CRON_TZ=Asia/Kolkata 0 9 * * *',
        count: 1,
        from: '2024-01-01T00:00:00Z',
      });
      expect(prefixed.json()).toMatchObject({
        timezone: 'Asia/Kolkata',
        next: ['2024-01-01T03:30:00.000Z'],
      });
    });

    it('a schedule that never fires again returns an empty list', async () => {
      const response = await preview({ schedule: '0 0 1 1 *', from: '2999-06-01T00:00:00Z' });
      expect(response.statusCode).toBe(200);
      expect(response.json<{ next: string[] }>().next).toEqual([]);
    });

    it('an invalid schedule answers 422 invalid_schedule naming the problem', async () => {
      const cases: [string, RegExp][] = [
        ['61 * * * *', /minute field "61" is out of range 0-59/],
        ['* 24 * * *', /hour field "24"/],
        ['* * 32 * *', /day-of-month field "32"/],
        ['* * * 13 *', /month field "13"/],
        ['* * * * 8', /day-of-week field "8"/],
        ['* * *', /expected 5 fields/],
        ['', /schedule is empty/],
        ['@fortnightly', /unknown macro "@fortnightly"/],
        ['@every', /@every needs a duration/],
        ['@every 10 parsecs', /invalid @every duration/],
        ['@every 500ms', /below the 1s minimum/],
        ['0 0 30 2 *', /never fires/],
      ];
      for (const [schedule, message] of cases) {
        const got = expectError(await preview({ schedule }), 422, 'invalid_schedule');
        expect(got, schedule).toMatch(message);
      }
      const zone = expectError(
        await preview({ schedule: '@daily', timezone: 'Mars/Olympus' }),
        422,
        'invalid_schedule',
      );
      expect(zone).toMatch(/unknown time zone "Mars\/Olympus"/);
    });

    it('refuses unknown fields and a missing schedule', async () => {
      expectError(await preview({ schedule: '@daily', name: 'x' }), 400, 'validation_error');
      expectError(await preview({}), 400, 'validation_error');
    });
  });

  describe('trigger', () => {
    let listener: pg.Client;
    const payloads: string[] = [];

    beforeAll(async () => {
      listener = new pg.Client({ connectionString: url });
      await listener.connect();
      listener.on('notification', (message) => {
        if (message.channel === 'hermesx_cron_triggers') payloads.push(message.payload ?? '');
      });
      await listener.query('LISTEN hermesx_cron_triggers');
    });

    afterAll(async () => {
      await listener?.end();
    });

    it('answers 202 and notifies the pods with <job_id>|<ms>', async () => {
      scheduler = true;
      const job = await createJob(app, key, { name: 'trigger me' });
      const response = await call(app, key, 'POST', `/v1/cron-jobs/${job.id}/trigger`);
      expect(response.statusCode).toBe(202);
      expect(response.json()).toEqual({ job_id: job.id, scheduled_at: NOW.toISOString() });
      const payload = await waitFor(
        () => {
          const found = payloads.find((p) => p.startsWith(`${job.id}|`));
          if (!found) throw new Error(`no notification yet (${payloads.length} others)`);
          return found;
        },
        { timeoutMs: 5000, what: 'the trigger notification' },
      );
      expect(payload).toBe(`${job.id}|${NOW.getTime()}`);
    });

    it('answers 503 scheduler_unavailable while no scheduler runs, and notifies nothing', async () => {
      scheduler = false;
      try {
        const job = await createJob(app, key);
        expectError(
          await call(app, key, 'POST', `/v1/cron-jobs/${job.id}/trigger`),
          503,
          'scheduler_unavailable',
        );
        // A later notification proves the earlier one would have arrived by now.
        await withOwner(url, (client) =>
          client.query("SELECT pg_notify('hermesx_cron_triggers', 'marker')"),
        );
        await waitFor(
          () => {
            if (!payloads.includes('marker')) throw new Error('marker not seen');
          },
          { timeoutMs: 5000 },
        );
        expect(payloads.some((p) => p.startsWith(job.id))).toBe(false);
      } finally {
        scheduler = true;
      }
    });

    it('answers 409 job_disabled for a disabled job', async () => {
      const job = await createJob(app, key, { enabled: false });
      expectError(
        await call(app, key, 'POST', `/v1/cron-jobs/${job.id}/trigger`),
        409,
        'job_disabled',
      );
    });
  });

  describe('tenant isolation', () => {
    it("tenant B gets 404 (never 403) for tenant A's job and never lists it", async () => {
      scheduler = true;
      const a = await createTenantWithKey(app);
      const b = await createTenantWithKey(app);
      const jobA = await createJob(app, a.key, { name: 'secret of A' });
      const jobB = await createJob(app, b.key, { name: 'B' });
      const path = `/v1/cron-jobs/${jobA.id}`;
      expectError(await call(app, b.key, 'GET', path), 404, 'not_found');
      expectError(await call(app, b.key, 'PATCH', path, { name: 'stolen' }), 404, 'not_found');
      expectError(await call(app, b.key, 'PATCH', path, { enabled: false }), 404, 'not_found');
      expectError(await call(app, b.key, 'DELETE', path), 404, 'not_found');
      expectError(await call(app, b.key, 'GET', `${path}/runs`), 404, 'not_found');
      expectError(await call(app, b.key, 'POST', `${path}/trigger`), 404, 'not_found');

      const listB = await call(app, b.key, 'GET', '/v1/cron-jobs?limit=100');
      expect(listB.json<Page<JobView>>().data.map((j) => j.id)).toEqual([jobB.id]);
      expect(listB.body).not.toContain('secret of A');

      // A cursor built from A's job does not leak A's rows to B.
      const pageA = await call(app, a.key, 'GET', '/v1/cron-jobs?limit=1');
      const listA = pageA.json<Page<JobView>>();
      expect(listA.data.map((j) => j.id)).toEqual([jobA.id]);

      // A's job is untouched.
      expect((await call(app, a.key, 'GET', path)).json()).toEqual(jobA);
    });
  });
});
