// Three real `saas-api` pods, 300 runs due at the same second, and a tenant budget worth about
// 100 of them at known prices on the fake model server: the ledger equals what the model server
// reported, to the micro-dollar; the budget is never passed (each call reserves more than it
// turns out to use); every run past it fails budget_exhausted without a model request and pauses
// its job; the 80 % warning is queued once; chat counts against the same budget and is refused
// with 429; the month turning over resumes the jobs and gives the budget back.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPool } from '../../src/db/pool.js';
import { createBudgetStore } from '../../src/usage/budget-store.js';
import { costMicros } from '../../src/usage/cost.js';
import { meterStep, BudgetExhausted, type UsageDeps } from '../../src/usage/metered-step.js';
import { createPriceBook } from '../../src/usage/prices.js';
import { resumeBudgetJobs } from '../../src/usage/resume-sweep.js';
import { DEFAULT_TENANT_ID } from '../helpers/api.js';
import { startPod, stopAllPods, type Pod } from '../helpers/cluster.js';
import { createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { silentLogger } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';

const MODEL = 'fake-model';
const PRICE = { input: 1_000_000, cached_input: 500_000, output: 2_000_000 };
const MODEL_PRICE = {
  inputMicrosPerMTok: PRICE.input,
  cachedInputMicrosPerMTok: PRICE.cached_input,
  outputMicrosPerMTok: PRICE.output,
};
// What the fake model server reports for every call: 30 + 20 × 0.5 + 500 × 2 = 1040 micro-dollars.
const USAGE = { prompt_tokens: 50, cached_tokens: 20, completion_tokens: 500 };
const CALL_MICROS = 1040;
const RUNS = 300;
const ADMIN = 'usage-admin-token-0123456789abcdef0123456789';
const TENANT_KEY = 'usage-tenant-key-0123456789abcdef0123456789';
const BUDGET_MICROS = 100 * CALL_MICROS;
// max_tokens given to each call under a budget: its reservation is the prompt's bytes / 4 plus
// 600 × 2 micro-dollars, always more than the 1040 it settles to.
const RESERVE_MAX_TOKENS = 600;

let databaseUrl: string;
let db: pg.Client;
let llm: FakeLlm;
let redis: Redis;
let pods: Pod[];

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  redis = new Redis(inject('redisUrl'));
  const stale = await redis.keys(`hermesx:budget:{${DEFAULT_TENANT_ID}}:*`);
  if (stale.length > 0) await redis.del(...stale);
  llm = await startFakeLlm();
  llm.setLatency(20);
  llm.setHandler(() => ({ content: 'done', usage: USAGE }));
  const pricesFile = path.join(os.tmpdir(), `hermesx-prices-${process.pid}.json`);
  writeFileSync(pricesFile, JSON.stringify({ [MODEL]: PRICE }));
  const tag = Math.random().toString(36).slice(2, 8);
  pods = await Promise.all(
    [1, 2, 3].map((i) =>
      startPod({
        databaseUrl,
        redisUrl: inject('redisUrl'),
        llmUrl: llm.url,
        podId: `usage-${tag}-${i}`,
        env: {
          LLM_MODEL: MODEL,
          MODEL_PRICES_FILE: pricesFile,
          BUDGET_RESERVE_MAX_TOKENS: String(RESERVE_MAX_TOKENS),
          HERMES_ACP_TOKEN: ADMIN,
          HERMES_API_KEY: TENANT_KEY,
          WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
          SCHEDULER_MAX_CONCURRENT_RUNS: '40',
        },
      }),
    ),
  );
}, 120_000);

afterAll(async () => {
  await stopAllPods();
  await db?.end();
  await llm?.close();
  redis?.disconnect();
});

