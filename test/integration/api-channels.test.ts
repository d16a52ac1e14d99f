// The notification channels' REST API: create, list, change, test (answering with what the
// platform said), delete; validation at the edge (4xx with a code, never a 500); URLs through the
// outbound guard's rules; the per-tenant quota; the job field `notify`; the tenant's rules; and
// the delivery log per channel and per run with redelivery.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateSecretsKey } from '../../src/secrets/key.js';
import {
  ADMIN_TOKEN,
  DEFAULT_TENANT_ID,
  DEFAULT_TENANT_KEY,
  buildTestApp,
  type TestApp,
} from '../helpers/api.js';
import { startPlatformStandIn, type PlatformStandIn } from '../helpers/channel-peers.js';
import { createTestDatabase, withOwner } from '../helpers/database.js';

let databaseUrl: string;
let local: TestApp;
let strict: TestApp;
let otherKey: string;
const standIns: PlatformStandIn[] = [];

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

const asTenant = (method: string, url: string, body?: unknown) =>
  call(local, DEFAULT_TENANT_KEY, method, url, body);

async function slack(): Promise<{ standIn: PlatformStandIn; id: string }> {
  const standIn = await startPlatformStandIn('slack');
  standIns.push(standIn);
  const created = await asTenant('POST', '/v1/channels', {
    kind: 'slack',
    name: 'ops',
    config: { url: `${standIn.url}/services/T0001/B0001/secretpart` },
  });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  return { standIn, id: created.json.id as string };
}

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  const config = {
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    HERMES_SECRETS_KEY: generateSecretsKey(),
    PUBLIC_URL: 'https://hermesx.example.com/',
    CHANNEL_MAX_CHANNELS: '4',
  };
  local = await buildTestApp({ databaseUrl, config });
  strict = await buildTestApp({
    databaseUrl,
    config: { ...config, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' },
  });
  const tenant = await call(local, ADMIN_TOKEN, 'POST', '/v1/tenants', { name: 'other' });
  const key = await call(local, ADMIN_TOKEN, 'POST', '/v1/api-keys', {
    tenant_id: tenant.json.id,
    name: 'k',
  });
  otherKey = key.json.key as string;
});

afterEach(async () => {
  await Promise.all(standIns.splice(0).map((standIn) => standIn.close()));
  await withOwner(databaseUrl, (client) =>
    client.query('DELETE FROM notify_channels WHERE tenant_id = $1', [DEFAULT_TENANT_ID]),
  );
});

afterAll(async () => {
  await strict?.close();
  await local?.close();
});

describe('/v1/channels', () => {
  it('creates, lists, gets, changes and deletes; the webhook URL is shown shortened', async () => {
    const { id, standIn } = await slack();
    const got = await asTenant('GET', `/v1/channels/${id}`);
    expect(got.json).toMatchObject({
      id,
      kind: 'slack',
      name: 'ops',
      enabled: true,
      disabled_reason: null,
      config: { url: `${standIn.url}/services/T0…` },
    });
    expect(JSON.stringify(got.json)).not.toContain('secretpart');
    const list = await asTenant('GET', '/v1/channels');
    expect((list.json.data as { id: string }[]).map((c) => c.id)).toEqual([id]);
    const patched = await asTenant('PATCH', `/v1/channels/${id}`, { name: 'ops room' });
    expect(patched.json.name).toBe('ops room');
    expect((await call(local, otherKey, 'GET', `/v1/channels/${id}`)).status).toBe(404);
    expect((await asTenant('DELETE', `/v1/channels/${id}`)).status).toBe(204);
    expect((await asTenant('GET', `/v1/channels/${id}`)).json).toMatchObject({
      error: { code: 'not_found' },
    });
  });

  it('answers bad input with a 4xx and a code', async () => {
    const cases: [unknown, number, string][] = [
      [{ kind: 'pager', name: 'x', config: {} }, 400, 'validation_error'],
      [{ kind: 'slack', name: 'x', config: {} }, 422, 'invalid_config'],
      [{ kind: 'slack', name: 'x', config: { url: 'not a url' } }, 422, 'invalid_url'],
      [
        { kind: 'telegram', name: 'x', config: { bot_token: '123:raw-token', chat_id: 1 } },
        422,
        'invalid_config',
      ],
      [{ kind: 'email', name: 'x', config: { to: ['not-an-address'] } }, 422, 'invalid_config'],
      [{ kind: 'email', name: 'x', config: { to: ['a@example.com'] } }, 422, 'smtp_not_configured'],
    ];
    for (const [body, status, code] of cases) {
      const answer = await asTenant('POST', '/v1/channels', body);
      expect(
        [answer.status, (answer.json.error as { code: string } | undefined)?.code],
        JSON.stringify(body),
      ).toEqual([status, code]);
    }
  });

  it('refuses private addresses and plain http where private networks are not allowed', async () => {
    for (const url of [
      'http://hooks.example.com/x',
      'https://127.0.0.1/x',
      'https://169.254.169.254/x',
    ]) {
      const answer = await call(strict, DEFAULT_TENANT_KEY, 'POST', '/v1/channels', {
        kind: 'discord',
        name: 'x',
        config: { url },
      });
      expect(answer.status, url).toBe(422);
    }
  });

  it('caps channels per tenant (CHANNEL_MAX_CHANNELS) with a 409', async () => {
    for (let i = 0; i < 4; i++) await slack();
    const fifth = await asTenant('POST', '/v1/channels', {
      kind: 'slack',
      name: 'five',
      config: { url: 'http://127.0.0.1:9/x' },
    });
    expect(fifth.status).toBe(409);
    expect(fifth.json.error).toMatchObject({ code: 'quota_exceeded' });
  });

  it('sends a test message and answers with what the platform said', async () => {
    const { id, standIn } = await slack();
    const ok = await asTenant('POST', `/v1/channels/${id}/test`);
    expect(ok.json).toMatchObject({
      delivered: true,
      outcome: 'delivered',
      status_code: 200,
      response: 'ok',
    });
    expect(standIn.messages[0]!.body.text).toBe('ops: test message');
    standIn.throttle(1, 30);
    const throttled = await asTenant('POST', `/v1/channels/${id}/test`);
    expect(throttled.json).toMatchObject({ delivered: false, outcome: 'failed', status_code: 429 });
  });
});

