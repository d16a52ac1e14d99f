// The outbox and the sender on real PostgreSQL: a finished run queues its deliveries in the same
// transaction (trigger), the sender signs them (receivers verify with standardwebhooks), retries
// 5xx/429, disables endpoints that are gone or failing, refuses private addresses, and shares
// its slots fairly across tenants.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Pool } from '../../src/db/pool.js';
import * as endpoints from '../../src/webhooks/endpoints.js';
import { createWebhookMetrics } from '../../src/webhooks/metrics.js';
import type { SenderSettings } from '../../src/webhooks/sender-settings.js';
import { WebhookSender } from '../../src/webhooks/sender.js';
import { createAppPool, createTestDatabase } from '../helpers/database.js';
import { silentLogger } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

const SETTINGS: SenderSettings = {
  podId: 'sender-test',
  retryScheduleMs: [200, 200, 200],
  timeoutMs: 2000,
  maxConcurrent: 20,
  maxPerTenant: 5,
  disableAfterMs: 5 * 24 * 3600_000,
  allowPrivateNetworks: true,
  idlePollMs: 50,
};

let databaseUrl: string;
let owner: pg.Client;
let pool: Pool;
let sender: WebhookSender;
const receivers: Receiver[] = [];

const deps = () => ({
  pool,
  now: () => new Date(),
  allowPrivateNetworks: true,
  maxEndpoints: 10,
});

async function newReceiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const receiver = await startReceiver(...args);
  receivers.push(receiver);
  return receiver;
}

async function newTenant(): Promise<{ tenantId: string; jobId: string }> {
  const tenantId = randomUUID();
  const jobId = randomUUID();
  await owner.query(`INSERT INTO tenants (id, name) VALUES ($1, 'webhooks')`, [tenantId]);
  await owner.query(
    `INSERT INTO cron_jobs (id, tenant_id, name, schedule, prompt)
     VALUES ($1, $2, 'digest', '0 8 * * *', 'summarise')`,
    [jobId, tenantId],
  );
  return { tenantId, jobId };
}

/** A run recorded as the scheduler records it: claimed, then finished by an UPDATE. */
async function recordRun(
  tenant: { tenantId: string; jobId: string },
  status: 'success' | 'failed',
  scheduledAt = new Date(Date.now() - Math.floor(Math.random() * 1e9)),
): Promise<string> {
  const { rows } = await owner.query<{ id: string }>(
    `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, pod_id)
     VALUES ($1, $2, $3, 'running', 'pod-a') RETURNING id`,
    [tenant.jobId, tenant.tenantId, scheduledAt],
  );
  const runId = rows[0]!.id;
  await owner.query(
    `UPDATE cron_job_runs SET status = $2, finished_at = now(), duration_ms = 5,
            result = CASE WHEN $2 = 'success' THEN 'all quiet' END,
            error = CASE WHEN $2 = 'failed' THEN 'model unreachable' END,
            error_kind = CASE WHEN $2 = 'failed' THEN 'model_unreachable' END
      WHERE id = $1`,
    [runId, status],
  );
  return runId;
}

async function deliveriesOf(endpointId: string) {
  const { rows } = await owner.query<{
    id: string;
    status: string;
    attempts: number;
    run_id: string;
  }>('SELECT id, status, attempts, run_id FROM webhook_deliveries WHERE endpoint_id = $1', [
    endpointId,
  ]);
  return rows;
}

async function attemptsOf(deliveryId: string) {
  const { rows } = await owner.query<{
    outcome: string;
    status_code: number | null;
    attempted_at: Date;
    error: string | null;
  }>(
    'SELECT outcome, status_code, attempted_at, error FROM webhook_delivery_attempts WHERE delivery_id = $1 ORDER BY id',
    [deliveryId],
  );
  return rows;
}

function startSender(settings: SenderSettings = SETTINGS, onPool: Pool = pool): WebhookSender {
  const started = new WebhookSender({
    pool: onPool,
    log: silentLogger(),
    metrics: createWebhookMetrics(new Registry()),
    settings,
  });
  started.start();
  return started;
}

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  owner = new pg.Client({ connectionString: databaseUrl });
  await owner.connect();
  pool = createAppPool(databaseUrl);
  sender = startSender();
});

afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

afterAll(async () => {
  await sender?.stop(1000);
  await pool?.end();
  await owner?.end();
});

describe('the outbox', () => {
  it('queues one delivery per matching endpoint in the transaction that records the run', async () => {
    const tenant = await newTenant();
    const other = await newTenant();
    const url = 'http://127.0.0.1:9/unused';
    const all = await endpoints.createEndpoint(deps(), tenant.tenantId, { url, enabled: false });
    const failures = await endpoints.createEndpoint(deps(), tenant.tenantId, {
      url,
      events: ['run.failed'],
    });
    const ofJob = await endpoints.createEndpoint(deps(), tenant.tenantId, {
      url,
      job_id: tenant.jobId,
    });
    const elsewhere = await endpoints.createEndpoint(deps(), other.tenantId, { url });
    // Park the enabled ones so the sender leaves their rows as queued.
    await owner.query(
      `UPDATE webhook_endpoints SET url = 'http://127.0.0.1:9/parked' WHERE tenant_id = $1`,
      [tenant.tenantId],
    );
    await sender.stop(1000);
    try {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, pod_id)
         VALUES ($1, $2, now(), 'running', 'pod-a') RETURNING id`,
        [tenant.jobId, tenant.tenantId],
      );
      const runId = rows[0]!.id;
      await client.query('BEGIN');
      await client.query(`UPDATE cron_job_runs SET status = 'failed' WHERE id = $1`, [runId]);
      // Rolled back: the run is not recorded, and nothing is queued.
      await client.query('ROLLBACK');
      expect((await deliveriesOf(ofJob.id)).length).toBe(0);
      await client.query(`UPDATE cron_job_runs SET status = 'failed' WHERE id = $1`, [runId]);
      // A later change of the finished row queues nothing more.
      await client.query(`UPDATE cron_job_runs SET error = 'again' WHERE id = $1`, [runId]);
      await client.end();
      expect((await deliveriesOf(all.id)).length).toBe(0);
      expect((await deliveriesOf(failures.id)).map((d) => d.run_id)).toEqual([runId]);
      expect((await deliveriesOf(ofJob.id)).map((d) => d.run_id)).toEqual([runId]);
      expect((await deliveriesOf(elsewhere.id)).length).toBe(0);
      const succeeded = await recordRun(tenant, 'success');
      expect((await deliveriesOf(failures.id)).map((d) => d.run_id)).toEqual([runId]);
      expect((await deliveriesOf(ofJob.id)).map((d) => d.run_id).sort()).toEqual(
        [runId, succeeded].sort(),
      );
    } finally {
      await owner.query(`DELETE FROM webhook_endpoints WHERE tenant_id = $1`, [tenant.tenantId]);
      await owner.query(`DELETE FROM webhook_endpoints WHERE tenant_id = $1`, [other.tenantId]);
      sender = startSender();
    }
  });
});

describe('retention', () => {
  it('removes finished deliveries past the retention with their attempts, never pending ones', async () => {
    const tenant = await newTenant();
    const receiver = await newReceiver();
    const endpoint = await endpoints.createEndpoint(deps(), tenant.tenantId, { url: receiver.url });
    await recordRun(tenant, 'success');
    await recordRun(tenant, 'success');
    await waitFor(
      async () =>
        expect((await deliveriesOf(endpoint.id)).map((d) => d.status)).toEqual([
          'delivered',
          'delivered',
        ]),
      { timeoutMs: 10_000 },
    );
    const [old, recent] = await deliveriesOf(endpoint.id);
    await owner.query(
      `UPDATE webhook_deliveries SET created_at = now() - interval '40 days' WHERE id = $1`,
      [old!.id],
    );
    // A pending delivery as old is kept: it has not been sent yet.
    await owner.query(
      `UPDATE webhook_endpoints SET url = 'http://127.0.0.1:9/parked' WHERE id = $1`,
      [endpoint.id],
    );
    await owner.query(
      `INSERT INTO webhook_deliveries (tenant_id, endpoint_id, cron_job_id, run_id, event_type,
                                       created_at, next_attempt_at)
       VALUES ($1, $2, $3, gen_random_uuid(), 'run.failed', now() - interval '40 days',
               now() + interval '1 day')`,
      [tenant.tenantId, endpoint.id, tenant.jobId],
    );
    const pruner = startSender({ ...SETTINGS, podId: 'pruner', retentionMs: 30 * 24 * 3600_000 });
    try {
      await waitFor(
        async () =>
          expect((await deliveriesOf(endpoint.id)).map((d) => d.id)).not.toContain(old!.id),
        { timeoutMs: 10_000 },
      );
    } finally {
      await pruner.stop(1000);
    }
    const left = await deliveriesOf(endpoint.id);
    expect(left.map((d) => d.status).sort()).toEqual(['delivered', 'pending']);
    expect(left.map((d) => d.id)).toContain(recent!.id);
    expect(await attemptsOf(old!.id)).toEqual([]);
  });
});

describe('the sender', () => {
  it('signs each delivery so that standardwebhooks Webhook.verify accepts it', async () => {
    const tenant = await newTenant();
    const receiver = await newReceiver();
    const endpoint = await endpoints.createEndpoint(deps(), tenant.tenantId, {
      url: `${receiver.url}/hook`,
    });
    receiver.secrets = [endpoint.secret];
    const runId = await recordRun(tenant, 'failed');
    const message = await waitFor(
      () => {
        expect(receiver.received.length).toBe(1);
        return receiver.received[0]!;
      },
      { timeoutMs: 10_000 },
    );
    expect(message.verifiedBy).toEqual([0]);
    const payload = message.verified as {
      type: string;
      timestamp: string;
      data: Record<string, unknown>;
    };
    expect(payload.type).toBe('run.failed');
    expect(payload.data).toMatchObject({
      id: runId,
      cron_job_id: tenant.jobId,
      job_id: tenant.jobId,
      job_name: 'digest',
      status: 'failed',
      error: 'model unreachable',
      error_kind: 'model_unreachable',
    });
    expect(payload.timestamp).toBe(payload.data.finished_at);
    const [delivery] = await deliveriesOf(endpoint.id);
    expect(message.id).toBe(`msg_${delivery!.id.replaceAll('-', '')}`);
    await waitFor(
      async () => expect((await deliveriesOf(endpoint.id))[0]?.status).toBe('delivered'),
      { timeoutMs: 5000 },
    );
    // A run's deliveries, as its detail shows them; another tenant sees none of them.
    const ofRun = await endpoints.listDeliveries(deps(), tenant.tenantId, { runId }, {});
    expect(ofRun.data.map((d) => [d.run_id, d.status, d.webhook_id])).toEqual([
      [runId, 'delivered', message.id],
    ]);
    const stranger = await newTenant();
    expect((await endpoints.listDeliveries(deps(), stranger.tenantId, { runId }, {})).data).toEqual(
      [],
    );
  });

  it('retries a 500 with the same webhook-id and records both attempts', async () => {
    const tenant = await newTenant();
    const receiver = await newReceiver((_message, count) => ({ status: count === 1 ? 500 : 200 }));
    const endpoint = await endpoints.createEndpoint(deps(), tenant.tenantId, { url: receiver.url });
    receiver.secrets = [endpoint.secret];
    await recordRun(tenant, 'success');
    await waitFor(
      async () => expect((await deliveriesOf(endpoint.id))[0]?.status).toBe('delivered'),
      { timeoutMs: 10_000 },
    );
    expect(receiver.received.length).toBe(2);
    expect(receiver.received[0]!.id).toBe(receiver.received[1]!.id);
    expect(receiver.received.every((message) => message.verifiedBy.length === 1)).toBe(true);
    const [delivery] = await deliveriesOf(endpoint.id);
    const attempts = await attemptsOf(delivery!.id);
    expect(attempts.map((a) => [a.outcome, a.status_code])).toEqual([
      ['retry', 500],
      ['delivered', 200],
    ]);
    expect(
      attempts[1]!.attempted_at.getTime() - attempts[0]!.attempted_at.getTime(),
    ).toBeGreaterThanOrEqual(150);
    const view = await endpoints.getEndpoint(deps(), tenant.tenantId, endpoint.id);
    expect(view.failing_since).toBeNull();
  });

  it('waits at least Retry-After after a 429', async () => {
    const tenant = await newTenant();
    const receiver = await newReceiver((_message, count) =>
      count === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 204 },
    );
    const endpoint = await endpoints.createEndpoint(deps(), tenant.tenantId, { url: receiver.url });
    await recordRun(tenant, 'success');
    await waitFor(() => expect(receiver.received.length).toBe(2), { timeoutMs: 10_000 });
    const gapMs = receiver.received[1]!.receivedAtMs - receiver.received[0]!.receivedAtMs;
    expect(gapMs).toBeGreaterThanOrEqual(950);
    await waitFor(
      async () => expect((await deliveriesOf(endpoint.id))[0]?.status).toBe('delivered'),
      { timeoutMs: 5000 },
    );
  });

  it('disables the endpoint at once on 410 Gone and cancels what it still had queued', async () => {
    const tenant = await newTenant();
    const receiver = await newReceiver(() => ({ status: 410 }));
    const endpoint = await endpoints.createEndpoint(deps(), tenant.tenantId, { url: receiver.url });
    await recordRun(tenant, 'success');
    await waitFor(
      async () => {
        const view = await endpoints.getEndpoint(deps(), tenant.tenantId, endpoint.id);
        expect(view).toMatchObject({ enabled: false, disabled_reason: 'gone' });
      },
      { timeoutMs: 10_000 },
    );
    expect(receiver.received.length).toBe(1);
    const [delivery] = await deliveriesOf(endpoint.id);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1 });
    // A disabled endpoint gets no new deliveries.
    await recordRun(tenant, 'success');
    expect((await deliveriesOf(endpoint.id)).length).toBe(1);
  });

  it('gives up after the schedule and disables an endpoint failing for longer than the limit', async () => {
    const tenant = await newTenant();
    const receiver = await newReceiver(() => ({ status: 503, body: 'maintenance' }));
    const endpoint = await endpoints.createEndpoint(deps(), tenant.tenantId, { url: receiver.url });
    await recordRun(tenant, 'success');
    await waitFor(async () => expect((await deliveriesOf(endpoint.id))[0]?.status).toBe('failed'), {
      timeoutMs: 10_000,
    });
    const [first] = await deliveriesOf(endpoint.id);
    const attempts = await attemptsOf(first!.id);
    expect(attempts.map((a) => a.outcome)).toEqual(['retry', 'retry', 'retry', 'failed']);
    expect(attempts[0]!.error).toBe('HTTP 503: maintenance');
    let view = await endpoints.getEndpoint(deps(), tenant.tenantId, endpoint.id);
    expect(view.enabled).toBe(true);
    expect(view.failing_since).not.toBeNull();
    // Failing since six days: the next failure disables it.
    await owner.query(
      `UPDATE webhook_endpoints SET failing_since = now() - interval '6 days' WHERE id = $1`,
      [endpoint.id],
    );
    await recordRun(tenant, 'success');
    await waitFor(
      async () => {
        view = await endpoints.getEndpoint(deps(), tenant.tenantId, endpoint.id);
        expect(view).toMatchObject({ enabled: false, disabled_reason: 'failing' });
      },
      { timeoutMs: 10_000 },
    );
  });

  it('signs with both secrets for a day after a rotation', async () => {
    const tenant = await newTenant();
    const receiver = await newReceiver();
    const endpoint = await endpoints.createEndpoint(deps(), tenant.tenantId, { url: receiver.url });
    const rotated = await endpoints.rotateSecret(deps(), tenant.tenantId, endpoint.id);
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect(Date.parse(rotated.previous_secret_expires_at!) - Date.now()).toBeGreaterThan(
      23 * 3600_000,
    );
    receiver.secrets = [endpoint.secret, rotated.secret];
    await recordRun(tenant, 'success');
    await waitFor(() => expect(receiver.received.length).toBe(1), { timeoutMs: 10_000 });
    expect(receiver.received[0]!.verifiedBy).toEqual([0, 1]);
    expect(receiver.received[0]!.signature.split(' ')).toHaveLength(2);
    // Once the overlap is over, only the new secret signs.
    await owner.query(
      `UPDATE webhook_endpoints SET previous_secret_expires_at = now() WHERE id = $1`,
      [endpoint.id],
    );
    await recordRun(tenant, 'success');
    await waitFor(() => expect(receiver.received.length).toBe(2), { timeoutMs: 10_000 });
    expect(receiver.received[1]!.verifiedBy).toEqual([1]);
  });

  it("does not let one tenant's flood delay another tenant's delivery by a second", async () => {
    const flood = await newTenant();
    const quiet = await newTenant();
    let inFlight = 0;
    let mostInFlight = 0;
    const slow = await newReceiver(() => {
      inFlight += 1;
      mostInFlight = Math.max(mostInFlight, inFlight);
      setTimeout(() => (inFlight -= 1), 50);
      return { status: 200, delayMs: 50 };
    });
    const fast = await newReceiver();
    await endpoints.createEndpoint(deps(), flood.tenantId, { url: slow.url });
    await endpoints.createEndpoint(deps(), quiet.tenantId, { url: fast.url });
    await owner.query(
      `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, pod_id, finished_at)
       SELECT $1, $2, now() - make_interval(mins => n), 'success', 'pod-a', now()
         FROM generate_series(1, 2000) AS n`,
      [flood.jobId, flood.tenantId],
    );
    await waitFor(() => expect(slow.received.length).toBeGreaterThan(10), { timeoutMs: 10_000 });
    const recordedMs = Date.now();
    await recordRun(quiet, 'success');
    await waitFor(() => expect(fast.received.length).toBe(1), { timeoutMs: 10_000 });
    expect(fast.received[0]!.receivedAtMs - recordedMs).toBeLessThan(1000);
    // The flood was still going: the quiet tenant did not wait for it.
    expect(slow.received.length).toBeLessThan(2000);
    // One tenant never holds more than its share of the slots.
    expect(mostInFlight).toBeLessThanOrEqual(SETTINGS.maxPerTenant);
  });
});

describe('the sender without private networks', () => {
  it('refuses a private destination, sends nothing there and does not retry', async () => {
    const privateDb = await createTestDatabase();
    const privatePool = createAppPool(privateDb);
    const restricted = startSender({ ...SETTINGS, allowPrivateNetworks: false }, privatePool);
    const client = new pg.Client({ connectionString: privateDb });
    await client.connect();
    try {
      const receiver = await newReceiver();
      const tenantId = randomUUID();
      const jobId = randomUUID();
      await client.query(`INSERT INTO tenants (id, name) VALUES ($1, 't')`, [tenantId]);
      await client.query(
        `INSERT INTO cron_jobs (id, tenant_id, name, schedule, prompt) VALUES ($1, $2, 'j', '0 8 * * *', 'p')`,
        [jobId, tenantId],
      );
      // Created while private networks were allowed (or pointed at a name that now resolves
      // to loopback): the sender judges the address again when it connects.
      const endpoint = await endpoints.createEndpoint(
        { pool: privatePool, now: () => new Date(), allowPrivateNetworks: true, maxEndpoints: 10 },
        tenantId,
        { url: receiver.url.replace('127.0.0.1', 'localhost') },
      );
      await client.query(
        `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, pod_id, finished_at)
         VALUES ($1, $2, now(), 'success', 'pod-a', now())`,
        [jobId, tenantId],
      );
      const delivery = await waitFor(
        async () => {
          const { rows } = await client.query<{ id: string; status: string; last_error: string }>(
            'SELECT id, status, last_error FROM webhook_deliveries WHERE endpoint_id = $1',
            [endpoint.id],
          );
          expect(rows[0]?.status).toBe('failed');
          return rows[0]!;
        },
        { timeoutMs: 10_000 },
      );
      expect(delivery.last_error).toMatch(/loopback/);
      const { rows } = await client.query<{ outcome: string }>(
        'SELECT outcome FROM webhook_delivery_attempts WHERE delivery_id = $1',
        [delivery.id],
      );
      expect(rows.map((row) => row.outcome)).toEqual(['refused']);
      expect(receiver.received.length).toBe(0);
    } finally {
      await restricted.stop(1000);
      await privatePool.end();
      await client.end();
    }
  });
});
