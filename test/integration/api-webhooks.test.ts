// The webhook endpoints' REST API: the secret shown once, validation of URLs (scheme, private
// addresses), the per-tenant quota, tenant isolation, rotation, deliveries and redelivery.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, DEFAULT_TENANT_KEY, buildTestApp, type TestApp } from '../helpers/api.js';
import { createCronjobTool } from '../../src/agent/tools/cronjob.js';
import { generateSecretsKey } from '../../src/secrets/key.js';
import { createTestDatabase, withOwner } from '../helpers/database.js';

let databaseUrl: string;
let api: TestApp;
let local: TestApp;
let otherKey: string;

async function call(app: TestApp, token: string, method: string, url: string, body?: unknown) {
  const response = await app.app.inject({
    method: method as 'GET',
    url,
    headers: { authorization: `Bearer ${token}` },
    ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
  });
  const json = (response.body === '' ? {} : response.json()) as Record<string, unknown>;
  return { status: response.statusCode, json };
}

async function storedSecretOf(id: string) {
  const { rows } = await withOwner(databaseUrl, (client) =>
    client.query<{
      secret: string | null;
      secret_sealed: Buffer | null;
      previous_secret_sealed: Buffer | null;
      whole: string;
    }>(
      `SELECT secret, secret_sealed, previous_secret_sealed, row_to_json(e)::text AS whole
         FROM webhook_endpoints e WHERE id = $1`,
      [id],
    ),
  );
  return rows[0]!;
}

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  api = await buildTestApp({
    databaseUrl,
    config: { WEBHOOK_MAX_ENDPOINTS: '3', HERMES_SECRETS_KEY: generateSecretsKey() },
  });
  local = await buildTestApp({
    databaseUrl,
    config: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
  });
  const tenant = await call(api, ADMIN_TOKEN, 'POST', '/v1/tenants', { name: 'other' });
  const key = await call(api, ADMIN_TOKEN, 'POST', '/v1/api-keys', {
    tenant_id: tenant.json.id,
    name: 'k',
  });
  otherKey = key.json.key as string;
});

afterAll(async () => {
  await api?.close();
  await local?.close();
});

