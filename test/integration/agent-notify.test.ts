// The notify tool in a scheduled run (real runner, PostgreSQL; the model is the fake LLM server):
// the agent calls notify and answers [SILENT]; the run's record queues exactly the tool's message
// for the job's `agent` channel, with a secret value the model wrote in it redacted. A run whose
// agent only answers [SILENT] queues nothing. The tool is offered only to runs whose job's rules
// (or, for a job without its own, the tenant's defaults) include `agent`.
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCronRunner } from '../../src/agent/cron-runner.js';
import { createLlm } from '../../src/agent/llm.js';
import type { Pool } from '../../src/db/pool.js';
import { createSecretsVault, type SecretsVault } from '../../src/secrets/vault.js';
import { createAppPool, createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';

const SECRET = 'sk-live-notify-SECRET-0042';

let db: pg.Client;
let pool: Pool;
let llm: FakeLlm;
let vault: SecretsVault;
let tenantId = '';
let jobId = '';
let channelId = '';

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  pool = createAppPool(databaseUrl);
  llm = await startFakeLlm();
  vault = createSecretsVault(pool, randomBytes(32));
  const tenant = await db.query<{ id: string }>(
    "INSERT INTO tenants (name) VALUES ('notify') RETURNING id",
  );
  tenantId = tenant.rows[0]!.id;
  await vault.put(tenantId, 'API_TOKEN', SECRET);
  const channel = await db.query<{ id: string }>(
    `INSERT INTO notify_channels (tenant_id, kind, name, config)
     VALUES ($1, 'slack', 'ops', '{"url":"https://hooks.example.com/x"}') RETURNING id`,
    [tenantId],
  );
  channelId = channel.rows[0]!.id;
  jobId = await createJob([{ channel: channelId, when: 'agent' }]);
});

/** A job of the tenant with these notify rules (null: the tenant's defaults apply). */
async function createJob(rules: unknown[] | null): Promise<string> {
  const job = await db.query<{ id: string }>(
    `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt, notify_rules)
     VALUES ($1, 'status watch', '*/5 * * * *', 'Anything new?', $2) RETURNING id`,
    [tenantId, rules === null ? null : JSON.stringify(rules)],
  );
  return job.rows[0]!.id;
}

afterAll(async () => {
  await llm?.close();
  await pool?.end();
  await db?.end();
});

type Message = { role: string };

/** One run through the real runner, then recorded as the scheduler records it. */
async function run(minute: number, ofJob = jobId): Promise<string> {
  const jobId = ofJob;
  const runId = randomUUID();
  const scheduledAt = new Date(Date.UTC(2026, 11, 4, 9, minute));
  await db.query(
    `INSERT INTO cron_job_runs (id, cron_job_id, tenant_id, scheduled_at, status, pod_id, started_at)
     VALUES ($1, $2, $3, $4, 'running', 'pod-a', now())`,
    [runId, jobId, tenantId, scheduledAt],
  );
  const runner = createCronRunner(createLlm({ url: llm.url, apiKey: '', model: 'fake-model' }), {
    pool,
    vault,
    allowPrivateNetworks: false,
    now: () => new Date(),
  });
  const reply = await runner(
    {
      jobId,
      tenantId,
      runId,
      name: 'status watch',
      prompt: 'Anything new?',
      timezone: 'UTC',
      scheduledAt,
    },
    {
      signal: new AbortController().signal,
      deadlineMs: Date.now() + 60_000,
      beforeSend: () => Promise.resolve(),
    },
  );
  expect(reply.ok).toBe(true);
  await db.query(`SELECT scheduler_finish($1, $2, $3, $4, $5, $6, 'pod-a')`, [
    [runId],
    [true],
    [reply.ok ? reply.text : null],
    [null],
    [null],
    [1],
  ]);
  return runId;
}

describe('the notify tool', () => {
  it("queues the tool's message (secrets redacted) and nothing for a plain [SILENT]", async () => {
    llm.setHandler((body) => {
      const messages = (body as { messages: Message[] }).messages;
      if (messages.filter((m) => m.role === 'tool').length === 0) {
        return {
          toolCalls: [
            {
              name: 'notify',
              arguments: JSON.stringify({
                message: `Status page changed: API degraded (token ${SECRET})`,
                severity: 'warning',
              }),
            },
          ],
        };
      }
      return { content: '[SILENT]' };
    });
    const told = await run(0);
    llm.setHandler(() => ({ content: '[SILENT] nothing new' }));
    const silent = await run(5);

    const { rows: calls } = await db.query(
      `SELECT tool, status FROM cron_run_tool_calls WHERE run_id = $1`,
      [told],
    );
    expect(calls).toEqual([{ tool: 'notify', status: 'ok' }]);
    const { rows } = await db.query<{
      run_id: string;
      reason: string;
      payload: Record<string, unknown>;
    }>('SELECT run_id, reason, payload FROM channel_deliveries WHERE cron_job_id = $1', [jobId]);
    expect(rows.map((row) => [row.run_id, row.reason])).toEqual([[told, 'agent']]);
    expect(rows.some((row) => row.run_id === silent)).toBe(false);
    const payload = rows[0]!.payload;
    expect(payload.severity).toBe('warning');
    expect(String(payload.message)).toContain('Status page changed: API degraded');
    expect(JSON.stringify(payload)).not.toContain(SECRET);
  });
});

describe('who is offered the notify tool', () => {
  /** The tool names the model was offered in one run of the job. */
  async function offeredTools(job: string, minute: number): Promise<string[]> {
    const offered: string[] = [];
    llm.setHandler((body) => {
      const tools = (body as { tools?: { function: { name: string } }[] }).tools ?? [];
      offered.push(...tools.map((tool) => tool.function.name));
      return { content: '[SILENT]' };
    });
    await run(minute, job);
    return offered;
  }

  const setTenantRules = async (rules: { when: string }[]) => {
    await db.query('DELETE FROM notify_tenant_rules WHERE tenant_id = $1', [tenantId]);
    for (const [i, rule] of rules.entries()) {
      await db.query(
        `INSERT INTO notify_tenant_rules (tenant_id, channel_id, notify_when, position)
         VALUES ($1, $2, $3, $4)`,
        [tenantId, channelId, rule.when, i],
      );
    }
  };

  it("a run whose job has an agent rule sees it; one whose job's rules have none does not", async () => {
    await setTenantRules([{ when: 'agent' }]);
    expect(await offeredTools(jobId, 10)).toContain('notify');
    const failedOnly = await createJob([
      { channel: channelId, when: 'failed' },
      { channel: channelId, when: 'always' },
    ]);
    const tools = await offeredTools(failedOnly, 15);
    expect(tools).toContain('clock');
    expect(tools).not.toContain('notify');
    // An empty list is the job's own (no message at all): the tenant's agent rule does not apply.
    expect(await offeredTools(await createJob([]), 20)).not.toContain('notify');
  });

  it("a job without rules of its own follows the tenant's defaults", async () => {
    const job = await createJob(null);
    await setTenantRules([]);
    expect(await offeredTools(job, 25)).not.toContain('notify');
    await setTenantRules([{ when: 'failed' }, { when: 'system_paused' }]);
    expect(await offeredTools(job, 30)).not.toContain('notify');
    await setTenantRules([{ when: 'failed' }, { when: 'agent' }]);
    expect(await offeredTools(job, 35)).toContain('notify');
    await setTenantRules([]);
  });
});
