// The usage routes and the ledger's isolation, on real PostgreSQL and Redis: each tenant sees its
// own calls only (RLS), grouped as asked; bad queries are 400s; prices and budgets are the
// admin's; a job's daily budget and its tokens per run stop calls before they are sent.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { withTenant } from '../../src/db/pool.js';
import { createBudgetStore } from '../../src/usage/budget-store.js';
import { recordChatUsage } from '../../src/usage/ledger.js';
import { BudgetExhausted, meterStep, type UsageDeps } from '../../src/usage/metered-step.js';
import { periodBudgets } from '../../src/usage/budgets.js';
import { createPriceBook } from '../../src/usage/prices.js';
import {
  ADMIN_TOKEN,
  buildTestApp,
  call,
  createJob,
  createTenantWithKey,
  expectError,
  type TestApp,
} from '../helpers/api.js';
import { createTestDatabase } from '../helpers/database.js';

let test: TestApp;
let redis: Redis;

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  redis = new Redis(inject('redisUrl'));
  test = await buildTestApp({ databaseUrl, redis });
});

afterAll(async () => {
  await test?.close();
  redis?.disconnect();
});

const call1 = (model: string, costMicros: number | null) => ({
  model,
  promptTokens: 100,
  cachedTokens: 0,
  completionTokens: 10,
  costMicros,
});

