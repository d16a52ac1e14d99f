// When a run is worth a message, decided in SQL in the transaction that records it: `changed`
// sends exactly on change, `agent` stays silent when the agent says so (or sends the notify
// tool's message), `recovered` and `failed` follow the run's outcome, the tenant's defaults
// apply to jobs without rules of their own, and the tenant's alerts fire on N failures in a row
// and on a pause by the system. Row-level security keeps tenants' channels apart.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as channels from '../../src/channels/channels.js';
import type { ChannelDeps } from '../../src/channels/channels.js';
import { withTenant, type Pool } from '../../src/db/pool.js';
import { createSecretsVault } from '../../src/secrets/vault.js';
import { createAppPool, createTestDatabase } from '../helpers/database.js';

let owner: pg.Client;
let pool: Pool;
let deps: ChannelDeps;

async function newTenantJob(extra = ''): Promise<{ tenantId: string; jobId: string }> {
  const tenantId = randomUUID();
  const jobId = randomUUID();
  await owner.query(`INSERT INTO tenants (id, name) VALUES ($1, 'rules')`, [tenantId]);
  await owner.query(
    `INSERT INTO cron_jobs (id, tenant_id, name, schedule, prompt${extra ? ', pause_after_failures' : ''})
     VALUES ($1, $2, 'Watch', '*/5 * * * *', 'check'${extra ? `, ${extra}` : ''})`,
    [jobId, tenantId],
  );
  return { tenantId, jobId };
}

async function slackChannel(tenantId: string, name = 'ops'): Promise<string> {
  const channel = await channels.createChannel(deps, tenantId, {
    kind: 'slack',
    name,
    config: { url: 'https://hooks.example.com/services/T/B/X' },
  });
  return channel.id;
}

let minute = 0;
/** Records a run as scheduler_finish does: the run and its job's statistics in one statement. */
async function recordRun(
  job: { tenantId: string; jobId: string },
  status: 'success' | 'failed',
  result: string | null,
  toolCalls: { tool: string; arguments: unknown }[] = [],
): Promise<string> {
  minute += 1;
  const scheduledAt = new Date(Date.UTC(2026, 0, 1) + minute * 60_000);
  const { rows } = await owner.query<{ id: string }>(
    `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, pod_id, started_at)
     VALUES ($1, $2, $3, 'running', 'pod-a', now()) RETURNING id`,
    [job.jobId, job.tenantId, scheduledAt],
  );
  const runId = rows[0]!.id;
  for (const [i, call] of toolCalls.entries()) {
    await owner.query(
      `INSERT INTO cron_run_tool_calls (run_id, seq, tenant_id, tool, arguments, status, duration_ms)
       VALUES ($1, $2, $3, $4, $5, 'ok', 1)`,
      [runId, i + 1, job.tenantId, call.tool, JSON.stringify(call.arguments)],
    );
  }
  await owner.query(`SELECT scheduler_finish($1, $2, $3, $4, $5, $6, 'pod-a')`, [
    [runId],
    [status === 'success'],
    [result],
    [status === 'failed' ? 'the model server is unreachable' : null],
    [status === 'failed' ? 'model_unreachable' : null],
    [1],
  ]);
  return runId;
}

async function deliveries(jobId: string) {
  const { rows } = await owner.query<{
    run_id: string | null;
    channel_id: string;
    reason: string;
    payload: Record<string, unknown>;
  }>(
    'SELECT run_id, channel_id, reason, payload FROM channel_deliveries WHERE cron_job_id = $1 ORDER BY created_at, id',
    [jobId],
  );
  return rows;
}

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  owner = new pg.Client({ connectionString: databaseUrl });
  await owner.connect();
  pool = createAppPool(databaseUrl);
  deps = {
    pool,
    vault: createSecretsVault(pool, undefined),
    allowPrivateNetworks: true,
    timeoutMs: 1000,
    telegramApiUrl: 'https://api.telegram.org',
    smtpUrl: undefined,
    smtpFrom: undefined,
    maxChannels: 3,
    publicUrl: undefined,
  };
});

afterAll(async () => {
  await pool?.end();
  await owner?.end();
});

describe('changed', () => {
  it('sends exactly on change over ten runs with three changes (white space does not count)', async () => {
    const job = await newTenantJob();
    const channel = await slackChannel(job.tenantId);
    await owner.query('UPDATE cron_jobs SET notify_rules = $2 WHERE id = $1', [
      job.jobId,
      JSON.stringify([{ channel, when: 'changed' }]),
    ]);
    const answers = [
      'all green',
      'all  green\n',
      'all green',
      'api degraded',
      null, // a failed run in between: compared with the last success, not with it
      'api   degraded',
      'all green',
      ' all green ',
      '{"status": "down"}',
      '{"status": "down"}',
    ];
    const runIds: string[] = [];
    for (const answer of answers) {
      runIds.push(await recordRun(job, answer === null ? 'failed' : 'success', answer));
    }
    const sent = await deliveries(job.jobId);
    expect(sent.map((d) => d.run_id)).toEqual([runIds[3], runIds[6], runIds[8]]);
    expect(sent.map((d) => d.payload.answer)).toEqual([
      'api degraded',
      'all green',
      '{"status": "down"}',
    ]);
    expect(sent.every((d) => d.reason === 'changed')).toBe(true);
  });
});

