// Job rules that protect the service: schedule maths outside the transaction, manual runs that
// honour the tenant's minimum interval, and run_now held to the same rules as POST /trigger.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCronjobTool } from '../../src/agent/tools/cronjob.js';
import { createPool, type Pool } from '../../src/db/pool.js';
import { CommandError, createJob, triggerJob } from '../../src/jobs/commands.js';
import {
  buildTestApp,
  call,
  createTenantWithKey,
  expectError,
  type TestApp,
} from '../helpers/api.js';
import { createTestDatabase } from '../helpers/database.js';
import { silentLogger } from '../helpers/log.js';
import { awaitMinuteWithRoom } from '../helpers/minute-window.js';

describe('job commands', () => {
  let databaseUrl: string;
  let api: TestApp;
  let running = true;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    api = await buildTestApp({ databaseUrl, schedulerRunning: () => running });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('validate and compute the schedule before taking a database connection', async () => {
    const pool: Pool = createPool(databaseUrl, silentLogger(), {
      max: 1,
      connectionTimeoutMs: 5000,
    });
    const held = await pool.connect();
    try {
      const deps = { pool, now: () => new Date() };
      const started = Date.now();
      const attempt = createJob(deps, '00000000-0000-0000-0000-000000000001', {
        name: 'x',
        schedule: '61 * * * *',
        prompt: 'x',
      });
      await expect(attempt).rejects.toMatchObject({ code: 'invalid_schedule' });
      // The only connection was never free: the refusal did not wait for one.
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      held.release();
      await pool.end();
    }
  });

  it('refuse a second manual run within the minimum interval, with Retry-After', async () => {
    const { key } = await createTenantWithKey(api.app, { min_schedule_interval_seconds: 60 });
    const job = await call(api.app, key, 'POST', '/v1/cron-jobs', {
      name: 'hourly',
      schedule: '@hourly',
      prompt: 'hi',
    });
    const trigger = () => call(api.app, key, 'POST', `/v1/cron-jobs/${job.json().id}/trigger`);
    expect((await trigger()).statusCode).toBe(202);
    const second = await trigger();
    expectError(second, 429, 'trigger_too_soon');
    expect(Number(second.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(second.headers['retry-after'])).toBeLessThanOrEqual(60);
  });

  it('hold a tenant to its manual-run budget across create, trigger and delete cycles', async () => {
    const { key } = await createTenantWithKey(api.app, {
      min_schedule_interval_seconds: 60,
      rate_limit_rpm: 10_000,
    });
    let accepted = 0;
    let refused: Awaited<ReturnType<typeof call>> | undefined;
    // The budget counts per clock minute: the 20 cycles must not straddle two.
    await awaitMinuteWithRoom(40_000);
    for (let i = 0; i < 20; i++) {
      const job = await call(api.app, key, 'POST', '/v1/cron-jobs', {
        name: `cycle ${i}`,
        schedule: '@hourly',
        prompt: 'hi',
      });
      const trigger = await call(api.app, key, 'POST', `/v1/cron-jobs/${job.json().id}/trigger`);
      if (trigger.statusCode === 202) accepted++;
      else refused = trigger;
      expect(
        (await call(api.app, key, 'DELETE', `/v1/cron-jobs/${job.json().id}`)).statusCode,
      ).toBe(204);
    }
    // A fresh job has no cooldown; the tenant's budget (10 a minute by default) still applies.
    expect(accepted).toBe(10);
    expectError(refused!, 429, 'manual_run_budget');
    expect(Number(refused!.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('let a tenant without a minimum interval trigger again at once', async () => {
    const { key } = await createTenantWithKey(api.app, { min_schedule_interval_seconds: 0 });
    const job = await call(api.app, key, 'POST', '/v1/cron-jobs', {
      name: 'free',
      schedule: '@hourly',
      prompt: 'hi',
    });
    for (let i = 0; i < 3; i++) {
      expect(
        (await call(api.app, key, 'POST', `/v1/cron-jobs/${job.json().id}/trigger`)).statusCode,
      ).toBe(202);
    }
  });

  it("hold the agent's run_now to the trigger's rules", async () => {
    const { tenant, key } = await createTenantWithKey(api.app, {
      min_schedule_interval_seconds: 60,
    });
    const job = await call(api.app, key, 'POST', '/v1/cron-jobs', {
      name: 'agent run',
      schedule: '@hourly',
      prompt: 'hi',
    });
    const deps = { pool: api.pool, now: () => new Date(), schedulerRunning: () => running };
    const tool = createCronjobTool(deps);
    const context = { tenantId: tenant.id, signal: new AbortController().signal, changes: [] };
    const runNow = async () =>
      JSON.parse(await tool.run({ action: 'run_now', id: job.json().id }, context)) as {
        ok: boolean;
        error?: { code: string };
      };
    running = false;
    expect(await runNow()).toMatchObject({ ok: false, error: { code: 'scheduler_unavailable' } });
    running = true;
    expect(await runNow()).toMatchObject({ ok: true });
    expect(await runNow()).toMatchObject({ ok: false, error: { code: 'trigger_too_soon' } });
    expect(context.changes).toHaveLength(1);
    await expect(triggerJob(deps, tenant.id, job.json().id)).rejects.toBeInstanceOf(CommandError);
  });
});