describe('usage API', () => {
  it('shows each tenant its own calls, grouped; the admin sees all', async () => {
    const a = await createTenantWithKey(test.app);
    const b = await createTenantWithKey(test.app);
    await recordChatUsage(test.pool, a.tenant.id, [call1('m1', 5), call1('m2', null)]);
    await recordChatUsage(test.pool, b.tenant.id, [call1('m1', 7)]);
    // RLS: tenant B reads no row of A and cannot write one for A.
    const seen = await withTenant(test.pool, b.tenant.id, async (client) => {
      const { rows } = await client.query<{ tenant_id: string }>(
        'SELECT tenant_id FROM model_usage',
      );
      return rows.map((row) => row.tenant_id);
    });
    expect(seen).toEqual([b.tenant.id]);
    await expect(
      withTenant(test.pool, b.tenant.id, (client) =>
        client.query(
          `INSERT INTO model_usage (tenant_id, origin, model, prompt_tokens, cached_tokens,
                                    completion_tokens) VALUES ($1, 'chat', 'x', 1, 0, 1)`,
          [a.tenant.id],
        ),
      ),
    ).rejects.toThrow(/row-level security/);

    const byModel = await call(test.app, a.key, 'GET', '/v1/usage?group_by=model');
    expect(byModel.statusCode, byModel.body).toBe(200);
    expect(byModel.json().data).toEqual([
      expect.objectContaining({ model: 'm1', calls: 1, cost_micros: 5, unpriced_calls: 0 }),
      expect.objectContaining({ model: 'm2', calls: 1, cost_micros: 0, unpriced_calls: 1 }),
    ]);
    const byOrigin = await call(test.app, b.key, 'GET', '/v1/usage?group_by=origin,day');
    expect(byOrigin.json().data).toEqual([
      expect.objectContaining({ origin: 'chat', cost_micros: 7, prompt_tokens: 100 }),
    ]);
    const admin = await call(test.app, ADMIN_TOKEN, 'GET', '/v1/admin/usage?group_by=tenant');
    const tenants = (admin.json().data as { tenant_id: string; cost_micros: number }[]).filter(
      (row) => [a.tenant.id, b.tenant.id].includes(row.tenant_id),
    );
    expect(tenants).toHaveLength(2);
  });

  it('refuses bad queries with 400 and the admin routes to tenants', async () => {
    const a = await createTenantWithKey(test.app);
    expectError(
      await call(test.app, a.key, 'GET', '/v1/usage?group_by=tenant'),
      400,
      'invalid_group_by',
    );
    expectError(
      await call(test.app, a.key, 'GET', '/v1/usage?group_by=day,job,model'),
      400,
      'invalid_group_by',
    );
    expectError(
      await call(
        test.app,
        a.key,
        'GET',
        '/v1/usage?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z',
      ),
      400,
      'invalid_range',
    );
    expectError(
      await call(
        test.app,
        a.key,
        'GET',
        '/v1/usage?from=2020-01-01T00:00:00Z&to=2026-01-01T00:00:00Z',
      ),
      400,
      'invalid_range',
    );
    expect((await call(test.app, a.key, 'GET', '/v1/admin/usage')).statusCode).toBe(403);
    expect(
      (
        await call(test.app, a.key, 'PUT', '/v1/admin/model-prices/m1', {
          input: 1,
          cached_input: 1,
          output: 1,
        })
      ).statusCode,
    ).toBe(403);
  });

  it('sets, lists and removes prices; sets a tenant budget and shows what is left', async () => {
    const put = await call(test.app, ADMIN_TOKEN, 'PUT', '/v1/admin/model-prices/gpt-x', {
      input: 2_500_000,
      cached_input: 1_250_000,
      output: 10_000_000,
    });
    expect(put.statusCode, put.body).toBe(200);
    expectError(
      await call(test.app, ADMIN_TOKEN, 'PUT', '/v1/admin/model-prices/gpt-x', {
        input: -1,
        cached_input: 0,
        output: 0,
      }),
      400,
      'validation_error',
    );
    const list = await call(test.app, ADMIN_TOKEN, 'GET', '/v1/admin/model-prices');
    expect(list.json().data).toEqual([
      expect.objectContaining({ model: 'gpt-x', input: 2_500_000, output: 10_000_000 }),
    ]);
    expect(
      (await call(test.app, ADMIN_TOKEN, 'DELETE', '/v1/admin/model-prices/gpt-x')).statusCode,
    ).toBe(204);
    expectError(
      await call(test.app, ADMIN_TOKEN, 'DELETE', '/v1/admin/model-prices/gpt-x'),
      404,
      'not_found',
    );

    const a = await createTenantWithKey(test.app);
    await recordChatUsage(test.pool, a.tenant.id, [call1('m1', 300)]);
    const set = await call(
      test.app,
      ADMIN_TOKEN,
      'PUT',
      `/v1/admin/tenants/${a.tenant.id}/budget`,
      {
        monthly_budget_micros: 1000,
        monthly_budget_tokens: null,
      },
    );
    expect(set.statusCode, set.body).toBe(200);
    const seen = await call(test.app, a.key, 'GET', '/v1/usage/budget');
    expect(seen.json()).toMatchObject({
      monthly_budget_micros: 1000,
      month_micros: { limit: 1000, spent: 300, remaining: 700 },
      month_tokens: { limit: null, spent: 110, remaining: null },
    });
  });

  it('a job daily budget and its tokens per run stop calls before they are sent', async () => {
    const a = await createTenantWithKey(test.app);
    const job = await createJob(test.app, a.key, {
      name: 'budgeted',
      schedule: '0 6 * * *',
      prompt: 'p',
      daily_budget_micros: 3000,
      max_run_tokens: 1500,
    });
    expect(job).toMatchObject({ daily_budget_micros: 3000, max_run_tokens: 1500 });
    const deps: UsageDeps = {
      pool: test.pool,
      prices: createPriceBook(
        test.pool,
        new Map([
          [
            'm',
            {
              inputMicrosPerMTok: 1_000_000,
              cachedInputMicrosPerMTok: 0,
              outputMicrosPerMTok: 1_000_000,
            },
          ],
        ]),
      ),
      budgets: createBudgetStore(redis),
      limits: async () => ({
        monthlyMicros: null,
        monthlyTokens: null,
        jobDailyMicros: 2500,
        runTokens: 1500,
      }),
      reserveMaxTokens: 900,
      defaultModel: 'm',
      now: () => new Date('2031-03-03T10:00:00Z'),
    };
    const asked: number[] = [];
    const run = () =>
      meterStep(
        async (params: { messages: unknown; max_tokens?: number | null }) => {
          const maxTokens = params.max_tokens ?? Infinity;
          asked.push(maxTokens);
          // The model answers at most max_tokens; the prompt is under its bytes/4 estimate.
          return {
            model: 'm',
            usage: { prompt_tokens: 10, completion_tokens: Math.min(600, maxTokens) },
          };
        },
        deps,
        { tenantId: a.tenant.id, jobId: job.id },
      ).step;
    const ask = (step: ReturnType<typeof run>) =>
      step({ messages: [{ role: 'user', content: 'hi' }] }, new AbortController().signal);
    // One run: each call's max_tokens is cut to what is left of 1500; past it, nothing is sent.
    const first = run();
    let refusal: unknown;
    for (let i = 0; i < 10 && refusal === undefined; i++) {
      refusal = await ask(first).then(
        () => undefined,
        (err: unknown) => err,
      );
    }
    expect(refusal).toBeInstanceOf(BudgetExhausted);
    expect((refusal as BudgetExhausted).budget).toBe('job_run_tokens');
    expect(asked[0]).toBe(900);
    const runTokens = asked.reduce((sum, max) => sum + 10 + Math.min(600, max), 0);
    expect(runTokens).toBeLessThanOrEqual(1500);
    expect(asked.length).toBeGreaterThanOrEqual(3);
    // The first run spent 1500 micro-dollars (its tokens at $1 per million) of today's 2500; a
    // new run's call reserves 910 (2410: fits) and settles to 610; the next would reserve 890.
    const sent = asked.length;
    const second = run();
    await ask(second);
    const daily = await ask(second).catch((err: unknown) => err);
    expect(daily).toBeInstanceOf(BudgetExhausted);
    expect((daily as BudgetExhausted).budget).toBe('job_daily_micros');
    expect((daily as BudgetExhausted).resetsAt?.toISOString()).toBe('2031-03-04T00:00:00.000Z');
    expect(asked).toHaveLength(sent + 1);
  });

  it('a budget counter Redis does not have is seeded from the ledger before the first call', async () => {
    const a = await createTenantWithKey(test.app);
    // Spent this month per the ledger (a Redis that lost its data, or a budget set mid-month).
    await recordChatUsage(test.pool, a.tenant.id, [call1('m', 900)]);
    let sent = 0;
    const { step } = meterStep(
      async () => {
        sent++;
        return { model: 'm', usage: { prompt_tokens: 1, completion_tokens: 1 } };
      },
      {
        pool: test.pool,
        prices: createPriceBook(
          test.pool,
          new Map([
            [
              'm',
              {
                inputMicrosPerMTok: 1_000_000,
                cachedInputMicrosPerMTok: 0,
                outputMicrosPerMTok: 1_000_000,
              },
            ],
          ]),
        ),
        budgets: createBudgetStore(redis),
        limits: async () => ({
          monthlyMicros: 1000,
          monthlyTokens: null,
          jobDailyMicros: null,
          runTokens: null,
        }),
        reserveMaxTokens: 200,
        defaultModel: 'm',
        now: () => new Date(),
      },
      { tenantId: a.tenant.id, jobId: null },
    );
    // 900 spent + a worst case of about 210 > 1000: refused, although Redis had no counter.
    const refusal = await step({ messages: [] }, new AbortController().signal).catch(
      (err: unknown) => err,
    );
    expect(refusal).toBeInstanceOf(BudgetExhausted);
    expect(sent).toBe(0);
    const [counter] = await redis.keys(`hermesx:budget:{${a.tenant.id}}:month:*`);
    expect(await redis.hget(counter!, 'spent')).toBe('900');
  });

  it("seeds each job's day from the ledger, its own spend only, the tenant's jobs in one read", async () => {
    const a = await createTenantWithKey(test.app);
    const job = (name: string) =>
      createJob(test.app, a.key, { name, schedule: '0 6 * * *', prompt: 'p' }) as Promise<{
        id: string;
      }>;
    const [first, second, idle] = await Promise.all([job('first'), job('second'), job('idle')]);
    const spend = (jobId: string, micros: number) =>
      withTenant(test.pool, a.tenant.id, (client) =>
        client.query(
          `INSERT INTO model_usage (tenant_id, cron_job_id, origin, model, prompt_tokens,
                                    cached_tokens, completion_tokens, cost_micros)
           VALUES ($1, $2, 'scheduled', 'm', 1, 0, 1, $3)`,
          [a.tenant.id, jobId, micros],
        ),
      );
    await spend(first!.id, 700);
    await spend(first!.id, 50);
    await spend(second!.id, 200);
    const limits = {
      monthlyMicros: null,
      monthlyTokens: null,
      jobDailyMicros: 5000,
      runTokens: null,
    };
    // The pool as the seeds see it, counting the transactions they open.
    let transactions = 0;
    const pool = {
      connect: () => {
        transactions += 1;
        return test.pool.connect();
      },
    } as unknown as typeof test.pool;
    const seedOf = (jobId: string) => {
      const [line] = periodBudgets(pool, a.tenant.id, jobId, limits, new Date());
      expect(line?.name).toBe('job_daily_micros');
      return line!.line.seed();
    };
    expect(await Promise.all([seedOf(first!.id), seedOf(second!.id), seedOf(idle!.id)])).toEqual([
      750, 200, 0,
    ]);
    // The three seeds asked together shared one grouped read of the ledger; a later one reads again.
    expect(transactions).toBe(1);
    expect(await seedOf(second!.id)).toBe(200);
    expect(transactions).toBe(2);
  });
});
