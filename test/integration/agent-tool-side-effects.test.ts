// The retry decision in PostgreSQL agrees with the registry: for every tool and a spread of
// arguments, a call is audited the way a run audits it (auditTools writing through
// insertToolCall), the run then fails with a retryable kind, and the trigger of migration 250
// (its condition as of 325) sends it back to the queue exactly when the tool's sideEffects said
// the call changed nothing.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertToolCall } from '../../src/agent/run-audit.js';
import type { AgentTool } from '../../src/agent/tool.js';
import { auditTools } from '../../src/agent/tools/audit.js';
import { AGENT_TOOLS, createTools, TOOL_NAMES } from '../../src/agent/tools/index.js';
import type { Pool } from '../../src/db/pool.js';
import { NO_SECRETS } from '../../src/secrets/redact.js';
import { createFullToolScope } from '../helpers/agent-tool-scope.js';
import { createAppPool, createTestDatabase } from '../helpers/database.js';

let db: pg.Client;
let pool: Pool;
let tenantId = '';
let jobId = '';
let occurrence = 0;

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  pool = createAppPool(databaseUrl);
  const tenant = await db.query<{ id: string }>(
    "INSERT INTO tenants (name) VALUES ('side effects') RETURNING id",
  );
  tenantId = tenant.rows[0]!.id;
  const job = await db.query<{ id: string }>(
    `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt, retry_max_attempts, retry_backoff_ms)
     VALUES ($1, 'retried', '0 0 1 1 *', 'p', 3, 60000) RETURNING id`,
    [tenantId],
  );
  jobId = job.rows[0]!.id;
});

afterAll(async () => {
  await pool?.end();
  await db?.end();
});

/** Arguments worth asking each tool about; every tool is also asked with none and with junk. */
const SAMPLES: Record<string, unknown[]> = {
  cronjob: [
    { action: 'list' },
    { action: 'get', id: 'x' },
    { action: 'list_runs' },
    { action: 'list_webhooks' },
    { action: 'create', name: 'n', schedule: '@daily', prompt: 'p' },
    { action: 'update', id: 'x' },
    { action: 'delete', id: 'x' },
    { action: 'enable', id: 'x' },
    { action: 'disable', id: 'x' },
    { action: 'pause' },
    { action: 'run_now', id: 'x' },
    { action: 'attach_webhook', id: 'x', webhook_id: 'w' },
  ],
  http_request: [
    { method: 'GET', url: 'http://127.0.0.1/' },
    { method: 'get', url: 'http://127.0.0.1/' },
    { method: 'HEAD', url: 'http://127.0.0.1/' },
    { method: 'OPTIONS', url: 'http://127.0.0.1/' },
    { method: 'POST', url: 'http://127.0.0.1/', body: '{}' },
    { method: 'PUT', url: 'http://127.0.0.1/' },
    { method: 'PATCH', url: 'http://127.0.0.1/' },
    { method: 'DELETE', url: 'http://127.0.0.1/' },
  ],
  skill: [{ name: 'daily-summary' }],
};
const EVERY_TOOL_SAMPLES: unknown[] = [{}, { unexpected: [1, 2] }, 'not an object'];

/** Every tool the registry makes, in whichever place offers it (the run's cronjob first). */
function everyTool(): { place: string; tool: AgentTool }[] {
  return (['run', 'chat'] as const).flatMap((place) =>
    createTools(createFullToolScope(place, pool, tenantId, { id: jobId, timezone: 'UTC' })).map(
      (tool) => ({ place, tool }),
    ),
  );
}

