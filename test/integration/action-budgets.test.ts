// Pauses/resumes, webhook redeliveries and outbound tests (channel test messages, MCP server
// tests) are bounded per job and per tenant, across replicas:
// two apps (two replicas) on one PostgreSQL and one Redis share the counts; beyond the bound
// the API answers 429 with a clear code, a message naming the setting, and Retry-After.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createRedis, type Redis } from '../../src/redis/connection.js';
import {
  ADMIN_TOKEN,
  buildTestApp,
  call,
  createJob,
  createTenantWithKey,
  expectError,
  type TestApp,
} from '../helpers/api.js';
import { startPlatformStandIn, type PlatformStandIn } from '../helpers/channel-peers.js';
import { createTestDatabase, withOwner } from '../helpers/database.js';
import { silentLogger } from '../helpers/log.js';
import { startMcpServer, type TestMcpServer } from '../helpers/mcp-server.js';
import { waitFor } from '../helpers/process-wait.js';

const TOGGLES = 3;
const REDELIVERIES = 2;
const TESTS = 3;

let url: string;
let redis: Redis;
let replicas: TestApp[];

beforeAll(async () => {
  url = await createTestDatabase();
  redis = createRedis(inject('redisUrl'), silentLogger());
  const config = {
    JOB_TOGGLES_PER_MINUTE: String(TOGGLES),
    WEBHOOK_REDELIVERIES_PER_HOUR: String(REDELIVERIES),
    OUTBOUND_TESTS_PER_HOUR: String(TESTS),
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    HTTP_TOOL_ALLOW_PRIVATE_NETWORKS: 'true',
  };
  replicas = [
    await buildTestApp({ databaseUrl: url, redis, config }),
    await buildTestApp({ databaseUrl: url, redis, config }),
  ];
});

afterAll(async () => {
  for (const replica of replicas ?? []) await replica.close();
  redis?.disconnect();
});

/** The counts are per fixed window: start a burst well inside one, never at its edge. */
async function awayFromWindowEdge(windowMs: number): Promise<void> {
  await waitFor(
    () => {
      const leftMs = windowMs - (Date.now() % windowMs);
      if (leftMs < 10_000) throw new Error(`${leftMs} ms left in the window`);
    },
    { timeoutMs: 15_000, intervalMs: 200, what: 'a fresh stretch of the rate window' },
  );
}

const replica = (i: number) => replicas[i % replicas.length]!.app;

describe('pauses and resumes per job', () => {
  it(`allows ${TOGGLES} a minute per job across replicas, then 429 toggle_budget`, async () => {
    await awayFromWindowEdge(60_000);
    const { key } = await createTenantWithKey(replica(0), { min_schedule_interval_seconds: 0 });
    const job = await createJob(replica(0), key, { schedule: '* * * * *' });
    const other = await createJob(replica(0), key, { schedule: '* * * * *' });
    const path = `/v1/cron-jobs/${job.id}`;
    for (let i = 0; i < TOGGLES; i++) {
      const answer = await call(replica(i), key, 'PATCH', path, { enabled: i % 2 === 1 });
      expect(answer.statusCode, answer.body).toBe(200);
    }
    // A patch that changes nothing about enabled, or other fields, is no toggle.
    expect((await call(replica(0), key, 'PATCH', path, { enabled: false })).statusCode).toBe(200);
    expect((await call(replica(1), key, 'PATCH', path, { name: 'renamed' })).statusCode).toBe(200);
    const refused = await call(replica(1), key, 'PATCH', path, { enabled: true });
    const message = expectError(refused, 429, 'toggle_budget');
    expect(message).toMatch(/JOB_TOGGLES_PER_MINUTE\); resume it again in \d+s$/);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Refused means not done: the job stays paused; another job of the tenant still toggles.
    const after = await call(replica(0), key, 'GET', path);
    expect(after.json()).toMatchObject({ enabled: false, name: 'renamed' });
    const otherPath = `/v1/cron-jobs/${other.id}`;
    expect((await call(replica(0), key, 'PATCH', otherPath, { enabled: false })).statusCode).toBe(
      200,
    );
  });
});

