// A retried attempt runs under the same run id as the attempt before it: its tool calls are
// written after the earlier ones (real runner and PostgreSQL; the model is the fake LLM server).
// They once took the same numbers, and the first call of the retry failed the attempt.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCronRunner } from '../../src/agent/cron-runner.js';
import { createLlm } from '../../src/agent/llm.js';
import type { Pool } from '../../src/db/pool.js';
import { createSecretsVault } from '../../src/secrets/vault.js';
import { createAppPool, createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';

let db: pg.Client;
let pool: Pool;
let llm: FakeLlm;

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  pool = createAppPool(databaseUrl);
  llm = await startFakeLlm();
});

afterAll(async () => {
  await llm?.close();
  await pool?.end();
  await db?.end();
});

describe("a retried attempt's tool calls", () => {
  it('are audited after those of the attempt before', async () => {
    const tenant = await db.query<{ id: string }>(
      "INSERT INTO tenants (name) VALUES ('attempts') RETURNING id",
    );
    const tenantId = tenant.rows[0]!.id;
    const job = await db.query<{ id: string }>(
      `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt)
       VALUES ($1, 'again', '0 9 * * *', 'p') RETURNING id`,
      [tenantId],
    );
    const jobId = job.rows[0]!.id;
    const runId = '00000000-0000-4000-8000-0000000a77e2';
    // The first attempt read the clock, then the model failed.
    await db.query(
      `INSERT INTO cron_run_tool_calls (run_id, seq, tenant_id, tool, arguments, status,
         duration_ms, side_effects)
       VALUES ($1, 1, $2, 'clock', '{}', 'ok', 1, false)`,
      [runId, tenantId],
    );
    llm.setHandler((body) => {
      const messages = (body as { messages: { role: string }[] }).messages;
      return messages.at(-1)?.role === 'tool'
        ? { content: 'done' }
        : { toolCalls: [{ name: 'clock', arguments: '{}' }] };
    });
    const runner = createCronRunner(createLlm({ url: llm.url, apiKey: '', model: 'fake-model' }), {
      pool,
      vault: createSecretsVault(pool, undefined),
      allowPrivateNetworks: false,
    });
    const reply = await runner(
      {
        jobId,
        tenantId,
        runId,
        name: 'again',
        prompt: 'p',
        timezone: 'UTC',
        scheduledAt: new Date('2026-12-04T09:00:00.000Z'),
      },
      {
        signal: new AbortController().signal,
        deadlineMs: Date.now() + 60_000,
        beforeSend: () => Promise.resolve(),
      },
    );
    expect(reply).toEqual({ ok: true, text: 'done' });
    const { rows } = await db.query(
      'SELECT seq, tool, status FROM cron_run_tool_calls WHERE run_id = $1 ORDER BY seq',
      [runId],
    );
    expect(rows).toEqual([
      { seq: 1, tool: 'clock', status: 'ok' },
      { seq: 2, tool: 'clock', status: 'ok' },
    ]);
  });
});
