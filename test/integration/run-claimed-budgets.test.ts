// The budgets a scheduled run is held to come with its claim (real PostgreSQL; the model is the
// fake LLM server): the run checks its model calls against them without reading the tenant's
// limits first, and a run without them (adopted, queued) still reads them.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCronRunner } from '../../src/agent/cron-runner.js';
import { createLlm } from '../../src/agent/llm.js';
import type { Pool } from '../../src/db/pool.js';
import { claimRuns } from '../../src/db/runs.js';
import type { AgentContextRef } from '../../src/domain/run.js';
import { createSecretsVault } from '../../src/secrets/vault.js';
import type { BudgetLimits } from '../../src/usage/budgets.js';
import type { UsageDeps } from '../../src/usage/metered-step.js';
import { createPriceBook } from '../../src/usage/prices.js';
import { createAppPool, createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';

let db: pg.Client;
let pool: Pool;
let llm: FakeLlm;
let tenantId = '';
let jobId = '';

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  pool = createAppPool(databaseUrl);
  llm = await startFakeLlm();
  const tenant = await db.query<{ id: string }>(
    `INSERT INTO tenants (name, monthly_budget_micros, monthly_budget_tokens)
     VALUES ('budgeted', 9000000, 800000) RETURNING id`,
  );
  tenantId = tenant.rows[0]!.id;
  const job = await db.query<{ id: string }>(
    // allow_all: each test claims an occurrence of its own while the earlier ones stay claimed.
    `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt, max_run_tokens, daily_budget_micros,
                           overlap)
     VALUES ($1, 'tight', '0 9 * * *', 'Summarise the night', 5, 2000000, 'allow_all')
     RETURNING id`,
    [tenantId],
  );
  jobId = job.rows[0]!.id;
});

afterAll(async () => {
  await llm?.close();
  await pool?.end();
  await db?.end();
});

/** Usage deps whose limits read counts its calls and answers `limits`. */
function usageReading(limits: BudgetLimits): { usage: UsageDeps; reads: () => number } {
  let reads = 0;
  const usage: UsageDeps = {
    pool,
    prices: createPriceBook(pool, new Map()),
    limits: () => {
      reads += 1;
      return Promise.resolve(limits);
    },
    reserveMaxTokens: 500,
    defaultModel: 'fake-model',
    now: () => new Date('2026-12-05T09:00:00Z'),
  };
  return { usage, reads: () => reads };
}

async function runWith(usage: UsageDeps, agent: AgentContextRef | undefined) {
  const runner = createCronRunner(createLlm({ url: llm.url, apiKey: '', model: 'fake-model' }), {
    pool,
    vault: createSecretsVault(pool, undefined),
    allowPrivateNetworks: false,
    usage,
  });
  return runner(
    {
      jobId,
      tenantId,
      runId: '00000000-0000-4000-8000-00000000b0d9',
      name: 'tight',
      prompt: 'Summarise the night',
      timezone: 'UTC',
      scheduledAt: new Date('2026-12-05T09:00:00Z'),
      ...(agent ? { agent } : {}),
    },
    {
      signal: new AbortController().signal,
      deadlineMs: Date.now() + 60_000,
      beforeSend: () => Promise.resolve(),
    },
  );
}

describe('budgets carried by the claim', () => {
  it("are the tenant's and the job's as committed at the claim", async () => {
    const [answer] = await claimRuns(
      pool,
      [{ jobId, scheduledAt: new Date('2026-12-05T09:00:00Z'), nextRunAt: null }],
      'pod-a',
    );
    expect(answer).toMatchObject({
      kind: 'claimed',
      run: {
        agent: {
          limits: {
            monthlyMicros: 9_000_000,
            monthlyTokens: 800_000,
            jobDailyMicros: 2_000_000,
            runTokens: 5,
          },
        },
      },
    });
  });

  it('hold the run to them with no read of its own: nothing is sent past max_run_tokens', async () => {
    const [answer] = await claimRuns(
      pool,
      [{ jobId, scheduledAt: new Date('2026-12-05T10:00:00Z'), nextRunAt: null }],
      'pod-a',
    );
    if (answer?.kind !== 'claimed') throw new Error(`not claimed: ${answer?.kind}`);
    // The read would allow everything: only the claimed limits can refuse.
    const unlimited = { monthlyMicros: null, monthlyTokens: null, jobDailyMicros: null };
    const { usage, reads } = usageReading({ ...unlimited, runTokens: null });
    const before = llm.calls.length;
    const reply = await runWith(usage, answer.run.agent);
    expect(reply).toMatchObject({ ok: false, errorKind: 'budget_exhausted' });
    expect(reads()).toBe(0);
    expect(llm.calls.length).toBe(before);
  });

  it('are read when the run did not come with them (an adopted or queued run)', async () => {
    const { usage, reads } = usageReading({
      monthlyMicros: null,
      monthlyTokens: null,
      jobDailyMicros: null,
      runTokens: 5,
    });
    const before = llm.calls.length;
    const reply = await runWith(usage, undefined);
    expect(reply).toMatchObject({ ok: false, errorKind: 'budget_exhausted' });
    expect(reads()).toBeGreaterThan(0);
    expect(llm.calls.length).toBe(before);
  });
});