describe('webhook redeliveries per tenant', () => {
  async function failedDelivery(key: string, tenantId: string) {
    const job = await createJob(replica(0), key, { schedule: '0 3 * * *' });
    const endpoint = await call(replica(0), key, 'POST', '/v1/webhooks', {
      url: 'http://127.0.0.1:9/hook',
      job_id: job.id,
    });
    expect(endpoint.statusCode, endpoint.body).toBe(201);
    const { rows } = await withOwner(url, async (client) => {
      await client.query(
        `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, pod_id, finished_at)
         VALUES ($1, $2, now(), 'success', 'p', now())`,
        [job.id, tenantId],
      );
      return client.query<{ id: string }>(
        `UPDATE webhook_deliveries SET status = 'failed'
          WHERE endpoint_id = $1 RETURNING id`,
        [(endpoint.json() as { id: string }).id],
      );
    });
    expect(rows).toHaveLength(1);
    return rows[0]!.id;
  }

  const markFailed = (id: string) =>
    withOwner(url, (client) =>
      client.query(`UPDATE webhook_deliveries SET status = 'failed' WHERE id = $1`, [id]),
    );

  it(`allows ${REDELIVERIES} an hour per tenant across replicas, then 429 redelivery_budget`, async () => {
    await awayFromWindowEdge(3_600_000);
    const tenant = await createTenantWithKey(replica(0), {});
    const deliveryId = await failedDelivery(tenant.key, tenant.tenant.id);
    const path = `/v1/webhook-deliveries/${deliveryId}/redeliver`;
    for (let i = 0; i < REDELIVERIES; i++) {
      await markFailed(deliveryId);
      const answer = await call(replica(i), tenant.key, 'POST', path);
      expect(answer.statusCode, answer.body).toBe(202);
    }
    await markFailed(deliveryId);
    const refused = await call(replica(0), tenant.key, 'POST', path);
    expect(expectError(refused, 429, 'redelivery_budget')).toMatch(
      /WEBHOOK_REDELIVERIES_PER_HOUR\); retry in \d+s$/,
    );
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    // Refused means not queued; another tenant's budget is its own.
    const { rows } = await withOwner(url, (client) =>
      client.query<{ status: string }>('SELECT status FROM webhook_deliveries WHERE id = $1', [
        deliveryId,
      ]),
    );
    expect(rows[0]?.status).toBe('failed');
    const other = await createTenantWithKey(replica(1), {});
    const otherDelivery = await failedDelivery(other.key, other.tenant.id);
    const allowed = await call(
      replica(1),
      other.key,
      'POST',
      `/v1/webhook-deliveries/${otherDelivery}/redeliver`,
    );
    expect(allowed.statusCode, allowed.body).toBe(202);
  });
});

describe('outbound tests per tenant', () => {
  let slack: PlatformStandIn;
  let mcp: TestMcpServer;

  beforeAll(async () => {
    slack = await startPlatformStandIn('slack');
    mcp = await startMcpServer();
  });

  afterAll(async () => {
    await slack?.close();
    await mcp?.close();
  });

  async function tenantWithChannelAndServer() {
    const { key, tenant } = await createTenantWithKey(replica(0), {});
    const settings = await call(
      replica(0),
      ADMIN_TOKEN,
      'PUT',
      `/v1/tenants/${tenant.id}/agent-settings`,
      { http_allowed_hosts: ['http://127.0.0.1'] },
    );
    expect(settings.statusCode, settings.body).toBe(200);
    const channel = await call(replica(0), key, 'POST', '/v1/channels', {
      kind: 'slack',
      name: 'ops',
      config: { url: `${slack.url}/services/T0001/B0001/${tenant.id}` },
    });
    expect(channel.statusCode, channel.body).toBe(201);
    return { key, channelId: (channel.json() as { id: string }).id };
  }

  it(`allows ${TESTS} an hour per tenant across replicas (channels and MCP servers), then 429 test_budget`, async () => {
    await awayFromWindowEdge(3_600_000);
    const { key, channelId } = await tenantWithChannelAndServer();
    // Registering a server tests it once: that counts too.
    const server = await call(replica(0), key, 'POST', '/v1/mcp-servers', {
      name: 'crm',
      url: mcp.url,
    });
    expect(server.statusCode, server.body).toBe(201);
    expect(server.json()).toMatchObject({ test: { ok: true } });
    const serverId = (server.json() as { id: string }).id;
    const channelTest = `/v1/channels/${channelId}/test`;
    const serverTest = `/v1/mcp-servers/${serverId}/test`;
    const sent = await call(replica(1), key, 'POST', channelTest);
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.json()).toMatchObject({ delivered: true });
    const listed = await call(replica(0), key, 'POST', serverTest);
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.json()).toMatchObject({ ok: true });
    const messagesBefore = slack.messages.length;
    const requestsBefore = mcp.requests;

    for (const [i, path] of [channelTest, serverTest].entries()) {
      const refused = await call(replica(i), key, 'POST', path);
      expect(expectError(refused, 429, 'test_budget')).toMatch(
        /OUTBOUND_TESTS_PER_HOUR\); retry in \d+s$/,
      );
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(3600);
    }
    // A server registered now is stored, its test not run: the answer says why.
    const untested = await call(replica(1), key, 'POST', '/v1/mcp-servers', {
      name: 'crm2',
      url: mcp.url,
    });
    expect(untested.statusCode, untested.body).toBe(201);
    expect(untested.json()).toMatchObject({
      name: 'crm2',
      test: { ok: false, error: { code: 'test_budget' } },
    });
    // Refused means nothing went out.
    expect(slack.messages.length).toBe(messagesBefore);
    expect(mcp.requests).toBe(requestsBefore);
    // A missing channel is a 404, not a spent test; another tenant's budget is its own.
    const missing = await call(replica(0), key, 'POST', `/v1/channels/${crypto.randomUUID()}/test`);
    expect(missing.statusCode).toBe(404);
    const other = await tenantWithChannelAndServer();
    const allowed = await call(
      replica(1),
      other.key,
      'POST',
      `/v1/channels/${other.channelId}/test`,
    );
    expect(allowed.statusCode, allowed.body).toBe(200);
    expect(slack.messages.length).toBe(messagesBefore + 1);
  });
});
