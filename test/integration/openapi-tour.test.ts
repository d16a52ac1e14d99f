// A full tour of the API (every operation; success and error answers) through a validator built
// from the served /openapi.json: each answer's status, media type and body must be what the
// document says, and every operation of the document must have been called. If the code and the
// document drift apart, this fails.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pool } from '../../src/db/pool.js';
import { generateSecretsKey } from '../../src/secrets/key.js';
import { createSkillLibrary } from '../../src/skills/library.js';
import { DiskObjectStore } from '../../src/storage/disk-store.js';
import {
  ADMIN_TOKEN,
  DEFAULT_TENANT_ID,
  DEFAULT_TENANT_KEY,
  buildTestApp,
  type TestApp,
} from '../helpers/api.js';
import { createAppPool, createTestDatabase, withOwner } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import {
  createOpenApiValidator,
  type OpenApiDocument,
  type OpenApiValidator,
} from '../helpers/openapi-validator.js';

interface Sent {
  token?: string;
  body?: unknown;
  /** Sent as is with this content type (for non-JSON bodies). */
  raw?: { contentType: string; payload: string };
}

describe('the API tour against its OpenAPI document', () => {
  let databaseUrl: string;
  let llm: FakeLlm;
  let api: TestApp;
  let validator: OpenApiValidator;
  let skillsDir: string;
  let skillsPool: Pool;
  let schedulerUp = true;
  const violations: string[] = [];
  const called = new Set<string>();
  const statuses = new Set<string>();

  /** One request; its answer is checked against the document and returned. */
  async function send(method: string, url: string, sent: Sent = {}) {
    const headers: Record<string, string> = {};
    if (sent.token) headers.authorization = `Bearer ${sent.token}`;
    if (sent.raw) headers['content-type'] = sent.raw.contentType;
    const response = await api.app.inject({
      method: method as 'GET',
      url,
      headers,
      ...(sent.raw ? { payload: sent.raw.payload } : {}),
      ...(sent.body !== undefined ? { payload: sent.body as object } : {}),
    });
    const operation = validator.operationOf(method, url);
    if (operation) {
      called.add(operation);
      statuses.add(`${operation} ${response.statusCode}`);
    }
    const contentType = response.headers['content-type'];
    violations.push(
      ...validator.violations({
        method,
        url,
        requestBody: sent.body,
        requestContentType: sent.body !== undefined ? 'application/json' : undefined,
        status: response.statusCode,
        contentType: typeof contentType === 'string' ? contentType : undefined,
        headers: response.headers,
        body: response.body,
      }),
    );
    return response;
  }

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    llm = await startFakeLlm();
    skillsDir = await mkdtemp(path.join(os.tmpdir(), 'hermesx-tour-skills-'));
    skillsPool = createAppPool(databaseUrl);
    api = await buildTestApp({
      databaseUrl,
      config: {
        LLM_API_URL: llm.url,
        LLM_MODEL: 'fake-model',
        HERMES_SECRETS_KEY: generateSecretsKey(),
      },
      schedulerRunning: () => schedulerUp,
      skills: createSkillLibrary(skillsPool, new DiskObjectStore(skillsDir)),
    });
    const served = await api.app.inject({ method: 'GET', url: '/openapi.json' });
    validator = createOpenApiValidator(served.json<OpenApiDocument>());
  });
  afterAll(async () => {
    await api?.close();
    await llm?.close();
    await skillsPool?.end();
    await rm(skillsDir, { recursive: true, force: true });
  });

  it('public routes: health and metrics', async () => {
    expect((await send('GET', '/health/live')).statusCode).toBe(200);
    expect((await send('GET', '/health/ready')).statusCode).toBe(200);
    expect((await send('GET', '/health/model')).statusCode).toBe(200);
    expect((await send('GET', '/metrics')).statusCode).toBe(200);
    expect((await send('GET', '/health/live?verbose=1')).statusCode).toBe(400);
  });

  it('admin routes: tenants and API keys', async () => {
    const admin = { token: ADMIN_TOKEN };
    const created = await send('POST', '/v1/tenants', { ...admin, body: { name: 'tour' } });
    expect(created.statusCode).toBe(201);
    const tenant = created.json<{ id: string }>();
    expect((await send('POST', '/v1/tenants', { ...admin, body: { name: '' } })).statusCode).toBe(
      400,
    );
    const plain = { contentType: 'text/plain', payload: 'name=x' };
    expect((await send('POST', '/v1/tenants', { ...admin, raw: plain })).statusCode).toBe(415);
    const huge = { name: 'x'.repeat(300 * 1024) };
    expect((await send('POST', '/v1/tenants', { ...admin, body: huge })).statusCode).toBe(413);
    expect((await send('GET', '/v1/tenants', admin)).statusCode).toBe(200);
    expect((await send('GET', '/v1/cluster', admin)).statusCode).toBe(200);
    expect((await send('GET', '/v1/tenants')).statusCode).toBe(401);
    expect((await send('GET', '/v1/tenants', { token: DEFAULT_TENANT_KEY })).statusCode).toBe(403);
    expect((await send('GET', `/v1/tenants/${tenant.id}`, admin)).statusCode).toBe(200);
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await send('GET', `/v1/tenants/${unknown}`, admin)).statusCode).toBe(404);
    expect((await send('GET', `/v1/tenants/${'x'.repeat(150)}`, admin)).statusCode).toBe(414);
    const patch = { ...admin, body: { rate_limit_rpm: 1000 } };
    expect((await send('PATCH', `/v1/tenants/${tenant.id}`, patch)).statusCode).toBe(200);
    const emptyPatch = { ...admin, body: {} };
    expect((await send('PATCH', `/v1/tenants/${tenant.id}`, emptyPatch)).statusCode).toBe(400);

    const keyBody = { tenant_id: tenant.id, name: 'tour key' };
    const key = await send('POST', '/v1/api-keys', { ...admin, body: keyBody });
    expect(key.statusCode).toBe(201);
    const noTenant = { ...admin, body: { tenant_id: unknown, name: 'k' } };
    expect((await send('POST', '/v1/api-keys', noTenant)).statusCode).toBe(404);
    expect((await send('GET', `/v1/api-keys?tenant_id=${tenant.id}`, admin)).statusCode).toBe(200);
    const keyId = key.json<{ id: string }>().id;
    const revoked = await send('DELETE', `/v1/api-keys/${keyId}`, admin);
    expect(revoked.statusCode).toBe(204);
    expect(revoked.body).toBe('');
    expect((await send('DELETE', `/v1/api-keys/${keyId}`, admin)).statusCode).toBe(404);
    const deleted = await send('DELETE', `/v1/tenants/${tenant.id}`, admin);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
  });

  it('tenant routes: cron jobs, runs, triggers', async () => {
    const tenant = { token: DEFAULT_TENANT_KEY };
    const jobBody = { name: 'tour job', schedule: '*/5 * * * *', prompt: 'say hello' };
    const created = await send('POST', '/v1/cron-jobs', { ...tenant, body: jobBody });
    expect(created.statusCode).toBe(201);
    const job = created.json<{ id: string }>();
    await send('POST', '/v1/cron-jobs', { ...tenant, body: { ...jobBody, name: 'second' } });
    const badSchedule = { ...tenant, body: { ...jobBody, schedule: 'every tuesday-ish' } };
    expect((await send('POST', '/v1/cron-jobs', badSchedule)).statusCode).toBe(422);

    const page = await send('GET', '/v1/cron-jobs?limit=1', tenant);
    expect(page.statusCode).toBe(200);
    const cursor = page.json<{ next_cursor: string }>().next_cursor;
    expect(cursor).toEqual(expect.any(String));
    const next = `/v1/cron-jobs?limit=1&cursor=${encodeURIComponent(cursor)}`;
    expect((await send('GET', next, tenant)).statusCode).toBe(200);
    expect((await send('GET', '/v1/cron-jobs?limit=0', tenant)).statusCode).toBe(400);
    expect((await send('GET', '/v1/cron-jobs?cursor=nonsense', tenant)).statusCode).toBe(400);
    expect((await send('GET', '/v1/cron-jobs', { token: ADMIN_TOKEN })).statusCode).toBe(403);

    const preview = { schedule: '0 9 * * 1-5', timezone: 'Europe/Paris', count: 3 };
    const previewed = await send('POST', '/v1/cron-jobs/preview', { ...tenant, body: preview });
    expect(previewed.statusCode).toBe(200);
    const tooMany = { ...tenant, body: { ...preview, count: 101 } };
    expect((await send('POST', '/v1/cron-jobs/preview', tooMany)).statusCode).toBe(400);
    const badZone = { ...tenant, body: { ...preview, timezone: 'Mars/Olympus' } };
    expect((await send('POST', '/v1/cron-jobs/preview', badZone)).statusCode).toBe(422);

    expect((await send('GET', `/v1/cron-jobs/${job.id}`, tenant)).statusCode).toBe(200);
    const missing = '00000000-0000-4000-8000-000000000000';
    expect((await send('GET', `/v1/cron-jobs/${missing}`, tenant)).statusCode).toBe(404);
    const rename = { ...tenant, body: { name: 'renamed' } };
    expect((await send('PATCH', `/v1/cron-jobs/${job.id}`, rename)).statusCode).toBe(200);

    expect((await send('POST', `/v1/cron-jobs/${job.id}/trigger`, tenant)).statusCode).toBe(202);
    schedulerUp = false;
    expect((await send('POST', `/v1/cron-jobs/${job.id}/trigger`, tenant)).statusCode).toBe(503);
    schedulerUp = true;
    const disable = { ...tenant, body: { enabled: false } };
    expect((await send('PATCH', `/v1/cron-jobs/${job.id}`, disable)).statusCode).toBe(200);
    expect((await send('POST', `/v1/cron-jobs/${job.id}/trigger`, tenant)).statusCode).toBe(409);

    await withOwner(databaseUrl, (client) =>
      client.query(
        `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, pod_id)
         VALUES ($1, $2, '2030-01-01T00:00:00Z', 'pod-a')`,
        [job.id, DEFAULT_TENANT_ID],
      ),
    );
    const runs = await send('GET', `/v1/cron-jobs/${job.id}/runs`, tenant);
    expect(runs.statusCode).toBe(200);
    const listed = runs.json<{ data: { id: string }[] }>().data;
    expect(listed).toHaveLength(1);
    const runId = listed[0]?.id as string;
    expect((await send('GET', `/v1/runs/${runId}`, tenant)).statusCode).toBe(200);
    expect((await send('GET', `/v1/runs/${job.id}`, tenant)).statusCode).toBe(404);
    const failedOnly = await send('GET', `/v1/cron-jobs/${job.id}/runs?status=failed`, tenant);
    expect(failedOnly.json<{ data: unknown[] }>().data).toHaveLength(0);
    const across = await send('GET', `/v1/runs?job_id=${job.id}&status=running`, tenant);
    expect(across.statusCode).toBe(200);
    expect(across.json<{ data: unknown[] }>().data).toHaveLength(1);
    expect((await send('GET', '/v1/runs?error_kind=nope', tenant)).statusCode).toBe(400);
    expect((await send('POST', `/v1/runs/${runId}/cancel`, tenant)).statusCode).toBe(202);
    expect((await send('POST', `/v1/runs/${job.id}/cancel`, tenant)).statusCode).toBe(404);
    const labelled = { ...tenant, body: { labels: { team: 'ops' }, timeout: '30s' } };
    expect((await send('PATCH', `/v1/cron-jobs/${job.id}`, labelled)).statusCode).toBe(200);
    expect((await send('GET', '/v1/cron-jobs?label=team=ops', tenant)).statusCode).toBe(200);
    const badModel = { ...tenant, body: { model: 'not-offered' } };
    expect((await send('PATCH', `/v1/cron-jobs/${job.id}`, badModel)).statusCode).toBe(422);

    // Backfill and a retry by hand: refused while the job is paused or the run in flight.
    const hourAgo = new Date(Date.now() - 3600_000).toISOString();
    const range = { ...tenant, body: { from: hourAgo, to: new Date().toISOString() } };
    expect((await send('POST', `/v1/cron-jobs/${job.id}/backfill`, range)).statusCode).toBe(409);
    expect((await send('POST', `/v1/runs/${runId}/retry`, tenant)).statusCode).toBe(409);
    const enable = { ...tenant, body: { enabled: true } };
    expect((await send('PATCH', `/v1/cron-jobs/${job.id}`, enable)).statusCode).toBe(200);
    expect((await send('POST', `/v1/cron-jobs/${job.id}/backfill`, range)).statusCode).toBe(200);
    const future = { ...tenant, body: { from: hourAgo, to: '2100-01-01T00:00:00Z' } };
    expect((await send('POST', `/v1/cron-jobs/${job.id}/backfill`, future)).statusCode).toBe(400);
    expect((await send('POST', `/v1/cron-jobs/${missing}/backfill`, range)).statusCode).toBe(404);
    const failedRun = await withOwner(databaseUrl, (client) =>
      client.query<{ id: string }>(
        `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, pod_id, status, error,
                                    error_kind, finished_at)
         VALUES ($1, $2, '2030-01-02T00:00:00Z', 'pod-a', 'failed', 'boom', 'model_error', now())
         RETURNING id`,
        [job.id, DEFAULT_TENANT_ID],
      ),
    );
    const failedId = failedRun.rows[0]?.id as string;
    expect((await send('POST', `/v1/runs/${failedId}/retry`, tenant)).statusCode).toBe(202);
    expect((await send('POST', `/v1/runs/${missing}/retry`, tenant)).statusCode).toBe(404);

    const deleted = await send('DELETE', `/v1/cron-jobs/${job.id}`, tenant);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
  });

  it('tenant routes: webhooks and their deliveries', async () => {
    const tenant = { token: DEFAULT_TENANT_KEY };
    const job = (
      await send('POST', '/v1/cron-jobs', {
        ...tenant,
        body: { name: 'hooked', schedule: '0 8 * * *', prompt: 'p' },
      })
    ).json<{ id: string }>();
    const body = { url: 'https://hooks.example.com/tour', events: ['run.failed'], job_id: job.id };
    const created = await send('POST', '/v1/webhooks', { ...tenant, body });
    expect(created.statusCode).toBe(201);
    const hook = created.json<{ id: string }>();
    const privateUrl = { ...tenant, body: { url: 'https://10.1.2.3/hook' } };
    expect((await send('POST', '/v1/webhooks', privateUrl)).statusCode).toBe(422);
    const foreignJob = {
      ...tenant,
      body: { ...body, job_id: '00000000-0000-4000-8000-000000000000' },
    };
    expect((await send('POST', '/v1/webhooks', foreignJob)).statusCode).toBe(404);
    expect((await send('GET', '/v1/webhooks', tenant)).statusCode).toBe(200);
    expect((await send('GET', `/v1/webhooks/${hook.id}`, tenant)).statusCode).toBe(200);
    const missing = '00000000-0000-4000-8000-000000000000';
    expect((await send('GET', `/v1/webhooks/${missing}`, tenant)).statusCode).toBe(404);
    const patch = { ...tenant, body: { description: 'pager' } };
    expect((await send('PATCH', `/v1/webhooks/${hook.id}`, patch)).statusCode).toBe(200);
    const rotate = await send('POST', `/v1/webhooks/${hook.id}/rotate-secret`, tenant);
    expect(rotate.statusCode).toBe(200);
    await withOwner(databaseUrl, (client) =>
      client.query(
        `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, pod_id, finished_at)
         VALUES ($1, $2, '2030-01-01T00:00:00Z', 'failed', 'pod-a', now())`,
        [job.id, DEFAULT_TENANT_ID],
      ),
    );
    const deliveries = await send('GET', `/v1/webhooks/${hook.id}/deliveries`, tenant);
    expect(deliveries.statusCode).toBe(200);
    const [delivery] = deliveries.json<{ data: { id: string }[] }>().data;
    expect((await send('GET', `/v1/cron-jobs/${job.id}/deliveries`, tenant)).statusCode).toBe(200);
    const redeliver = `/v1/webhook-deliveries/${delivery!.id}/redeliver`;
    expect((await send('POST', redeliver, tenant)).statusCode).toBe(409);
    await withOwner(databaseUrl, (client) =>
      client.query(`UPDATE webhook_deliveries SET status = 'failed' WHERE id = $1`, [delivery!.id]),
    );
    expect((await send('POST', redeliver, tenant)).statusCode).toBe(202);
    expect((await send('DELETE', `/v1/webhooks/${hook.id}`, tenant)).statusCode).toBe(204);
    await send('DELETE', `/v1/cron-jobs/${job.id}`, tenant);
  });

  it('agent routes: secrets, skills, settings, tool calls', async () => {
    const tenant = { token: DEFAULT_TENANT_KEY };
    const admin = { token: ADMIN_TOKEN };
    const secret = { ...tenant, body: { value: 'secret-value-123' } };
    expect((await send('PUT', '/v1/secrets/TOKEN', secret)).statusCode).toBe(201);
    expect((await send('PUT', '/v1/secrets/TOKEN', secret)).statusCode).toBe(200);
    expect((await send('GET', '/v1/secrets', tenant)).statusCode).toBe(200);
    expect((await send('DELETE', '/v1/secrets/TOKEN', tenant)).statusCode).toBe(204);
    expect((await send('DELETE', '/v1/secrets/TOKEN', tenant)).statusCode).toBe(404);
    const doc = '---\nname: tour\ndescription: A skill of the tour.\n---\n# Tour\n';
    const markdown = { ...tenant, raw: { contentType: 'text/markdown', payload: doc } };
    expect((await send('PUT', '/v1/skills/tour', markdown)).statusCode).toBe(201);
    expect(
      (await send('PUT', '/v1/skills/tour', { ...tenant, body: { content: doc } })).statusCode,
    ).toBe(200);
    const mismatch = { ...tenant, body: { content: doc } };
    expect((await send('PUT', '/v1/skills/other', mismatch)).statusCode).toBe(400);
    expect((await send('GET', '/v1/skills', tenant)).statusCode).toBe(200);
    expect((await send('GET', '/v1/skills/tour', tenant)).statusCode).toBe(200);
    expect((await send('DELETE', '/v1/skills/tour', tenant)).statusCode).toBe(204);
    expect((await send('GET', '/v1/skills/tour', tenant)).statusCode).toBe(404);
    expect((await send('DELETE', '/v1/skills/tour', tenant)).statusCode).toBe(404);
    const settings = `/v1/tenants/${DEFAULT_TENANT_ID}/agent-settings`;
    const hosts = { ...admin, body: { http_allowed_hosts: ['api.example.com'] } };
    expect((await send('PUT', settings, hosts)).statusCode).toBe(200);
    expect((await send('GET', settings, admin)).statusCode).toBe(200);
    expect((await send('GET', '/v1/agent/settings', tenant)).statusCode).toBe(200);
    const missing = `/v1/tenants/00000000-0000-0000-0000-00000000abcd/agent-settings`;
    expect((await send('GET', missing, admin)).statusCode).toBe(404);
    const run = await withOwner(databaseUrl, async (owner) => {
      const job = await owner.query<{ id: string }>(
        "INSERT INTO cron_jobs (tenant_id, name, schedule, prompt) VALUES ($1, 'tour run', '@yearly', 'p') RETURNING id",
        [DEFAULT_TENANT_ID],
      );
      const { rows } = await owner.query<{ id: string }>(
        `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, pod_id)
         VALUES ($1, $2, now(), 'success', 'p') RETURNING id`,
        [job.rows[0]!.id, DEFAULT_TENANT_ID],
      );
      return rows[0]!.id;
    });
    expect((await send('GET', `/v1/runs/${run}/tool-calls`, tenant)).statusCode).toBe(200);
    const unknownRun = '/v1/runs/00000000-0000-0000-0000-00000000abcd/tool-calls';
    expect((await send('GET', unknownRun, tenant)).statusCode).toBe(404);
  });

  it('quotas and rate limits: 409 and 429', async () => {
    const admin = { token: ADMIN_TOKEN };
    const created = await send('POST', '/v1/tenants', {
      ...admin,
      body: { name: 'tight', max_cron_jobs: 0, rate_limit_rpm: 2 },
    });
    const tenantId = created.json<{ id: string }>().id;
    const key = await send('POST', '/v1/api-keys', {
      ...admin,
      body: { tenant_id: tenantId, name: 'tight' },
    });
    const token = key.json<{ key: string }>().key;
    const job = { name: 'n', schedule: '@hourly', prompt: 'p' };
    expect((await send('POST', '/v1/cron-jobs', { token, body: job })).statusCode).toBe(409);
    expect((await send('GET', '/v1/cron-jobs', { token })).statusCode).toBe(200);
    expect((await send('GET', '/v1/cron-jobs', { token })).statusCode).toBe(429);
  });

  it('the agent routes: models and chat (JSON, stream, model failure)', async () => {
    const tenant = { token: DEFAULT_TENANT_KEY };
    expect((await send('GET', '/v1/models', tenant)).statusCode).toBe(200);
    expect((await send('GET', '/v1/models', { token: ADMIN_TOKEN })).statusCode).toBe(403);
    expect((await send('GET', '/v1/models/fake-model', tenant)).statusCode).toBe(200);
    expect((await send('GET', '/v1/models/other-model', tenant)).statusCode).toBe(404);
    llm.setHandler(() => ({ content: 'Hello from the agent.' }));
    const messages = [{ role: 'user', content: 'hello' }];
    const chat = await send('POST', '/v1/chat/completions', { ...tenant, body: { messages } });
    expect(chat.statusCode).toBe(200);
    const stream = { ...tenant, body: { messages, stream: true } };
    const streamed = await send('POST', '/v1/chat/completions', stream);
    expect(streamed.statusCode).toBe(200);
    expect(streamed.headers['content-type']).toMatch(/^text\/event-stream/);
    const empty = { ...tenant, body: { messages: [] } };
    expect((await send('POST', '/v1/chat/completions', empty)).statusCode).toBe(400);
    llm.setHandler(() => ({ status: 500 }));
    const failed = await send('POST', '/v1/chat/completions', { ...tenant, body: { messages } });
    expect(failed.statusCode).toBe(502);
  });

  it('access: the tenant’s own keys and the audit log', async () => {
    const tenant = { token: DEFAULT_TENANT_KEY };
    const body = { name: 'tour tenant key', scopes: ['jobs:read'] };
    const created = await send('POST', '/v1/tenant/api-keys', { ...tenant, body });
    expect(created.statusCode).toBe(201);
    const scoped = { token: created.json<{ key: string }>().key };
    expect((await send('GET', '/v1/tenant/api-keys', scoped)).statusCode).toBe(403);
    expect((await send('GET', '/v1/tenant/api-keys', tenant)).statusCode).toBe(200);
    const id = created.json<{ id: string }>().id;
    expect((await send('DELETE', `/v1/tenant/api-keys/${id}`, tenant)).statusCode).toBe(204);
    expect((await send('DELETE', `/v1/tenant/api-keys/${id}`, tenant)).statusCode).toBe(404);
    const page = await send('GET', '/v1/audit-log?limit=5&action=key.create', tenant);
    expect(page.statusCode).toBe(200);
    expect(page.json<{ data: unknown[] }>().data.length).toBeGreaterThan(0);
    expect((await send('GET', '/v1/audit-log?cursor=x', tenant)).statusCode).toBe(400);
    const exported = await send('GET', '/v1/audit-log/export', tenant);
    expect(exported.statusCode).toBe(200);
    expect(exported.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const operator = await send('GET', '/v1/admin/audit-log?limit=5', { token: ADMIN_TOKEN });
    expect(operator.statusCode).toBe(200);
  });

  it('sign-in and members (no identity provider configured here)', async () => {
    expect((await send('GET', '/auth/options')).json()).toEqual({ sso: false });
    expect((await send('GET', '/auth/login')).statusCode).toBe(404);
    expect((await send('GET', '/auth/callback?code=x&state=y')).statusCode).toBe(404);
    expect((await send('GET', '/auth/me')).statusCode).toBe(401);
    const tenantBody = { body: { tenant_id: DEFAULT_TENANT_ID } };
    expect((await send('POST', '/auth/tenant', tenantBody)).statusCode).toBe(401);
    expect((await send('POST', '/auth/logout')).statusCode).toBe(204);

    const key = { token: DEFAULT_TENANT_KEY };
    const invite = { ...key, body: { email: 'tour@example.com', role: 'member' } };
    const invited = await send('POST', '/v1/invitations', invite);
    expect(invited.statusCode).toBe(201);
    const badInvite = { ...key, body: { email: 'not an address', role: 'member' } };
    expect((await send('POST', '/v1/invitations', badInvite)).statusCode).toBe(400);
    expect((await send('GET', '/v1/invitations', key)).statusCode).toBe(200);
    const invitationId = invited.json<{ id: string }>().id;
    expect((await send('DELETE', `/v1/invitations/${invitationId}`, key)).statusCode).toBe(204);
    expect((await send('DELETE', `/v1/invitations/${invitationId}`, key)).statusCode).toBe(404);
    expect((await send('GET', '/v1/members', key)).statusCode).toBe(200);
    const nobody = '00000000-0000-4000-8000-000000000000';
    const role = { ...key, body: { role: 'viewer' } };
    expect((await send('PATCH', `/v1/members/${nobody}`, role)).statusCode).toBe(404);
    expect((await send('DELETE', `/v1/members/${nobody}`, key)).statusCode).toBe(404);
    const byAdmin = {
      token: ADMIN_TOKEN,
      body: { email: 'first.owner@example.com', role: 'owner' },
    };
    const adminInvite = await send('POST', `/v1/tenants/${DEFAULT_TENANT_ID}/invitations`, byAdmin);
    expect(adminInvite.statusCode).toBe(201);
  });

  it('usage: the ledger grouped, budgets and model prices', async () => {
    const tenant = { token: DEFAULT_TENANT_KEY };
    const admin = { token: ADMIN_TOKEN };
    expect((await send('GET', '/v1/usage?group_by=day,model', tenant)).statusCode).toBe(200);
    expect((await send('GET', '/v1/usage?group_by=tenant', tenant)).statusCode).toBe(400);
    const backwards = '/v1/usage?from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z';
    expect((await send('GET', backwards, tenant)).statusCode).toBe(400);
    expect((await send('GET', '/v1/usage/budget', tenant)).statusCode).toBe(200);
    expect((await send('GET', '/v1/usage', admin)).statusCode).toBe(403);
    expect((await send('GET', '/v1/admin/usage?group_by=tenant,origin', admin)).statusCode).toBe(
      200,
    );
    expect((await send('GET', '/v1/admin/usage', tenant)).statusCode).toBe(403);

    const price = { ...admin, body: { input: 2_500_000, cached_input: 1_250_000, output: 10e6 } };
    expect((await send('PUT', '/v1/admin/model-prices/fake-model', price)).statusCode).toBe(200);
    const negative = { ...admin, body: { input: -1, cached_input: 0, output: 0 } };
    expect((await send('PUT', '/v1/admin/model-prices/fake-model', negative)).statusCode).toBe(400);
    expect((await send('GET', '/v1/admin/model-prices', admin)).statusCode).toBe(200);
    const priced = '/v1/admin/model-prices/fake-model';
    expect((await send('DELETE', priced, admin)).statusCode).toBe(204);
    expect((await send('DELETE', priced, admin)).statusCode).toBe(404);

    const budget = `/v1/admin/tenants/${DEFAULT_TENANT_ID}/budget`;
    const limits = { ...admin, body: { monthly_budget_micros: 5e6, monthly_budget_tokens: null } };
    expect((await send('PUT', budget, limits)).statusCode).toBe(200);
    expect((await send('GET', budget, admin)).statusCode).toBe(200);
    const noLimits = { monthly_budget_micros: null, monthly_budget_tokens: null };
    expect((await send('PUT', budget, { ...admin, body: noLimits })).statusCode).toBe(200);
    const nobody = '/v1/admin/tenants/00000000-0000-4000-8000-000000000000/budget';
    expect((await send('GET', nobody, admin)).statusCode).toBe(404);
    expect((await send('PUT', nobody, { ...admin, body: noLimits })).statusCode).toBe(404);
    const partial = { ...admin, body: { monthly_budget_micros: 1 } };
    expect((await send('PUT', budget, partial)).statusCode).toBe(400);
  });

  it('MCP servers: registered (its first test fails: the host has no address), listed, changed, removed', async () => {
    const tenant = { token: DEFAULT_TENANT_KEY };
    const settings = `/v1/tenants/${DEFAULT_TENANT_ID}/agent-settings`;
    const hosts = { token: ADMIN_TOKEN, body: { http_allowed_hosts: ['mcp.tour.invalid'] } };
    expect((await send('PUT', settings, hosts)).statusCode).toBe(200);
    const body = {
      name: 'crm',
      url: 'https://mcp.tour.invalid/mcp',
      headers: { Authorization: 'Bearer {{secrets.CRM_TOKEN}}' },
    };
    const created = await send('POST', '/v1/mcp-servers', { ...tenant, body });
    expect(created.statusCode).toBe(201);
    expect(created.json<{ test: { ok: boolean } }>().test.ok).toBe(false);
    const id = created.json<{ id: string }>().id;
    expect((await send('POST', '/v1/mcp-servers', { ...tenant, body })).statusCode).toBe(409);
    const elsewhere = { ...tenant, body: { ...body, name: 'other', url: 'https://example.org/' } };
    expect((await send('POST', '/v1/mcp-servers', elsewhere)).statusCode).toBe(422);
    const badName = { ...tenant, body: { ...body, name: 'Not A Name' } };
    expect((await send('POST', '/v1/mcp-servers', badName)).statusCode).toBe(400);
    expect((await send('GET', '/v1/mcp-servers', tenant)).statusCode).toBe(200);
    expect((await send('GET', `/v1/mcp-servers/${id}`, tenant)).statusCode).toBe(200);
    const missing = '/v1/mcp-servers/00000000-0000-4000-8000-000000000000';
    expect((await send('GET', missing, tenant)).statusCode).toBe(404);
    const narrow = { ...tenant, body: { allowed_tools: ['search'], description: 'the CRM' } };
    expect((await send('PATCH', `/v1/mcp-servers/${id}`, narrow)).statusCode).toBe(200);
    const moved = { ...tenant, body: { url: 'https://example.org/mcp' } };
    expect((await send('PATCH', `/v1/mcp-servers/${id}`, moved)).statusCode).toBe(422);
    const tested = await send('POST', `/v1/mcp-servers/${id}/test`, tenant);
    expect(tested.statusCode).toBe(200);
    expect(tested.json<{ ok: boolean }>().ok).toBe(false);
    expect((await send('POST', `${missing}/test`, tenant)).statusCode).toBe(404);
    expect((await send('DELETE', `/v1/mcp-servers/${id}`, tenant)).statusCode).toBe(204);
    expect((await send('DELETE', `/v1/mcp-servers/${id}`, tenant)).statusCode).toBe(404);
  });

  it('notification channels: rules, a test message, deliveries and a redelivery', async () => {
    const tenant = { token: DEFAULT_TENANT_KEY };
    // A name under .invalid never resolves: the channel is stored, its sends fail.
    const url = 'https://hooks.tour.invalid/services/T0001/B0001/secretpart';
    const body = { kind: 'slack', name: 'ops', config: { url } };
    const created = await send('POST', '/v1/channels', { ...tenant, body });
    expect(created.statusCode).toBe(201);
    const id = created.json<{ id: string }>().id;
    const loopback = { ...tenant, body: { ...body, config: { url: 'https://127.0.0.1/x' } } };
    expect((await send('POST', '/v1/channels', loopback)).statusCode).toBe(422);
    const unknownKind = { ...tenant, body: { ...body, kind: 'pager' } };
    expect((await send('POST', '/v1/channels', unknownKind)).statusCode).toBe(400);
    expect((await send('GET', '/v1/channels?limit=10', tenant)).statusCode).toBe(200);
    expect((await send('GET', `/v1/channels/${id}`, tenant)).statusCode).toBe(200);
    const missing = '00000000-0000-4000-8000-000000000000';
    expect((await send('GET', `/v1/channels/${missing}`, tenant)).statusCode).toBe(404);
    const rename = { ...tenant, body: { name: 'ops room' } };
    expect((await send('PATCH', `/v1/channels/${id}`, rename)).statusCode).toBe(200);
    expect((await send('PATCH', `/v1/channels/${id}`, { ...tenant, body: {} })).statusCode).toBe(
      400,
    );
    const tested = await send('POST', `/v1/channels/${id}/test`, tenant);
    expect(tested.statusCode).toBe(200);
    expect(tested.json<{ delivered: boolean }>().delivered).toBe(false);

    const rules = { rules: [{ channel: id, when: 'failures', failures: 3 }] };
    expect((await send('PUT', '/v1/channels/rules', { ...tenant, body: rules })).statusCode).toBe(
      200,
    );
    expect((await send('GET', '/v1/channels/rules', tenant)).statusCode).toBe(200);
    const stranger = { rules: [{ channel: missing, when: 'always' }] };
    expect(
      (await send('PUT', '/v1/channels/rules', { ...tenant, body: stranger })).statusCode,
    ).toBe(404);
    const uncounted = { ...tenant, body: { rules: [{ channel: id, when: 'failures' }] } };
    expect((await send('PUT', '/v1/channels/rules', uncounted)).statusCode).toBe(422);

    const jobBody = {
      name: 'notified',
      schedule: '0 8 * * *',
      prompt: 'p',
      notify: [{ channel: id, when: 'always' }],
    };
    const job = (await send('POST', '/v1/cron-jobs', { ...tenant, body: jobBody })).json<{
      id: string;
    }>();
    const runId = await withOwner(databaseUrl, async (client) => {
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, pod_id, result, finished_at)
         VALUES ($1, $2, now(), 'success', 'pod-a', 'all quiet', now()) RETURNING id`,
        [job.id, DEFAULT_TENANT_ID],
      );
      return rows[0]!.id;
    });
    const byChannel = await send('GET', `/v1/channels/${id}/deliveries?limit=5`, tenant);
    expect(byChannel.statusCode).toBe(200);
    expect((await send('GET', `/v1/channels/${missing}/deliveries`, tenant)).statusCode).toBe(404);
    const byRun = await send('GET', `/v1/runs/${runId}/channel-deliveries`, tenant);
    expect(byRun.statusCode).toBe(200);
    const [delivery] = byRun.json<{ data: { id: string }[] }>().data;
    const redeliver = `/v1/channel-deliveries/${delivery!.id}/redeliver`;
    expect((await send('POST', redeliver, tenant)).statusCode).toBe(409);
    await withOwner(databaseUrl, (client) =>
      client.query(`UPDATE channel_deliveries SET status = 'failed' WHERE id = $1`, [delivery!.id]),
    );
    expect((await send('POST', redeliver, tenant)).statusCode).toBe(202);
    const unknownDelivery = `/v1/channel-deliveries/${missing}/redeliver`;
    expect((await send('POST', unknownDelivery, tenant)).statusCode).toBe(404);

    await send('DELETE', `/v1/cron-jobs/${job.id}`, tenant);
    const cleared = { ...tenant, body: { rules: [] } };
    expect((await send('PUT', '/v1/channels/rules', cleared)).statusCode).toBe(200);
    expect((await send('DELETE', `/v1/channels/${id}`, tenant)).statusCode).toBe(204);
    expect((await send('DELETE', `/v1/channels/${id}`, tenant)).statusCode).toBe(404);
  });

  it('answered every call as the document says, and called every operation', () => {
    expect(violations).toEqual([]);
    expect(validator.operations().filter((op) => !called.has(op))).toEqual([]);
    // The tour saw more than successes: the error statuses are checked too.
    const errorStatuses = new Set([...statuses].map((s) => s.split(' ').at(-1)));
    for (const status of ['400', '401', '403', '404', '409', '413', '414', '415', '422', '429']) {
      expect(errorStatuses, status).toContain(status);
    }
    expect(errorStatuses).toContain('502');
    expect(errorStatuses).toContain('503');
  });
});