async function api(
  pod: Pod,
  method: string,
  route: string,
  token: string,
  body?: unknown,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are checked field by field
): Promise<{ status: number; headers: Headers; json: any }> {
  const response = await fetch(`${pod.url}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    json: text ? JSON.parse(text) : null,
  };
}

const chat = (pod: Pod) =>
  api(pod, 'POST', '/v1/chat/completions', TENANT_KEY, {
    messages: [{ role: 'user', content: 'hello' }],
  });

describe('budgets across three pods', () => {
  it('records every call to the micro-dollar, stops at the budget, pauses, warns once', async () => {
    const [a, b, c] = pods as [Pod, Pod, Pod];
    const budget = await api(a, 'PUT', `/v1/admin/tenants/${DEFAULT_TENANT_ID}/budget`, ADMIN, {
      monthly_budget_micros: BUDGET_MICROS,
      monthly_budget_tokens: null,
    });
    expect(budget.status, JSON.stringify(budget.json)).toBe(200);
    expect(budget.json.month_micros).toMatchObject({ limit: BUDGET_MICROS, spent: 0 });
    const hook = await api(b, 'POST', '/v1/webhooks', TENANT_KEY, {
      url: 'http://127.0.0.1:9/budget',
      events: ['budget.warning'],
    });
    expect(hook.status).toBe(201);

    // A chat turn is counted like a run.
    const first = await chat(c);
    expect(first.status).toBe(200);
    expect(llm.calls).toHaveLength(1);

    // 300 jobs due at the same second, a few seconds from now.
    const due = new Date(Math.ceil((Date.now() + 8000) / 1000) * 1000);
    const schedule = `${due.getUTCSeconds()} ${due.getUTCMinutes()} ${due.getUTCHours()} * * *`;
    await db.query(
      `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt)
       SELECT $1, 'job ' || n, $2, 'Summarise the day' FROM generate_series(1, $3) AS n`,
      [DEFAULT_TENANT_ID, schedule, RUNS],
    );
    await waitFor(
      async () => {
        const { rows } = await db.query<{ n: string }>(
          `SELECT count(*) AS n FROM cron_job_runs WHERE status IN ('success', 'failed')`,
        );
        expect(Number(rows[0]?.n)).toBe(RUNS);
      },
      { timeoutMs: 120_000, intervalMs: 500, what: 'all 300 runs recorded' },
    );

    const { rows: runs } = await db.query<{
      status: string;
      error_kind: string | null;
      cost_micros: string | null;
      prompt_tokens: number | null;
      enabled: boolean;
      stopped_by: string | null;
      paused_by: string | null;
      budget_resets_at: Date | null;
    }>(
      `SELECT r.status, r.error_kind, r.cost_micros, r.prompt_tokens, j.enabled, j.stopped_by,
              j.paused_by, j.budget_resets_at
         FROM cron_job_runs r JOIN cron_jobs j ON j.id = r.cron_job_id`,
    );
    const succeeded = runs.filter((r) => r.status === 'success');
    const refused = runs.filter((r) => r.status === 'failed');
    // Every run that did not succeed was refused by the budget, and sent nothing to the model.
    expect(refused.every((r) => r.error_kind === 'budget_exhausted')).toBe(true);
    expect(llm.calls).toHaveLength(1 + succeeded.length);
    expect(refused.every((r) => r.prompt_tokens === null)).toBe(true);
    // Budget ≈ 100 calls; the chat took one. Reservations in flight may leave a few unused.
    expect(succeeded.length).toBeLessThanOrEqual(99);
    expect(succeeded.length).toBeGreaterThanOrEqual(80);
    expect(succeeded.every((r) => Number(r.cost_micros) === CALL_MICROS)).toBe(true);

    // The ledger holds exactly what the model server reported, priced.
    const reported =
      llm.calls.length *
      (costMicros(
        {
          promptTokens: USAGE.prompt_tokens,
          cachedTokens: USAGE.cached_tokens,
          completionTokens: USAGE.completion_tokens,
        },
        MODEL_PRICE,
      ) as number);
    const { rows: ledger } = await db.query<{ calls: string; micros: string; chat: string }>(
      `SELECT count(*) AS calls, sum(cost_micros) AS micros,
              count(*) FILTER (WHERE origin = 'chat') AS chat FROM model_usage`,
    );
    expect(Number(ledger[0]?.calls)).toBe(llm.calls.length);
    expect(Number(ledger[0]?.micros)).toBe(reported);
    expect(Number(ledger[0]?.chat)).toBe(1);
    // Never past the budget: overshoot ≤ Σ max(0, usage − reservation) of calls in flight = 0.
    expect(reported).toBeLessThanOrEqual(BUDGET_MICROS);

    // Every refused run's job paused by the system for the budget, until next month (UTC).
    const now = new Date();
    const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    for (const run of refused) {
      expect(run).toMatchObject({ enabled: false, stopped_by: 'budget', paused_by: 'system' });
      expect(run.budget_resets_at?.toISOString()).toBe(nextMonth.toISOString());
    }

    // The warning once, for all three pods.
    const { rows: warnings } = await db.query<{ payload: Record<string, unknown> }>(
      `SELECT payload FROM webhook_deliveries WHERE event_type = 'budget.warning'`,
    );
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.payload).toMatchObject({
      budget: 'tenant_monthly_micros',
      limit: BUDGET_MICROS,
      threshold_percent: 80,
      resets_at: nextMonth.toISOString(),
    });

    // Chat is refused the same way, with when it resets.
    const refusedChat = await chat(b);
    expect(refusedChat.status).toBe(429);
    expect(refusedChat.json.error.code).toBe('budget_exhausted');
    expect(refusedChat.json.error.message).toContain(nextMonth.toISOString());
    expect(Number(refusedChat.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(llm.calls).toHaveLength(1 + succeeded.length);

    // The usage API agrees with the ledger.
    const usage = await api(a, 'GET', '/v1/usage?group_by=origin', TENANT_KEY);
    expect(usage.status).toBe(200);
    const total = (usage.json.data as { cost_micros: number }[]).reduce(
      (sum, row) => sum + row.cost_micros,
      0,
    );
    expect(total).toBe(reported);
    const admin = await api(c, 'GET', '/v1/admin/usage?group_by=tenant,model', ADMIN);
    expect(admin.json.data).toEqual([
      expect.objectContaining({
        tenant_id: DEFAULT_TENANT_ID,
        model: MODEL,
        cost_micros: reported,
      }),
    ]);
    const metrics = await Promise.all(pods.map((pod) => pod.metrics()));
    const counted = metrics
      .map((text) =>
        Number(
          /^hermesx_usage_cost_micros_total\{model="fake-model"\} (\d+)/m.exec(text)?.[1] ?? 0,
        ),
      )
      .reduce((x, y) => x + y, 0);
    expect(counted).toBe(reported);

    // The month turns: the sweep resumes the paused jobs.
    const pool = createPool(databaseUrl, silentLogger(), { max: 2 });
    try {
      expect(await resumeBudgetJobs(pool, new Date(nextMonth.getTime() - 1))).toEqual([]);
      const resumed = await resumeBudgetJobs(pool, nextMonth);
      expect(resumed).toHaveLength(refused.length);
      const { rows } = await db.query<{ n: string }>(
        `SELECT count(*) AS n FROM cron_jobs WHERE NOT enabled OR stopped_by IS NOT NULL`,
      );
      expect(Number(rows[0]?.n)).toBe(0);
    } finally {
      await pool.end();
    }
  }, 240_000);

  it('a period turning over gives the budget back (time is an argument)', async () => {
    const pool = createPool(databaseUrl, silentLogger(), { max: 2 });
    let now = new Date('2031-05-31T23:59:00Z');
    const deps: UsageDeps = {
      pool,
      prices: createPriceBook(pool, new Map([[MODEL, MODEL_PRICE]])),
      budgets: createBudgetStore(redis),
      limits: async () => ({
        monthlyMicros: null,
        monthlyTokens: 2000,
        jobDailyMicros: null,
        runTokens: null,
      }),
      reserveMaxTokens: 500,
      defaultModel: MODEL,
      now: () => now,
    };
    let sent = 0;
    const { step } = meterStep(
      async () => {
        sent++;
        return { model: MODEL, usage: { prompt_tokens: 50, completion_tokens: 500 } };
      },
      deps,
      { tenantId: DEFAULT_TENANT_ID, jobId: null },
    );
    const ask = () =>
      step({ messages: [{ role: 'user', content: 'hi' }] }, new AbortController().signal);
    try {
      // 2000 tokens a month, 550 a call: three calls, then no room for a fourth worst case.
      for (let i = 0; i < 3; i++) await ask();
      const refusal = await ask().catch((err: unknown) => err);
      expect(refusal).toBeInstanceOf(BudgetExhausted);
      expect((refusal as BudgetExhausted).resetsAt?.toISOString()).toBe('2031-06-01T00:00:00.000Z');
      expect(sent).toBe(3);
      now = new Date('2031-06-01T00:00:00Z');
      await ask();
      expect(sent).toBe(4);
    } finally {
      await pool.end();
    }
  });
});
