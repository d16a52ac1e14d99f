// A job's description (migration 321, one row of src/jobs/fields.ts): free text the API shows,
// a create or a PATCH sets and null clears, at most 2,000 characters and no NUL (400s that say
// so), offered by the cronjob tool under the same rules; a change stamps updated_at and wakes no
// pod (it is not part of the definition NOTIFY tracks).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCronjobTool } from '../../src/agent/tools/cronjob.js';
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
import { waitFor } from '../helpers/process-wait.js';

const CHANNEL = 'hermesx_cron_jobs';

describe('a job description', () => {
  let url: string;
  let api: TestApp;
  let key: string;
  let tenantId: string;
  const clock = new Date('2030-01-01T00:00:00.000Z');

  beforeAll(async () => {
    url = await createTestDatabase();
    api = await buildTestApp({ databaseUrl: url, now: () => clock, schedulerRunning: () => true });
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

  it('is null when not given, set by a create, changed by a PATCH and cleared by null', async () => {
    expect((await createJob(api.app, key)).description).toBeNull();
    const text = 'Posts the digest in #ops.\nOwner: the platform team.';
    const job = await createJob(api.app, key, { description: text });
    expect(job.description).toBe(text);
    expect((await get(job.id)).description).toBe(text);
    // A PATCH of something else keeps it.
    expect((await patch(job.id, { name: 'renamed' })).json<JobView>().description).toBe(text);
    const changed = await patch(job.id, { description: 'x'.repeat(2000) });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json<JobView>().description).toBe('x'.repeat(2000));
    expect((await patch(job.id, { description: null })).json<JobView>().description).toBeNull();
    expect((await get(job.id)).description).toBeNull();
  });

  it('refuses more than 2,000 characters and NUL with a 400 that names the field', async () => {
    const long = await call(api.app, key, 'POST', '/v1/cron-jobs', {
      name: 'long',
      schedule: '@hourly',
      prompt: 'p',
      description: 'x'.repeat(2001),
    });
    expect(expectError(long, 400, 'validation_error')).toContain('description');
    const job = await createJob(api.app, key, { description: 'kept' });
    const nul = await patch(job.id, { description: 'a\u0000b' });
    const message = expectError(nul, 400, 'validation_error');
    expect(message).toContain('description');
    expect(message).toContain('NUL');
    expect((await get(job.id)).description).toBe('kept');
  });

  it('is offered by the cronjob tool, under the same rules', async () => {
    const tool = createCronjobTool({
      pool: api.pool,
      now: () => clock,
      schedulerRunning: () => true,
    });
    const parameters = tool.definition.function.parameters as {
      properties: Record<string, { description?: string }>;
    };
    expect(parameters.properties.description?.description).toContain('2,000');
    const context = { tenantId, signal: new AbortController().signal, changes: [] };
    const use = async (args: Record<string, unknown>) =>
      JSON.parse(await tool.run(args, context)) as {
        ok: boolean;
        job?: JobView;
        error?: { code: string; message: string };
      };
    const created = await use({
      action: 'create',
      name: 'tool job',
      schedule: '@hourly',
      prompt: 'hi',
      description: 'made by the agent',
    });
    expect(created.job?.description).toBe('made by the agent');
    const id = created.job!.id;
    expect(await use({ action: 'update', id, description: 'a\u0000b' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_arguments', message: expect.stringContaining('NUL') },
    });
    expect((await use({ action: 'update', id, description: null })).job?.description).toBeNull();
  });

  it('stamps updated_at when changed, and notifies no pod', async () => {
    const job = await createJob(api.app, key, { description: 'before' });
    const listener = new pg.Client({ connectionString: url });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (message) => heard.push(message.payload ?? ''));
    try {
      await listener.query(`LISTEN ${CHANNEL}`);
      const changed = (await patch(job.id, { description: 'after' })).json<JobView>();
      expect(Date.parse(changed.updated_at)).toBeGreaterThan(Date.parse(job.updated_at));
      // The same text again is no change.
      const same = (await patch(job.id, { description: 'after' })).json<JobView>();
      expect(same.updated_at).toBe(changed.updated_at);
      // A definition change after it: the first notification heard must be that one's.
      const renamed = await patch(job.id, { name: 'renamed' });
      expect(renamed.statusCode, renamed.body).toBe(200);
      await waitFor(
        () => {
          if (heard.length === 0) throw new Error('nothing heard yet');
        },
        { timeoutMs: 5000, intervalMs: 10, what: `a notification on ${CHANNEL}` },
      );
      expect(heard).toEqual([job.id]);
    } finally {
      await listener.end();
    }
  });
});
