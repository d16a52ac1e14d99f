// Webhook signing secrets sealed at rest (HERMES_SECRETS_KEY, the tenant secrets' cipher) on real
// PostgreSQL: no row holds a plain secret, receivers verify with standardwebhooks, a rotation
// signs with both secrets, rows written in plain text before are sealed at start and still
// verify, and a pod with the wrong key logs it (without the value) and loses no delivery.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Pool } from '../../src/db/pool.js';
import { generateSecretsKey, parseSecretsKey } from '../../src/secrets/key.js';
import * as endpoints from '../../src/webhooks/endpoints.js';
import { generateSecret } from '../../src/webhooks/message.js';
import { createWebhookMetrics } from '../../src/webhooks/metrics.js';
import { openStoredSecret, sealSecretsAtStart } from '../../src/webhooks/secret-seal.js';
import type { SenderSettings } from '../../src/webhooks/sender-settings.js';
import { WebhookSender } from '../../src/webhooks/sender.js';
import { createAppPool, createTestDatabase } from '../helpers/database.js';
import { capturingLogger, silentLogger } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

const SETTINGS: SenderSettings = {
  podId: 'sealing-test',
  retryScheduleMs: [200, 200, 200],
  timeoutMs: 1000,
  maxConcurrent: 20,
  maxPerTenant: 5,
  disableAfterMs: 5 * 24 * 3600_000,
  allowPrivateNetworks: true,
  idlePollMs: 50,
};
const KEY = parseSecretsKey(generateSecretsKey())!;
const OTHER_KEY = parseSecretsKey(generateSecretsKey())!;

let owner: pg.Client;
let pool: Pool;
const receivers: Receiver[] = [];
const senders: WebhookSender[] = [];

const WAIT = { timeoutMs: 20_000 };
const deps = (secretsKey: Buffer | null = KEY) => ({
  pool,
  now: () => new Date(),
  allowPrivateNetworks: true,
  maxEndpoints: 10,
  secretsKey: secretsKey ?? undefined,
});

async function newReceiver(): Promise<Receiver> {
  const receiver = await startReceiver();
  receivers.push(receiver);
  return receiver;
}

function startSender(secretsKey: Buffer | undefined, log = silentLogger()): WebhookSender {
  const sender = new WebhookSender({
    pool,
    log,
    metrics: createWebhookMetrics(new Registry()),
    settings: SETTINGS,
    secretsKey,
  });
  sender.start();
  senders.push(sender);
  return sender;
}

async function newTenant(): Promise<{ tenantId: string; jobId: string }> {
  const tenantId = randomUUID();
  const jobId = randomUUID();
  await owner.query(`INSERT INTO tenants (id, name) VALUES ($1, 'sealing')`, [tenantId]);
  await owner.query(
    `INSERT INTO cron_jobs (id, tenant_id, name, schedule, prompt)
     VALUES ($1, $2, 'digest', '0 8 * * *', 'summarise')`,
    [jobId, tenantId],
  );
  return { tenantId, jobId };
}

async function recordRun(tenant: { tenantId: string; jobId: string }): Promise<string> {
  const { rows } = await owner.query<{ id: string }>(
    `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, pod_id, finished_at,
                                duration_ms, result)
     VALUES ($1, $2, now() - random() * interval '30 days', 'success', 'pod-a', now(), 5, 'ok')
     RETURNING id`,
    [tenant.jobId, tenant.tenantId],
  );
  return rows[0]!.id;
}

async function endpointRow(id: string) {
  const { rows } = await owner.query<{
    secret: string | null;
    secret_sealed: Buffer | null;
    previous_secret: string | null;
    previous_secret_sealed: Buffer | null;
    whole: string;
  }>(
    `SELECT secret, secret_sealed, previous_secret, previous_secret_sealed,
            row_to_json(e)::text AS whole
       FROM webhook_endpoints e WHERE id = $1`,
    [id],
  );
  return rows[0]!;
}

/** The stored form holds no trace of the secret: not as text, not as its bytes. */
function expectNoPlainSecret(row: Awaited<ReturnType<typeof endpointRow>>, secret: string) {
  expect(row.secret).toBeNull();
  expect(row.previous_secret).toBeNull();
  expect(row.whole).not.toContain(secret);
  expect(row.whole).not.toContain(secret.slice('whsec_'.length));
  expect(row.secret_sealed!.includes(Buffer.from(secret))).toBe(false);
}