describe('notify rules', () => {
  it("a job's notify field round-trips; an unknown rule is a 400", async () => {
    const { id } = await slack();
    const created = await asTenant('POST', '/v1/cron-jobs', {
      name: 'watch',
      schedule: '*/5 * * * *',
      prompt: 'check the status page',
      notify: [
        { channel: id, when: 'changed' },
        { channel: id, when: 'failed', template: '{{error}}' },
      ],
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json.notify).toEqual([
      { channel: id, when: 'changed', template: null },
      { channel: id, when: 'failed', template: '{{error}}' },
    ]);
    const jobId = created.json.id as string;
    const renamed = await asTenant('PATCH', `/v1/cron-jobs/${jobId}`, { name: 'watch 2' });
    expect(renamed.json.notify).toHaveLength(2);
    const cleared = await asTenant('PATCH', `/v1/cron-jobs/${jobId}`, { notify: null });
    expect(cleared.json.notify).toBeNull();
    const bad = await asTenant('PATCH', `/v1/cron-jobs/${jobId}`, {
      notify: [{ channel: id, when: 'sometimes' }],
    });
    expect(bad.status).toBe(400);
    const unknown = await asTenant('PATCH', `/v1/cron-jobs/${jobId}`, {
      notify: [{ channel: '0e4c8d2a-5b6f-4a1e-9c3d-7f8e9a0b1c2d', when: 'always' }],
    });
    expect([unknown.status, (unknown.json.error as { code: string }).code]).toEqual([
      422,
      'channel_not_found',
    ]);
    const foreign = await call(local, otherKey, 'POST', '/v1/cron-jobs', {
      name: 'theirs',
      schedule: '0 8 * * *',
      prompt: 'p',
      notify: [{ channel: id, when: 'always' }],
    });
    expect(foreign.status).toBe(422);
    await asTenant('DELETE', `/v1/cron-jobs/${jobId}`);
  });

  it("the tenant's rules: GET and PUT, each naming one of its channels", async () => {
    const { id } = await slack();
    const put = await asTenant('PUT', '/v1/channels/rules', {
      rules: [
        { channel: id, when: 'failures', failures: 3 },
        { channel: id, when: 'system_paused' },
      ],
    });
    expect(put.status, JSON.stringify(put.json)).toBe(200);
    expect((await asTenant('GET', '/v1/channels/rules')).json).toEqual({
      rules: [
        { channel: id, when: 'failures', failures: 3, template: null },
        { channel: id, when: 'system_paused', failures: null, template: null },
      ],
    });
    const foreign = await call(local, otherKey, 'PUT', '/v1/channels/rules', {
      rules: [{ channel: id, when: 'always' }],
    });
    expect(foreign.status).toBe(404);
  });
});

describe('deliveries', () => {
  it('are listed per channel and per run, and a finished one is redelivered', async () => {
    const { id } = await slack();
    const job = await asTenant('POST', '/v1/cron-jobs', {
      name: 'digest',
      schedule: '0 8 * * *',
      prompt: 'summarise',
      notify: [{ channel: id, when: 'always' }],
    });
    const jobId = job.json.id as string;
    const runId = await withOwner(databaseUrl, async (client) => {
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, pod_id, result, finished_at)
         VALUES ($1, $2, now(), 'success', 'pod-a', 'all quiet', now()) RETURNING id`,
        [jobId, DEFAULT_TENANT_ID],
      );
      return rows[0]!.id;
    });
    const byChannel = await asTenant('GET', `/v1/channels/${id}/deliveries`);
    const byRun = await asTenant('GET', `/v1/runs/${runId}/channel-deliveries`);
    expect(byChannel.json.data).toEqual(byRun.json.data);
    const [delivery] = byRun.json.data as { id: string; status: string; reason: string }[];
    expect(delivery).toMatchObject({
      status: 'pending',
      reason: 'always',
      run_id: runId,
      job_id: jobId,
    });
    const pending = await asTenant('POST', `/v1/channel-deliveries/${delivery!.id}/redeliver`);
    expect(pending.json.error).toMatchObject({ code: 'delivery_pending' });
    await withOwner(databaseUrl, (client) =>
      client.query(`UPDATE channel_deliveries SET status = 'failed' WHERE id = $1`, [delivery!.id]),
    );
    expect(
      (await call(local, otherKey, 'POST', `/v1/channel-deliveries/${delivery!.id}/redeliver`))
        .status,
    ).toBe(404);
    const again = await asTenant('POST', `/v1/channel-deliveries/${delivery!.id}/redeliver`);
    expect(again).toEqual({ status: 202, json: { id: delivery!.id, status: 'pending' } });
    await asTenant('DELETE', `/v1/cron-jobs/${jobId}`);
  });
});