describe('agent', () => {
  it('stays silent on [SILENT], sends the answer otherwise, and the notify tool’s message when called', async () => {
    const job = await newTenantJob();
    const channel = await slackChannel(job.tenantId);
    await owner.query('UPDATE cron_jobs SET notify_rules = $2 WHERE id = $1', [
      job.jobId,
      JSON.stringify([{ channel, when: 'agent' }]),
    ]);
    await recordRun(job, 'success', '[SILENT]');
    await recordRun(job, 'success', '  [SILENT] nothing new since 08:00');
    const told = await recordRun(job, 'success', 'A new incident: INC-42');
    const viaTool = await recordRun(job, 'success', '[SILENT]', [
      { tool: 'clock', arguments: {} },
      { tool: 'notify', arguments: { message: 'Disk at 91% on db-1', severity: 'warning' } },
    ]);
    await recordRun(job, 'failed', null);
    const sent = await deliveries(job.jobId);
    expect(sent.map((d) => d.run_id)).toEqual([told, viaTool]);
    expect(sent[1]!.payload).toMatchObject({ message: 'Disk at 91% on db-1', severity: 'warning' });
  });
});

describe('failed, recovered, always, and the tenant defaults', () => {
  it('follows the outcome; defaults apply only to jobs without their own rules', async () => {
    const job = await newTenantJob();
    const pager = await slackChannel(job.tenantId, 'pager');
    const digest = await slackChannel(job.tenantId, 'digest');
    await channels.putTenantRules(deps, job.tenantId, [{ channel: digest, when: 'always' }]);
    const byDefault = await recordRun(job, 'success', 'one');
    await owner.query('UPDATE cron_jobs SET notify_rules = $2 WHERE id = $1', [
      job.jobId,
      JSON.stringify([
        { channel: pager, when: 'failed' },
        { channel: digest, when: 'recovered', template: 'back: {{answer}}' },
      ]),
    ]);
    const failed1 = await recordRun(job, 'failed', null);
    const failed2 = await recordRun(job, 'failed', null);
    const recovered = await recordRun(job, 'success', 'two');
    await recordRun(job, 'success', 'three');
    await owner.query(`UPDATE cron_jobs SET notify_rules = '[]' WHERE id = $1`, [job.jobId]);
    await recordRun(job, 'failed', null);
    const sent = await deliveries(job.jobId);
    expect(sent.map((d) => [d.run_id, d.channel_id, d.reason])).toEqual([
      [byDefault, digest, 'always'],
      [failed1, pager, 'failed'],
      [failed2, pager, 'failed'],
      [recovered, digest, 'recovered'],
    ]);
    expect(sent[3]!.payload.template).toBe('back: {{answer}}');
  });
});

describe('tenant alerts', () => {
  it('fires once when a job fails N times in a row, and when the system pauses it', async () => {
    const job = await newTenantJob('5');
    const alerts = await slackChannel(job.tenantId, 'alerts');
    await owner.query(`UPDATE cron_jobs SET notify_rules = '[]' WHERE id = $1`, [job.jobId]);
    await channels.putTenantRules(deps, job.tenantId, [
      { channel: alerts, when: 'failures', failures: 3 },
      { channel: alerts, when: 'system_paused', template: '{{job_name}} stopped' },
    ]);
    const runs: string[] = [];
    for (let i = 0; i < 5; i++) runs.push(await recordRun(job, 'failed', null));
    const sent = await deliveries(job.jobId);
    expect(sent.map((d) => [d.run_id, d.reason])).toEqual([
      [runs[2], 'failures'],
      [null, 'system_paused'],
    ]);
    expect(sent[0]!.payload).toMatchObject({ consecutive_failures: 3, status: 'failed' });
    expect(sent[1]!.payload).toMatchObject({
      subject: 'job_paused',
      stopped_by: 'pause_after_failures',
      template: '{{job_name}} stopped',
    });
  });

  it('refuses a rule naming a channel of another tenant, and a failures rule without N', async () => {
    const a = await newTenantJob();
    const b = await newTenantJob();
    const channelOfB = await slackChannel(b.tenantId);
    await expect(
      channels.putTenantRules(deps, a.tenantId, [{ channel: channelOfB, when: 'always' }]),
    ).rejects.toMatchObject({ code: 'channel_not_found', status: 404 });
    await expect(
      channels.putTenantRules(deps, a.tenantId, [{ channel: channelOfB, when: 'failures' }]),
    ).rejects.toMatchObject({ code: 'invalid_rule', status: 422 });
  });
});

describe('tenancy and bounds', () => {
  it("keeps tenants' channels and deliveries apart under RLS, and caps channels per tenant", async () => {
    const a = await newTenantJob();
    const b = await newTenantJob();
    const channelOfA = await slackChannel(a.tenantId);
    await owner.query('UPDATE cron_jobs SET notify_rules = $2 WHERE id = $1', [
      a.jobId,
      JSON.stringify([{ channel: channelOfA, when: 'always' }]),
    ]);
    await recordRun(a, 'success', 'for A only');
    const seenByB = await withTenant(pool, b.tenantId, async (client) => ({
      channels: (await client.query('SELECT id FROM notify_channels')).rows,
      deliveries: (await client.query('SELECT id FROM channel_deliveries')).rows,
      updated: (
        await client.query(`UPDATE notify_channels SET name = 'x' WHERE id = $1`, [channelOfA])
      ).rowCount,
    }));
    expect(seenByB).toEqual({ channels: [], deliveries: [], updated: 0 });
    await expect(channels.getChannel(deps, b.tenantId, channelOfA)).rejects.toMatchObject({
      status: 404,
    });
    await slackChannel(a.tenantId, 'two');
    await slackChannel(a.tenantId, 'three');
    await expect(slackChannel(a.tenantId, 'four')).rejects.toMatchObject({
      code: 'quota_exceeded',
      status: 409,
    });
  });
});
