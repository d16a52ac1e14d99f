// The audit log: every kind of change, made once through each surface (the tenant's REST API,
// the admin API, the chat agent's cronjob tool, the system), leaves exactly one entry naming its
// actor; no entry holds a secret value or a webhook secret; the application's role can append
// and read but never alter or delete an entry; reads filter, page and export; a key's scopes
// bound the cronjob tool as they bound the REST routes.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maintainAuditLog } from '../../src/audit/upkeep.js';
import { withTenant, type Pool } from '../../src/db/pool.js';
import { createSkillLibrary } from '../../src/skills/library.js';
import { DiskObjectStore } from '../../src/storage/disk-store.js';
import { generateSecretsKey } from '../../src/secrets/key.js';
import {
  ADMIN_TOKEN,
  buildTestApp,
  call,
  createKey,
  createTenant,
  expectError,
  type CreatedKey,
  type TestApp,
} from '../helpers/api.js';
import { createAppPool, createTestDatabase, withOwner } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';

interface Entry {
  id: string;
  at: string;
  tenant_id: string | null;
  actor: { type: string; id: string | null; name: string | null; reason: string | null };
  source_address: string | null;
  request_id: string | null;
  action: string;
  target: { type: string; id: string | null };
  change: { before?: Record<string, unknown>; after?: Record<string, unknown> } | null;
}

const SECRET_VALUE = 'sup3r-secret-value-0123456789';