async function deliveryOf(runId: string) {
  const { rows } = await owner.query<{ status: string; attempts: number }>(
    'SELECT status, attempts FROM webhook_deliveries WHERE run_id = $1',
    [runId],
  );
  return rows[0]!;
}

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  owner = new pg.Client({ connectionString: databaseUrl });
  await owner.connect();
  pool = createAppPool(databaseUrl);
});

afterEach(async () => {
  await Promise.all(senders.splice(0).map((sender) => sender.stop(1000)));
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

afterAll(async () => {
  await pool?.end();
  await owner?.end();
});

describe('webhook secrets sealed at rest', () => {
  it('stores no plain secret, and the receiver verifies with standardwebhooks', async () => {
    const tenant = await newTenant();
    const receiver = await newReceiver();
    const endpoint = await endpoints.createEndpoint(deps(), tenant.tenantId, {
      url: `${receiver.url}/hook`,
    });
    expect(endpoint.secret).toMatch(/^whsec_/);
    expectNoPlainSecret(await endpointRow(endpoint.id), endpoint.secret);

    receiver.secrets = [endpoint.secret];
    startSender(KEY);
    const runId = await recordRun(tenant);
    const message = await waitFor(() => {
      expect(receiver.received.length).toBe(1);
      return receiver.received[0]!;
    }, WAIT);
    expect(message.verifiedBy).toEqual([0]);
    expect(message.verified).toMatchObject({ type: 'run.succeeded', data: { id: runId } });
  });

  it('binds the sealed value to its endpoint: copied to another one, it does not sign', async () => {
    const tenant = await newTenant();
    const a = await endpoints.createEndpoint(deps(), tenant.tenantId, { url: 'http://a.test/' });
    const b = await endpoints.createEndpoint(deps(), tenant.tenantId, { url: 'http://b.test/' });
    await owner.query(
      `UPDATE webhook_endpoints SET secret_sealed = (SELECT secret_sealed FROM webhook_endpoints
        WHERE id = $1) WHERE id = $2`,
      [a.id, b.id],
    );
    const row = await endpointRow(b.id);
    expect(() =>
      openStoredSecret(
        KEY,
        { tenantId: tenant.tenantId, endpointId: b.id },
        {
          plain: null,
          sealed: row.secret_sealed,
        },
      ),
    ).toThrow('cannot be decrypted');
  });

  it('after a rotation signs with both secrets, each sealed', async () => {
    const tenant = await newTenant();
    const receiver = await newReceiver();
    const endpoint = await endpoints.createEndpoint(deps(), tenant.tenantId, {
      url: `${receiver.url}/hook`,
    });
    const rotated = await endpoints.rotateSecret(deps(), tenant.tenantId, endpoint.id);
    expect(rotated.secret).not.toBe(endpoint.secret);
    const row = await endpointRow(endpoint.id);
    expectNoPlainSecret(row, rotated.secret);
    expect(row.whole).not.toContain(endpoint.secret);
    expect(row.previous_secret_sealed).not.toBeNull();

    receiver.secrets = [endpoint.secret, rotated.secret];
    startSender(KEY);
    await recordRun(tenant);
    const message = await waitFor(() => {
      expect(receiver.received.length).toBe(1);
      return receiver.received[0]!;
    }, WAIT);
    expect(message.verifiedBy).toEqual([0, 1]);
    expect(message.signature.split(' ')).toHaveLength(2);
  });

  it('seals a plain-text row from before at start, and it still verifies', async () => {
    const tenant = await newTenant();
    const receiver = await newReceiver();
    const id = randomUUID();
    const secret = generateSecret();
    const previous = generateSecret();
    // As the service stored endpoints before sealing (and still does without a key).
    await owner.query(
      `INSERT INTO webhook_endpoints (id, tenant_id, url, secret, previous_secret,
                                      previous_secret_expires_at)
       VALUES ($1, $2, $3, $4, $5, now() + interval '1 hour')`,
      [id, tenant.tenantId, `${receiver.url}/hook`, secret, previous],
    );
    const { log, lines } = capturingLogger('json');
    await sealSecretsAtStart(pool, KEY, log);
    expect(lines.join('\n')).toContain('webhook signing secrets sealed');
    const row = await endpointRow(id);
    expectNoPlainSecret(row, secret);
    expect(row.whole).not.toContain(previous);
    expect(row.previous_secret_sealed).not.toBeNull();

    // A second pass (another pod starting) has nothing left to do.
    const again = capturingLogger('json');
    await sealSecretsAtStart(pool, KEY, again.log);
    expect(again.lines.join('\n')).not.toContain('webhook signing secrets sealed');

    receiver.secrets = [secret, previous];
    startSender(KEY);
    await recordRun(tenant);
    const message = await waitFor(() => {
      expect(receiver.received.length).toBe(1);
      return receiver.received[0]!;
    }, WAIT);
    expect(message.verifiedBy).toEqual([0, 1]);
  });

  it('without a key stores and signs as before, and says so at start', async () => {
    const tenant = await newTenant();
    const receiver = await newReceiver();
    const endpoint = await endpoints.createEndpoint(deps(null), tenant.tenantId, {
      url: `${receiver.url}/hook`,
    });
    expect((await endpointRow(endpoint.id)).secret).toBe(endpoint.secret);
    const { log, lines } = capturingLogger('json');
    await sealSecretsAtStart(pool, undefined, log);
    expect(lines.join('\n')).toContain('HERMES_SECRETS_KEY is not set');

    receiver.secrets = [endpoint.secret];
    startSender(undefined);
    await recordRun(tenant);
    await waitFor(() => expect(receiver.received.map((m) => m.verifiedBy)).toEqual([[0]]), WAIT);
    // The next start with a key seals it.
    await sealSecretsAtStart(pool, KEY, silentLogger());
    expectNoPlainSecret(await endpointRow(endpoint.id), endpoint.secret);
  });

  it('with the wrong key logs it without the value, and the delivery waits for the right key', async () => {
    const tenant = await newTenant();
    const receiver = await newReceiver();
    const endpoint = await endpoints.createEndpoint(deps(), tenant.tenantId, {
      url: `${receiver.url}/hook`,
    });
    receiver.secrets = [endpoint.secret];
    const { log, lines } = capturingLogger('json');
    const wrong = startSender(OTHER_KEY, log);
    const runId = await recordRun(tenant);
    const line = await waitFor(() => {
      const found = lines.find((text) => text.includes('webhook delivery not signed'));
      expect(found).toBeDefined();
      return found!;
    }, WAIT);
    expect(line).toContain('HERMES_SECRETS_KEY differs');
    expect(line).toContain(endpoint.id);
    expect(lines.join('\n')).not.toContain(endpoint.secret);
    expect(receiver.received).toHaveLength(0);
    await wrong.stop(1000);
    expect(await deliveryOf(runId)).toEqual({ status: 'pending', attempts: 0 });

    // No key at all: the same, with a message naming the setting.
    const none = capturingLogger('json');
    const unset = startSender(undefined, none.log);
    await owner.query(
      `UPDATE webhook_deliveries SET next_attempt_at = now(), leased_by = NULL WHERE run_id = $1`,
      [runId],
    );
    await waitFor(
      () => expect(none.lines.join('\n')).toContain('HERMES_SECRETS_KEY is not set on this pod'),
      WAIT,
    );
    await unset.stop(1000);

    await owner.query(
      `UPDATE webhook_deliveries SET next_attempt_at = now(), leased_by = NULL WHERE run_id = $1`,
      [runId],
    );
    startSender(KEY);
    await waitFor(() => expect(receiver.received.map((m) => m.verifiedBy)).toEqual([[0]]), WAIT);
    await waitFor(
      async () => expect(await deliveryOf(runId)).toEqual({ status: 'delivered', attempts: 1 }),
      WAIT,
    );
  });

  it('after a key change and a rotation, the new secret signs alone (the previous does not open)', async () => {
    const tenant = await newTenant();
    const receiver = await newReceiver();
    const endpoint = await endpoints.createEndpoint(deps(OTHER_KEY), tenant.tenantId, {
      url: `${receiver.url}/hook`,
    });
    const rotated = await endpoints.rotateSecret(deps(KEY), tenant.tenantId, endpoint.id);
    receiver.secrets = [endpoint.secret, rotated.secret];
    const { log, lines } = capturingLogger('json');
    startSender(KEY, log);
    await recordRun(tenant);
    await waitFor(() => expect(receiver.received.map((m) => m.verifiedBy)).toEqual([[1]]), WAIT);
    const warning = lines.find((text) => text.includes('without the previous secret'));
    expect(warning).toContain(endpoint.id);
    expect(lines.join('\n')).not.toContain(endpoint.secret);
  });
});