async function startRun(): Promise<string> {
  occurrence += 1;
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, pod_id, started_at)
     VALUES ($1, $2, '2026-01-01T00:00:00Z'::timestamptz + $3 * interval '1 minute', 'running',
       'pod-a', now())
     RETURNING id`,
    [jobId, tenantId, occurrence],
  );
  return rows[0]!.id;
}

/** Fails the run as scheduler_finish does after a model 500; answers the status it ended in. */
async function failRun(runId: string): Promise<string> {
  const { rows } = await db.query<{ status: string }>(
    `UPDATE cron_job_runs SET status = 'failed', error_kind = 'model_error', error = 'boom',
       finished_at = now()
     WHERE id = $1 RETURNING status`,
    [runId],
  );
  return rows[0]!.status;
}

/** One call of `tool` in a fresh run, audited as a run audits it, its outcome as given. */
async function auditedCall(
  tool: AgentTool,
  args: unknown,
  outcome: (context: Parameters<AgentTool['run']>[1]) => string = () => '{"ok":true}',
): Promise<string> {
  const runId = await startRun();
  const [audited] = auditTools([{ ...tool, run: async (_args, context) => outcome(context) }], {
    redactor: NO_SECRETS,
    record: (call) => insertToolCall(pool, tenantId, runId, call),
  });
  await audited!.run(args, { tenantId, signal: new AbortController().signal });
  return runId;
}

describe('the retry decision and the registry', () => {
  it('offers every registered tool somewhere', () => {
    expect(new Set(everyTool().map(({ tool }) => tool.definition.function.name))).toEqual(
      new Set(TOOL_NAMES),
    );
  });

  it('retries a failed attempt exactly when its call had no side effect, for every tool', async () => {
    const seen: string[] = [];
    for (const { place, tool } of everyTool()) {
      const name = tool.definition.function.name;
      const entry = AGENT_TOOLS.find((row) => row.name === name)!;
      for (const args of [...(SAMPLES[name] ?? []), ...EVERY_TOOL_SAMPLES]) {
        const runId = await auditedCall(tool, args);
        const expected = entry.sideEffects(args) ? 'failed' : 'queued';
        const what = `${place} ${name} ${JSON.stringify(args)}`;
        expect(await failRun(runId), what).toBe(expected);
        seen.push(`${name}:${expected}`);
      }
    }
    // The spread reaches both answers where a tool has both.
    for (const name of ['cronjob', 'http_request']) {
      expect(seen).toContain(`${name}:queued`);
      expect(seen).toContain(`${name}:failed`);
    }
  });

  it('pins the rules: reads are retried, writes are not', async () => {
    const tools = new Map(
      everyTool().map(({ place, tool }) => [`${place} ${tool.definition.function.name}`, tool]),
    );
    const cases: [string, unknown, string][] = [
      ['run http_request', { method: 'GET', url: 'http://127.0.0.1/' }, 'queued'],
      ['run http_request', { method: 'HEAD', url: 'http://127.0.0.1/' }, 'queued'],
      ['run http_request', { method: 'POST', url: 'http://127.0.0.1/' }, 'failed'],
      ['run cronjob', { action: 'list_runs' }, 'queued'],
      ['run cronjob', { action: 'pause' }, 'failed'],
      ['chat cronjob', { action: 'list' }, 'queued'],
      ['chat cronjob', { action: 'create' }, 'failed'],
      ['run skill', { name: 'daily-summary' }, 'queued'],
    ];
    for (const [key, args, expected] of cases) {
      const runId = await auditedCall(tools.get(key)!, args);
      expect(await failRun(runId), `${key} ${JSON.stringify(args)}`).toBe(expected);
    }
  });

  it('a call that never ran (refused, stopped by a limit) is no side effect', async () => {
    const http = everyTool().find(({ tool }) => tool.definition.function.name === 'http_request')!;
    const post = { method: 'POST', url: 'http://127.0.0.1/' };
    const refused = await auditedCall(http.tool, post, (context) => {
      context.report?.({ status: 'refused', error: 'host' });
      return '{"ok":false,"error":{"code":"host_not_allowed","message":"host"}}';
    });
    expect(await failRun(refused)).toBe('queued');
    // A failed POST may have reached its target: it counts.
    const failed = await auditedCall(
      http.tool,
      post,
      () => '{"ok":false,"error":{"code":"timeout","message":"no answer"}}',
    );
    expect(await failRun(failed)).toBe('failed');
  });

  it('a call written without the column (a pod older than migration 325) counts as a side effect', async () => {
    const runId = await startRun();
    await db.query(
      `INSERT INTO cron_run_tool_calls (run_id, seq, tenant_id, tool, arguments, status, duration_ms)
       VALUES ($1, 1, $2, 'skill', '{"name":"x"}', 'ok', 1)`,
      [runId, tenantId],
    );
    expect(await failRun(runId)).toBe('failed');
  });

  it('a job that allows it is retried after a side effect', async () => {
    await db.query('UPDATE cron_jobs SET retry_after_side_effects = true WHERE id = $1', [jobId]);
    try {
      const http = everyTool().find(
        ({ tool }) => tool.definition.function.name === 'http_request',
      )!;
      const runId = await auditedCall(http.tool, { method: 'DELETE', url: 'http://127.0.0.1/' });
      expect(await failRun(runId)).toBe('queued');
    } finally {
      await db.query('UPDATE cron_jobs SET retry_after_side_effects = false WHERE id = $1', [
        jobId,
      ]);
    }
  });
});
