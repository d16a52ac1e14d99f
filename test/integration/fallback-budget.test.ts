// A model call that falls back is reserved at the price of the model it goes to, on real
// PostgreSQL and Redis with the fake model server: the primary is cheap and fails, the fallback
// is dear. A tenant budget with room for the cheap model's worst case but not the dear one's
// refuses the fallback request before it leaves (a scheduled run fails budget_exhausted, a chat
// turn answers 429); with room for both, the run's dear call settles to its real cost.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startService, type RunningService } from '../../src/main.js';
import { generateSecretsKey } from '../../src/secrets/key.js';
import { runsOf, type RunRow } from '../helpers/cluster.js';
import { createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { capturingLogger } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';

const ADMIN = 'fallback-budget-admin-token-0123456789';
const CHEAP = 'cheap-1b';
const DEAR = 'dear-405b';
/** $1 per million tokens, and $100: a worst case of a few thousand tokens costs a few thousand
 * micro-dollars at the cheap price and a few hundred thousand at the dear one. */
const PRICES = {
  [CHEAP]: { input: 1_000_000, cached_input: 1_000_000, output: 1_000_000 },
  [DEAR]: { input: 100_000_000, cached_input: 100_000_000, output: 100_000_000 },
};
/** Room for the cheap model's worst case (under 10,000), not for the dear one's (over 100,000). */
const SMALL_BUDGET_MICROS = 100_000;
const LARGE_BUDGET_MICROS = 100_000_000;

let db: pg.Client;
let redis: Redis;
let llm: FakeLlm;
let service: RunningService;

async function api(url: string, method: string, token: string, body?: unknown) {
  const response = await fetch(`${service.url}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: (text ? JSON.parse(text) : {}) as Record<string, unknown>,
  };
}

/** A tenant with its key, its monthly budget set before any call, the two models its default. */
async function tenantWithBudget(budgetMicros: number): Promise<{ id: string; key: string }> {
  const name = `tenant ${Math.random().toString(36).slice(2, 8)}`;
  const tenant = await api('/v1/tenants', 'POST', ADMIN, { name });
  expect(tenant.status).toBe(201);
  const id = tenant.body.id as string;
  const key = await api('/v1/api-keys', 'POST', ADMIN, { tenant_id: id, name: 'key' });
  expect(key.status).toBe(201);
  const budget = await api(`/v1/admin/tenants/${id}/budget`, 'PUT', ADMIN, {
    monthly_budget_micros: budgetMicros,
    monthly_budget_tokens: null,
  });
  expect(budget.status).toBe(200);
  const settings = await api(`/v1/tenants/${id}/agent-settings`, 'PUT', ADMIN, {
    http_allowed_hosts: [],
    default_models: [CHEAP, DEAR],
  });
  expect(settings.status).toBe(200);
  return { id, key: key.body.key as string };
}

async function runJob(key: string): Promise<RunRow> {
  const created = await api('/v1/cron-jobs', 'POST', key, {
    name: 'nightly summary',
    schedule: '0 0 1 1 *',
    prompt: 'summarise the night',
    models: [CHEAP, DEAR],
  });
  expect(created.status).toBe(201);
  const jobId = created.body.id as string;
  expect((await api(`/v1/cron-jobs/${jobId}/trigger`, 'POST', key)).status).toBe(202);
  return waitFor(
    async () => {
      const run = (await runsOf(db, [jobId])).find(
        (r) => r.status === 'success' || r.status === 'failed',
      );
      if (!run) throw new Error('no finished run yet');
      return run;
    },
    { timeoutMs: 20_000, intervalMs: 100, what: 'the finished run' },
  );
}

/** The models the fake model server was asked for since call `from`. */
function modelsAsked(from: number): string[] {
  return llm.calls.slice(from).map((call) => (call.body as { model: string }).model);
}

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  redis = new Redis(inject('redisUrl'));
  // The cheap model is down (a 500: the call falls back at once); the dear one answers.
  llm = await startFakeLlm({
    handler: (body) =>
      (body as { model: string }).model === CHEAP
        ? { status: 500, errorMessage: 'boom' }
        : { content: 'a quiet night' },
  });
  const pricesFile = path.join(mkdtempSync(path.join(tmpdir(), 'fallback-prices-')), 'p.json');
  writeFileSync(pricesFile, JSON.stringify(PRICES));
  service = await startService(
    loadConfig({
      DATABASE_URL: databaseUrl,
      REDIS_URL: inject('redisUrl'),
      LLM_API_URL: llm.url,
      LLM_MODELS: `${CHEAP},${DEAR}`,
      MODEL_PRICES_FILE: pricesFile,
      SAAS_API_PORT: '0',
      SAAS_API_HOST: '127.0.0.1',
      HERMES_POD_ID: `fallback-budget-${Math.random().toString(36).slice(2, 8)}`,
      HERMES_ACP_TOKEN: ADMIN,
      HERMES_SECRETS_KEY: generateSecretsKey(),
      SCHEDULER_POLL_INTERVAL: '2s',
      SCHEDULER_SHUTDOWN_GRACE: '1s',
    }),
    capturingLogger('text').log,
  );
  await waitFor(() => expect(service.scheduler?.running).toBe(true), {
    timeoutMs: 10_000,
    what: 'the scheduler to start',
  });
}, 60_000);

afterAll(async () => {
  await service?.stop();
  await db?.end();
  redis?.disconnect();
  await llm?.close();
});

describe('a call that falls back to a dearer model', () => {
  it("is refused by a budget without room for the fallback's worst case: no request leaves", async () => {
    const tenant = await tenantWithBudget(SMALL_BUDGET_MICROS);
    const from = llm.calls.length;
    const run = await runJob(tenant.key);
    expect(run).toMatchObject({ status: 'failed', error_kind: 'budget_exhausted' });
    // The cheap model was asked (and failed); the dear one never was.
    expect(modelsAsked(from)).toEqual([CHEAP]);
    const ledger = await db.query('SELECT 1 FROM model_usage WHERE tenant_id = $1', [tenant.id]);
    expect(ledger.rows).toHaveLength(0);
  });

  it('refuses a chat turn the same way, with 429', async () => {
    const tenant = await tenantWithBudget(SMALL_BUDGET_MICROS);
    const from = llm.calls.length;
    const answer = await api('/v1/chat/completions', 'POST', tenant.key, {
      messages: [{ role: 'user', content: 'how was the night?' }],
    });
    expect(answer.status).toBe(429);
    expect(answer.body).toMatchObject({ error: { code: 'budget_exhausted' } });
    expect(modelsAsked(from)).toEqual([CHEAP]);
  });

  it('is reserved and settled at the fallback’s price when the budget has room', async () => {
    const tenant = await tenantWithBudget(LARGE_BUDGET_MICROS);
    const from = llm.calls.length;
    const run = await runJob(tenant.key);
    expect(run).toMatchObject({ status: 'success' });
    expect(modelsAsked(from)).toEqual([CHEAP, DEAR]);
    const { rows } = await db.query<{ model: string; cost_micros: string; tokens: number }>(
      `SELECT model, cost_micros, prompt_tokens + completion_tokens AS tokens
         FROM model_usage WHERE tenant_id = $1`,
      [tenant.id],
    );
    expect(rows).toHaveLength(1);
    // The dear model's price, $100 per million tokens: 100 micro-dollars a token.
    expect(rows[0]).toMatchObject({ model: DEAR });
    const cost = Number(rows[0]!.cost_micros);
    expect(cost).toBe(100 * rows[0]!.tokens);
    // The budget's counter: spent is the call's cost, and nothing stays reserved (the failed
    // cheap request's reservation was given back, the dear one's settled to its usage).
    const month = new Date().toISOString().slice(0, 7);
    const counter = await redis.hmget(
      `hermesx:budget:{${tenant.id}}:month:${month}:micros`,
      'used',
      'spent',
    );
    expect(counter.map(Number)).toEqual([cost, cost]);
  });
});