describe('the audit log', () => {
  let testApp: TestApp;
  let app: FastifyInstance;
  let llm: FakeLlm;
  let url: string;
  let tenantId: string;
  let key: CreatedKey;
  let skillsDir: string;
  let skillsPool: Pool;
  const webhookSecrets: string[] = [];
  /** What each surface did: action, actor type, target id. */
  const expected: { action: string; actor: string; target: string }[] = [];

  const ok = async (
    token: string,
    method: 'POST' | 'PATCH' | 'PUT' | 'DELETE',
    path: string,
    body?: unknown,
  ) => {
    const response = await call(app, token, method, path, body);
    expect(response.statusCode, `${method} ${path}: ${response.body}`).toBeLessThan(300);
    return response.body === '' ? {} : response.json<Record<string, unknown>>();
  };
  const chatTool = async (token: string, args: object) => {
    let answered = 0;
    llm.setHandler(() =>
      answered++ === 0
        ? { toolCalls: [{ name: 'cronjob', arguments: JSON.stringify(args) }] }
        : { content: 'done' },
    );
    const response = await app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { authorization: `Bearer ${token}` },
      payload: { messages: [{ role: 'user', content: 'do it' }] },
    });
    expect(response.statusCode, response.body).toBe(200);
    // The tool's result, as the model read it in its second call.
    const second = llm.calls[llm.calls.length - 1]?.body as {
      messages: { role: string; content: string }[];
    };
    const result = second.messages.find((message) => message.role === 'tool')?.content ?? '';
    return JSON.parse(result) as {
      ok: boolean;
      job?: { id: string };
      error?: { code: string; message: string };
    };
  };
  const entries = async (token: string, query = '') => {
    const limit = query.includes('limit=') ? '' : 'limit=200';
    const response = await call(app, token, 'GET', `/v1/audit-log?${limit}${query}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ data: Entry[]; next_cursor: string | null }>();
  };

  beforeAll(async () => {
    url = await createTestDatabase();
    llm = await startFakeLlm();
    skillsDir = await mkdtemp(path.join(os.tmpdir(), 'hermesx-audit-skills-'));
    skillsPool = createAppPool(url);
    testApp = await buildTestApp({
      databaseUrl: url,
      skills: createSkillLibrary(skillsPool, new DiskObjectStore(skillsDir)),
      schedulerRunning: () => true,
      config: {
        LLM_API_URL: llm.url,
        HERMES_SECRETS_KEY: generateSecretsKey(),
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      },
    });
    app = testApp.app;
  });

  afterAll(async () => {
    await testApp?.close();
    await llm?.close();
    await skillsPool?.end();
    await rm(skillsDir, { recursive: true, force: true });
  });

  it('the admin API: tenant created and changed, a key created and revoked', async () => {
    const tenant = await createTenant(app, { name: 'audited' });
    tenantId = tenant.id;
    expected.push({ action: 'tenant.create', actor: 'admin', target: tenantId });
    await ok(ADMIN_TOKEN, 'PATCH', `/v1/tenants/${tenantId}`, { rate_limit_rpm: 5000 });
    expected.push({ action: 'tenant.update', actor: 'admin', target: tenantId });
    key = await createKey(app, tenantId, { name: 'owner key' });
    expected.push({ action: 'key.create', actor: 'admin', target: key.id });
    const spare = await createKey(app, tenantId, { name: 'spare' });
    expected.push({ action: 'key.create', actor: 'admin', target: spare.id });
    await ok(ADMIN_TOKEN, 'DELETE', `/v1/api-keys/${spare.id}`);
    expected.push({ action: 'key.revoke', actor: 'admin', target: spare.id });
  });

  it('the tenant REST API: jobs, runs, secrets, webhooks, keys', async () => {
    const token = key.key;
    const job = await ok(token, 'POST', '/v1/cron-jobs', {
      name: 'rest job',
      schedule: '@hourly',
      prompt: 'hello',
    });
    const jobId = job.id as string;
    expected.push({ action: 'job.create', actor: 'key', target: jobId });
    await ok(token, 'PATCH', `/v1/cron-jobs/${jobId}`, { prompt: 'hello again' });
    expected.push({ action: 'job.update', actor: 'key', target: jobId });
    await ok(token, 'PATCH', `/v1/cron-jobs/${jobId}`, { enabled: false });
    expected.push({ action: 'job.pause', actor: 'key', target: jobId });
    await ok(token, 'PATCH', `/v1/cron-jobs/${jobId}`, { enabled: true });
    expected.push({ action: 'job.resume', actor: 'key', target: jobId });
    await ok(token, 'POST', `/v1/cron-jobs/${jobId}/trigger`);
    expected.push({ action: 'job.trigger', actor: 'key', target: jobId });

    await ok(token, 'PUT', '/v1/secrets/API_TOKEN', { value: SECRET_VALUE });
    expected.push({ action: 'secret.set', actor: 'key', target: 'API_TOKEN' });
    await ok(token, 'DELETE', '/v1/secrets/API_TOKEN');
    expected.push({ action: 'secret.delete', actor: 'key', target: 'API_TOKEN' });

    const hook = await ok(token, 'POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/hook' });
    const hookId = hook.id as string;
    webhookSecrets.push(hook.secret as string);
    expected.push({ action: 'webhook.create', actor: 'key', target: hookId });
    await ok(token, 'PATCH', `/v1/webhooks/${hookId}`, { description: 'ops' });
    expected.push({ action: 'webhook.update', actor: 'key', target: hookId });
    const rotated = await ok(token, 'POST', `/v1/webhooks/${hookId}/rotate-secret`);
    webhookSecrets.push(rotated.secret as string);
    expected.push({ action: 'webhook.rotate_secret', actor: 'key', target: hookId });

    const made = await ok(token, 'POST', '/v1/tenant/api-keys', {
      name: 'ci',
      scopes: ['jobs:read'],
    });
    expected.push({ action: 'key.create', actor: 'key', target: made.id as string });
    await ok(token, 'DELETE', `/v1/tenant/api-keys/${made.id as string}`);
    expected.push({ action: 'key.revoke', actor: 'key', target: made.id as string });

    const hourAgo = new Date(Date.now() - 3600_000).toISOString();
    const range = { from: hourAgo, to: new Date().toISOString() };
    await ok(token, 'POST', `/v1/cron-jobs/${jobId}/backfill`, range);
    expected.push({ action: 'job.backfill', actor: 'key', target: jobId });
    const failed = await withOwner(url, (owner) =>
      owner.query<{ id: string }>(
        `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, pod_id, status, error,
                                    error_kind, finished_at)
         VALUES ($1, $2, '2030-01-02T00:00:00Z', 'pod-a', 'failed', 'boom', 'model_error', now())
         RETURNING id`,
        [jobId, tenantId],
      ),
    );
    const failedId = failed.rows[0]?.id as string;
    await ok(token, 'POST', `/v1/runs/${failedId}/retry`);
    expected.push({ action: 'run.retry', actor: 'key', target: failedId });
    const doc = '---\nname: notes\ndescription: How to take notes.\n---\n# Notes\n';
    await ok(token, 'PUT', '/v1/skills/notes', { content: doc });
    expected.push({ action: 'skill.put', actor: 'key', target: 'notes' });
    await ok(token, 'DELETE', '/v1/skills/notes');
    expected.push({ action: 'skill.delete', actor: 'key', target: 'notes' });
    await ok(ADMIN_TOKEN, 'PUT', `/v1/tenants/${tenantId}/agent-settings`, {
      http_allowed_hosts: ['api.example.com'],
    });
    expected.push({ action: 'tenant.agent_settings_set', actor: 'admin', target: tenantId });

    await ok(token, 'DELETE', `/v1/webhooks/${hookId}`);
    expected.push({ action: 'webhook.delete', actor: 'key', target: hookId });
    await ok(token, 'DELETE', `/v1/cron-jobs/${jobId}`);
    expected.push({ action: 'job.delete', actor: 'key', target: jobId });
  });

  it('the chat agent’s cronjob tool: create, update, disable, enable, run now, delete', async () => {
    const created = await chatTool(key.key, {
      action: 'create',
      name: 'chat job',
      schedule: '@daily',
      prompt: 'summarise',
    });
    expect(created.ok).toBe(true);
    const jobId = created.job?.id as string;
    expected.push({ action: 'job.create', actor: 'key', target: jobId });
    for (const [args, action] of [
      [{ action: 'update', id: jobId, prompt: 'summarise briefly' }, 'job.update'],
      [{ action: 'disable', id: jobId }, 'job.pause'],
      [{ action: 'enable', id: jobId }, 'job.resume'],
      [{ action: 'run_now', id: jobId }, 'job.trigger'],
      [{ action: 'delete', id: jobId }, 'job.delete'],
    ] as const) {
      expect((await chatTool(key.key, args)).ok, action).toBe(true);
      expected.push({ action, actor: 'key', target: jobId });
    }
  });

  it('the system: a job paused by its run limit, an endpoint disabled by the sender', async () => {
    const job = await ok(key.key, 'POST', '/v1/cron-jobs', {
      name: 'limited',
      schedule: '@hourly',
      prompt: 'once',
      max_runs: 1,
    });
    expected.push({ action: 'job.create', actor: 'key', target: job.id as string });
    const hook = await ok(key.key, 'POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/gone' });
    webhookSecrets.push(hook.secret as string);
    expected.push({ action: 'webhook.create', actor: 'key', target: hook.id as string });
    await withOwner(url, async (owner) => {
      // What scheduler_finish writes after the one run max_runs allows (its trigger pauses).
      await owner.query('UPDATE cron_jobs SET run_count = 1 WHERE id = $1', [job.id]);
      // What webhook_finish_delivery writes when the receiver answers 410.
      await owner.query(
        `UPDATE webhook_endpoints SET enabled = false, disabled_reason = 'gone' WHERE id = $1`,
        [hook.id],
      );
    });
    expected.push({ action: 'job.pause', actor: 'system', target: job.id as string });
    expected.push({ action: 'webhook.disable', actor: 'system', target: hook.id as string });
    const { data } = await entries(key.key, '&actor=system');
    expect(data.map((entry) => [entry.action, entry.actor.reason])).toEqual([
      ['webhook.disable', 'endpoint gone'],
      ['job.pause', 'max_runs'],
    ]);
  });

  it('holds exactly one entry per change, with its actor, address and request id', async () => {
    const all = [
      ...(await entries(key.key)).data,
      ...(await call(app, ADMIN_TOKEN, 'GET', '/v1/admin/audit-log?limit=200'))
        .json<{ data: Entry[] }>()
        .data.filter((entry) => entry.tenant_id !== tenantId),
    ];
    const found = all.map((entry) => ({
      action: entry.action,
      actor: entry.actor.type,
      target: entry.target.id,
    }));
    expect(found.sort(byAll)).toEqual([...expected].sort(byAll));
    for (const entry of all.filter((e) => e.actor.type !== 'system')) {
      expect(entry.source_address).toBe('127.0.0.1');
      expect(entry.request_id).toMatch(/^req_[0-9a-f]{16}$/);
    }
    for (const entry of all.filter((e) => e.actor.type === 'key')) {
      expect(entry.actor).toEqual({ type: 'key', id: key.id, name: 'owner key', reason: null });
    }
    const update = all.find(
      (entry) => entry.action === 'job.update' && entry.change?.after?.prompt === 'hello again',
    );
    expect(update?.change).toEqual({
      before: { prompt: 'hello' },
      after: { prompt: 'hello again' },
    });
  });

  it('never holds a secret value or a webhook secret', async () => {
    const exported = await call(app, key.key, 'GET', '/v1/audit-log/export');
    expect(exported.statusCode).toBe(200);
    expect(exported.headers['content-type']).toContain('application/x-ndjson');
    const admin = await call(app, ADMIN_TOKEN, 'GET', '/v1/admin/audit-log?format=ndjson');
    for (const text of [exported.body, admin.body]) {
      expect(text).not.toContain(SECRET_VALUE);
      for (const secret of webhookSecrets) expect(text).not.toContain(secret);
      expect(text).not.toContain(key.key);
    }
    const secretSet = exported.body
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Entry)
      .find((entry) => entry.action === 'secret.set');
    expect(secretSet?.change).toEqual({ after: { value: '[redacted]' } });
  });

  it('the app role may append and read, never alter or delete an entry', async () => {
    const [first] = (await entries(key.key, '&limit=1')).data;
    for (const statement of [
      `UPDATE audit_log SET action = 'job.forged' WHERE id = $1`,
      'DELETE FROM audit_log WHERE id = $1',
    ]) {
      await expect(
        withTenant(testApp.pool, tenantId, (client) => client.query(statement, [first?.id])),
      ).rejects.toMatchObject({ code: '42501' });
    }
    await expect(
      withTenant(testApp.pool, tenantId, (client) => client.query('TRUNCATE audit_log')),
    ).rejects.toMatchObject({ code: '42501' });
    const again = (await entries(key.key, `&limit=1`)).data[0];
    expect(again).toEqual(first);
  });

  it('a tenant sees only its own entries; filters, cursor pages and the export agree', async () => {
    const other = await createTenant(app);
    const otherKey = await createKey(app, other.id);
    // Its own history (made by the admin), none of the first tenant's.
    const theirs = (await entries(otherKey.key)).data;
    expect(theirs.map((entry) => entry.action).sort()).toEqual(['key.create', 'tenant.create']);
    expect(theirs.every((entry) => entry.tenant_id === other.id)).toBe(true);

    const all = (await entries(key.key)).data;
    const paged: Entry[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const page = await call(
        app,
        key.key,
        'GET',
        `/v1/audit-log?limit=3${cursor ? `&cursor=${cursor}` : ''}`,
      );
      const body = page.json<{ data: Entry[]; next_cursor: string | null }>();
      paged.push(...body.data);
      cursor = body.next_cursor;
    }
    expect(paged).toEqual(all);
    const lines = (await call(app, key.key, 'GET', '/v1/audit-log?format=ndjson')).body
      .trim()
      .split('\n');
    expect(lines.map((line) => JSON.parse(line) as Entry)).toEqual(all);

    const pauses = (await entries(key.key, '&action=job.pause')).data;
    expect(pauses.map((entry) => entry.actor.type).sort()).toEqual(['key', 'key', 'system']);
    const byKey = (await entries(key.key, `&actor=key:${key.id}`)).data;
    expect(byKey.every((entry) => entry.actor.id === key.id)).toBe(true);
    const jobs = (await entries(key.key, '&target_type=webhook')).data;
    expect(jobs.every((entry) => entry.target.type === 'webhook')).toBe(true);
    const future = (
      await entries(
        key.key,
        `&from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
      )
    ).data;
    expect(future).toEqual([]);
    expectError(
      await call(app, key.key, 'GET', '/v1/audit-log?cursor=nonsense'),
      400,
      'invalid_cursor',
    );
    const reader = await createKey(app, tenantId, { scopes: ['jobs:read'] });
    expectError(await call(app, reader.key, 'GET', '/v1/audit-log'), 403, 'insufficient_scope');
  });

  it('the export stops at its bound and says where to go on from', async () => {
    const small = await buildTestApp({
      databaseUrl: url,
      config: { AUDIT_EXPORT_MAX_ENTRIES: '2' },
    });
    try {
      const response = await call(small.app, key.key, 'GET', '/v1/audit-log/export');
      const lines = response.body
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines).toHaveLength(3);
      expect(lines[2]).toEqual({
        truncated: true,
        max_entries: 2,
        next_cursor: expect.any(String),
      });
    } finally {
      await small.close();
    }
  });

  it('upkeep makes the months ahead, and drops entries past their retention', async () => {
    const made = await maintainAuditLog(testApp.pool, { monthsAhead: 2, deleteBatch: 100 });
    expect(made.created).toBe(3);
    const again = await maintainAuditLog(testApp.pool, { monthsAhead: 2, deleteBatch: 100 });
    expect(again).toEqual({ created: 0, dropped: 0, deleted: 0 });
    // A tenant keeping 30 days: its entry of 40 days ago goes, row by row.
    const old = await withOwner(url, async (owner) => {
      await owner.query('UPDATE tenants SET audit_retention_days = 30 WHERE id = $1', [tenantId]);
      const { rows } = await owner.query<{ id: string }>(
        `INSERT INTO audit_log (tenant_id, at, actor_type, action, target_type)
         VALUES ($1, now() - interval '40 days', 'admin', 'tenant.update', 'tenant') RETURNING id`,
        [tenantId],
      );
      return rows[0]?.id;
    });
    const trimmed = await maintainAuditLog(testApp.pool, { monthsAhead: 2, deleteBatch: 100 });
    expect(trimmed.deleted).toBe(1);
    expect((await entries(key.key)).data.map((entry) => entry.id)).not.toContain(old);
    // Two years on, every month made today is past the longest retention (365 days).
    const later = new Date(Date.now() + 2 * 366 * 86_400_000);
    const dropped = await maintainAuditLog(
      testApp.pool,
      { monthsAhead: 0, deleteBatch: 100 },
      later,
    );
    expect(dropped.dropped).toBe(3);
  });

  it('a chat+jobs:read key chats and lists, but its cronjob tool cannot create a job', async () => {
    const chatter = await createKey(app, tenantId, { scopes: ['chat', 'jobs:read'] });
    const listed = await chatTool(chatter.key, { action: 'list' });
    expect(listed.ok).toBe(true);
    const refused = await chatTool(chatter.key, {
      action: 'create',
      name: 'nope',
      schedule: '@hourly',
      prompt: 'no',
    });
    expect(refused).toEqual({
      ok: false,
      error: {
        code: 'insufficient_scope',
        message: expect.stringContaining('this request needs the scope jobs:write'),
      },
    });
    const names = (await call(app, key.key, 'GET', '/v1/cron-jobs')).json<{
      data: { name: string }[];
    }>();
    expect(names.data.map((job) => job.name)).not.toContain('nope');
    const runNow = await chatTool(chatter.key, { action: 'run_now', id: chatter.id });
    expect(runNow.error?.message).toContain('runs:write');
  });
});

const byAll = (a: { action: string; actor: string; target: string | null }, b: typeof a) =>
  `${a.action} ${a.actor} ${a.target}`.localeCompare(`${b.action} ${b.actor} ${b.target}`);