describe('webhook endpoints over REST', () => {
  it('creates an endpoint and shows its Standard Webhooks secret only once', async () => {
    const created = await call(api, DEFAULT_TENANT_KEY, 'POST', '/v1/webhooks', {
      url: 'https://hooks.example.com/hermesx',
      events: ['run.failed'],
      description: 'pager',
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      url: 'https://hooks.example.com/hermesx',
      events: ['run.failed'],
      job_id: null,
      enabled: true,
      disabled_reason: null,
    });
    expect(created.json.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const read = await call(api, DEFAULT_TENANT_KEY, 'GET', `/v1/webhooks/${created.json.id}`);
    expect(read.status).toBe(200);
    expect(read.json.secret).toBeUndefined();
    const listed = await call(api, DEFAULT_TENANT_KEY, 'GET', '/v1/webhooks');
    expect(JSON.stringify(listed.json)).not.toContain(created.json.secret as string);
    // Sealed at rest (HERMES_SECRETS_KEY): the row holds no plain secret.
    const stored = await storedSecretOf(created.json.id as string);
    expect(stored.secret).toBeNull();
    expect(stored.secret_sealed).not.toBeNull();
    expect(stored.whole).not.toContain(created.json.secret as string);
    await call(api, DEFAULT_TENANT_KEY, 'DELETE', `/v1/webhooks/${created.json.id}`);
  });

  it('refuses URLs that are not https, or that reach private addresses', async () => {
    const cases: [string, string][] = [
      ['http://hooks.example.com/x', 'invalid_url'],
      ['ftp://hooks.example.com/x', 'invalid_url'],
      ['https://user:pw@hooks.example.com/x', 'invalid_url'],
      ['not a url', 'invalid_url'],
      ['https://127.0.0.1/x', 'url_not_allowed'],
      ['https://169.254.169.254/latest/meta-data', 'url_not_allowed'],
      ['https://10.0.0.8/x', 'url_not_allowed'],
      ['https://100.64.1.1/x', 'url_not_allowed'],
      ['https://[::1]/x', 'url_not_allowed'],
      ['https://[::ffff:192.168.0.1]/x', 'url_not_allowed'],
      ['https://localhost/x', 'url_not_allowed'],
    ];
    for (const [url, code] of cases) {
      const answer = await call(api, DEFAULT_TENANT_KEY, 'POST', '/v1/webhooks', { url });
      expect([url, answer.status, (answer.json.error as { code: string }).code]).toEqual([
        url,
        422,
        code,
      ]);
    }
    // Where private networks are allowed (hermesx dev), a local http receiver is fine.
    const allowed = await call(local, DEFAULT_TENANT_KEY, 'POST', '/v1/webhooks', {
      url: 'http://127.0.0.1:9999/hook',
    });
    expect(allowed.status).toBe(201);
    await call(local, DEFAULT_TENANT_KEY, 'DELETE', `/v1/webhooks/${allowed.json.id}`);
  });

  it('names the rule a refused URL breaks, never the address its name resolves to', async () => {
    const answer = await call(api, DEFAULT_TENANT_KEY, 'POST', '/v1/webhooks', {
      url: 'https://localhost/x',
    });
    expect(answer.status).toBe(422);
    const { message } = answer.json.error as { message: string };
    expect(message).toMatch(/localhost resolves to a loopback address/);
    expect(message).not.toMatch(/127\.0\.0\.1|::1|::ffff/);
    const literal = await call(api, DEFAULT_TENANT_KEY, 'POST', '/v1/webhooks', {
      url: 'https://[::ffff:10.1.2.3]/x',
    });
    const literalMessage = (literal.json.error as { message: string }).message;
    expect(literalMessage).toMatch(/is a private-network address/);
    expect(literalMessage).not.toMatch(/10\.1\.2\.3/);
  });

  it('holds each tenant to its quota of endpoints', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const created = await call(api, otherKey, 'POST', '/v1/webhooks', {
        url: `https://hooks.example.com/${i}`,
      });
      expect(created.status).toBe(201);
      ids.push(created.json.id as string);
    }
    const over = await call(api, otherKey, 'POST', '/v1/webhooks', {
      url: 'https://hooks.example.com/4',
    });
    expect(over.status).toBe(409);
    expect((over.json.error as { code: string }).code).toBe('quota_exceeded');
    // Concurrent creates cannot overshoot it either.
    await call(api, otherKey, 'DELETE', `/v1/webhooks/${ids.pop()}`);
    const raced = await Promise.all(
      [1, 2, 3].map(() =>
        call(api, otherKey, 'POST', '/v1/webhooks', { url: 'https://hooks.example.com/r' }),
      ),
    );
    expect(raced.map((answer) => answer.status).sort()).toEqual([201, 409, 409]);
    const page = await call(api, otherKey, 'GET', '/v1/webhooks?limit=100');
    expect((page.json.data as unknown[]).length).toBe(3);
    for (const each of page.json.data as { id: string }[]) {
      await call(api, otherKey, 'DELETE', `/v1/webhooks/${each.id}`);
    }
  });

  it("keeps tenants apart: another tenant's endpoint is not found", async () => {
    const mine = await call(api, otherKey, 'POST', '/v1/webhooks', {
      url: 'https://hooks.example.com/mine',
    });
    const id = mine.json.id as string;
    for (const [method, url, body] of [
      ['GET', `/v1/webhooks/${id}`, undefined],
      ['PATCH', `/v1/webhooks/${id}`, { enabled: false }],
      ['DELETE', `/v1/webhooks/${id}`, undefined],
      ['POST', `/v1/webhooks/${id}/rotate-secret`, undefined],
      ['GET', `/v1/webhooks/${id}/deliveries`, undefined],
    ] as const) {
      expect((await call(api, DEFAULT_TENANT_KEY, method, url, body)).status).toBe(404);
    }
    const list = await call(api, DEFAULT_TENANT_KEY, 'GET', '/v1/webhooks');
    expect((list.json.data as { id: string }[]).map((e) => e.id)).not.toContain(id);
    await call(api, otherKey, 'DELETE', `/v1/webhooks/${id}`);
  });

  it('attaches an endpoint to a job, changes it, rotates its secret and lists deliveries', async () => {
    const job = await call(api, DEFAULT_TENANT_KEY, 'POST', '/v1/cron-jobs', {
      name: 'digest',
      schedule: '0 8 * * *',
      prompt: 'summarise',
    });
    const jobId = job.json.id as string;
    const foreignJob = await call(api, otherKey, 'POST', '/v1/cron-jobs', {
      name: 'theirs',
      schedule: '0 8 * * *',
      prompt: 'x',
    });
    const refused = await call(api, DEFAULT_TENANT_KEY, 'POST', '/v1/webhooks', {
      url: 'https://hooks.example.com/job',
      job_id: foreignJob.json.id,
    });
    expect(refused.status).toBe(404);
    const created = await call(api, DEFAULT_TENANT_KEY, 'POST', '/v1/webhooks', {
      url: 'https://hooks.example.com/job',
      job_id: jobId,
    });
    expect(created.json.job_id).toBe(jobId);
    const id = created.json.id as string;
    const filtered = await call(api, DEFAULT_TENANT_KEY, 'GET', `/v1/webhooks?job_id=${jobId}`);
    expect((filtered.json.data as { id: string }[]).map((e) => e.id)).toEqual([id]);
    const patched = await call(api, DEFAULT_TENANT_KEY, 'PATCH', `/v1/webhooks/${id}`, {
      events: ['run.succeeded'],
      enabled: false,
    });
    expect(patched.json).toMatchObject({ events: ['run.succeeded'], enabled: false });
    const badPatch = await call(api, DEFAULT_TENANT_KEY, 'PATCH', `/v1/webhooks/${id}`, {
      url: 'https://192.168.1.1/',
    });
    expect(badPatch.status).toBe(422);
    const rotated = await call(api, DEFAULT_TENANT_KEY, 'POST', `/v1/webhooks/${id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.json.secret).not.toBe(created.json.secret);
    expect(rotated.json.previous_secret_expires_at).not.toBeNull();
    const afterRotation = await storedSecretOf(id);
    expect(afterRotation.whole).not.toContain(rotated.json.secret as string);
    expect(afterRotation.whole).not.toContain(created.json.secret as string);
    expect(afterRotation.previous_secret_sealed).not.toBeNull();

    // A run recorded for the job queues a delivery (the endpoint is enabled again first).
    await call(api, DEFAULT_TENANT_KEY, 'PATCH', `/v1/webhooks/${id}`, { enabled: true });
    await withOwner(databaseUrl, (client) =>
      client.query(
        `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, pod_id, finished_at)
         SELECT id, tenant_id, now(), 'success', 'p', now() FROM cron_jobs WHERE id = $1`,
        [jobId],
      ),
    );
    const deliveries = await call(api, DEFAULT_TENANT_KEY, 'GET', `/v1/webhooks/${id}/deliveries`);
    expect(deliveries.status).toBe(200);
    const [delivery] = deliveries.json.data as Record<string, unknown>[];
    expect(delivery).toMatchObject({
      endpoint_id: id,
      job_id: jobId,
      event_type: 'run.succeeded',
      status: 'pending',
      attempts: 0,
    });
    expect(delivery!.webhook_id).toBe(`msg_${(delivery!.id as string).replaceAll('-', '')}`);
    // The run's detail lists its deliveries too.
    const detail = await call(api, DEFAULT_TENANT_KEY, 'GET', `/v1/runs/${delivery!.run_id}`);
    expect(detail.status).toBe(200);
    expect((detail.json.deliveries as { id: string }[]).map((d) => d.id)).toEqual([delivery!.id]);
    const ofJob = await call(api, DEFAULT_TENANT_KEY, 'GET', `/v1/cron-jobs/${jobId}/deliveries`);
    expect((ofJob.json.data as { id: string }[]).map((d) => d.id)).toEqual([delivery!.id]);
    // Still pending: redelivery waits. Once failed, it is queued again with the same id.
    const early = await call(
      api,
      DEFAULT_TENANT_KEY,
      'POST',
      `/v1/webhook-deliveries/${delivery!.id}/redeliver`,
    );
    expect(early.status).toBe(409);
    await withOwner(databaseUrl, (client) =>
      client.query(`UPDATE webhook_deliveries SET status = 'failed' WHERE id = $1`, [delivery!.id]),
    );
    const again = await call(
      api,
      DEFAULT_TENANT_KEY,
      'POST',
      `/v1/webhook-deliveries/${delivery!.id}/redeliver`,
    );
    expect(again.status).toBe(202);
    expect(again.json).toMatchObject({ status: 'pending', webhook_id: delivery!.webhook_id });
    expect(
      (await call(api, otherKey, 'POST', `/v1/webhook-deliveries/${delivery!.id}/redeliver`))
        .status,
    ).toBe(404);
    // A deleted job's endpoint and deliveries stay while its runs do (they are purged with the
    // job's row); no endpoint can be bound to the deleted job any more.
    await call(api, DEFAULT_TENANT_KEY, 'DELETE', `/v1/cron-jobs/${jobId}`);
    expect((await call(api, DEFAULT_TENANT_KEY, 'GET', `/v1/webhooks/${id}`)).status).toBe(200);
    expect(
      (
        await call(api, DEFAULT_TENANT_KEY, 'POST', '/v1/webhooks', {
          url: 'https://hooks.example.com/late',
          job_id: jobId,
        })
      ).status,
    ).toBe(404);
  });

  it("lets the agent's cronjob tool list endpoints and attach a job to one", async () => {
    const job = await call(api, DEFAULT_TENANT_KEY, 'POST', '/v1/cron-jobs', {
      name: 'nightly',
      schedule: '0 2 * * *',
      prompt: 'summarise',
    });
    const hook = await call(api, DEFAULT_TENANT_KEY, 'POST', '/v1/webhooks', {
      url: 'https://hooks.example.com/agent',
    });
    const tool = createCronjobTool({
      pool: api.pool,
      now: () => new Date(),
      schedulerRunning: () => true,
    });
    const context = {
      tenantId: '00000000-0000-0000-0000-000000000001',
      signal: new AbortController().signal,
      changes: [] as string[],
    };
    const run = async (args: object) =>
      JSON.parse(await tool.run(args, context)) as Record<string, unknown>;
    const listed = await run({ action: 'list_webhooks' });
    expect((listed.data as { id: string }[]).map((e) => e.id)).toContain(hook.json.id);
    expect(JSON.stringify(listed)).not.toContain('whsec_');
    const attached = await run({
      action: 'attach_webhook',
      id: job.json.id,
      webhook_id: hook.json.id,
    });
    expect(attached).toMatchObject({
      ok: true,
      webhook: { id: hook.json.id, job_id: job.json.id },
    });
    expect(context.changes).toHaveLength(1);
    expect(await run({ action: 'attach_webhook', id: job.json.id })).toMatchObject({
      ok: false,
      error: { code: 'missing_id' },
    });
    const read = await call(api, DEFAULT_TENANT_KEY, 'GET', `/v1/webhooks/${hook.json.id}`);
    expect(read.json.job_id).toBe(job.json.id);
    // Another tenant's endpoint is not found through the tool either.
    const theirs = await call(api, otherKey, 'POST', '/v1/webhooks', {
      url: 'https://hooks.example.com/theirs',
    });
    expect(
      await run({ action: 'attach_webhook', id: job.json.id, webhook_id: theirs.json.id }),
    ).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });
});
