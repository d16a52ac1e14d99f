// The webhook sender as a service on real PostgreSQL, its time a fake clock: it claims at start,
// then each idle poll on its clock (or 5 ms after a delivery frees a slot), backs off a failed
// claim 2, 4 … polls up to 30 s, prunes every 10 minutes of its clock, and its stop waits for
// deliveries in flight at most the grace, measured on the clock.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pool } from '../../src/db/pool.js';
import * as endpoints from '../../src/webhooks/endpoints.js';
import { createWebhookMetrics } from '../../src/webhooks/metrics.js';
import type { SenderSettings } from '../../src/webhooks/sender-settings.js';
import { WebhookSender } from '../../src/webhooks/sender.js';
import { createAppPool, createTestDatabase } from '../helpers/database.js';
import { capturingLogger, silentLogger } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';
import { FakeClock, flushAsync } from '../kit/clock.js';
import type { Logger } from '../../src/log.js';

const IDLE_MS = 1000;
const SETTINGS: SenderSettings = {
  podId: 'sender-clock',
  retryScheduleMs: [60_000],
  timeoutMs: 10_000,
  maxConcurrent: 4,
  maxPerTenant: 4,
  disableAfterMs: 5 * 24 * 3600_000,
  allowPrivateNetworks: true,
  idlePollMs: IDLE_MS,
};
const WAIT = { timeoutMs: 10_000 };

let owner: pg.Client;
let pool: Pool;

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  owner = new pg.Client({ connectionString: databaseUrl });
  await owner.connect();
  pool = createAppPool(databaseUrl);
});

afterAll(async () => {
  await pool?.end();
  await owner?.end();
});

/** A receiver that holds every request until the test answers it. */
async function startHeldReceiver() {
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    held.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    held,
    answerAll: () => {
      for (const res of held.splice(0)) res.writeHead(200).end();
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A tenant with a job and an endpoint at `url`; record() finishes a run, which queues a delivery. */
async function tenantWithEndpoint(url: string) {
  const tenantId = randomUUID();
  const jobId = randomUUID();
  await owner.query(`INSERT INTO tenants (id, name) VALUES ($1, 'webhooks')`, [tenantId]);
  await owner.query(
    `INSERT INTO cron_jobs (id, tenant_id, name, schedule, prompt)
     VALUES ($1, $2, 'digest', '0 8 * * *', 'summarise')`,
    [jobId, tenantId],
  );
  const endpoint = await endpoints.createEndpoint(
    { pool, now: () => new Date(), allowPrivateNetworks: true, maxEndpoints: 10 },
    tenantId,
    { url },
  );
  const record = async () => {
    const { rows } = await owner.query<{ id: string }>(
      `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, pod_id)
       VALUES ($1, $2, now() - random() * interval '300 days', 'running', 'pod-a') RETURNING id`,
      [jobId, tenantId],
    );
    await owner.query(
      `UPDATE cron_job_runs SET status = 'success', finished_at = now(), result = 'ok' WHERE id = $1`,
      [rows[0]!.id],
    );
  };
  const statuses = async () => {
    const { rows } = await owner.query<{ status: string }>(
      'SELECT status FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at',
      [endpoint.id],
    );
    return rows.map((row) => row.status);
  };
  return { record, statuses };
}

/** The pool, counting the statements sent that name `fn`. */
function counting(inner: Pool, fn: string): { pool: Pool; count: () => number } {
  let count = 0;
  const counted = new Proxy(inner, {
    get(target, property, receiver) {
      if (property !== 'query') return Reflect.get(target, property, receiver) as unknown;
      return (...args: unknown[]) => {
        if (String(args[0]).includes(fn)) count += 1;
        return (target.query as (...a: unknown[]) => unknown)(...args);
      };
    },
  });
  return { pool: counted, count: () => count };
}

function startSender(
  clock: FakeClock,
  onPool: Pool,
  settings: SenderSettings = SETTINGS,
  log: Logger = silentLogger(),
): WebhookSender {
  const sender = new WebhookSender({
    pool: onPool,
    log,
    metrics: createWebhookMetrics(new Registry()),
    settings,
    clock,
  });
  sender.start();
  return sender;
}

describe('the webhook sender on a clock', () => {
  it('claims at start, then at each idle poll, or 5 ms after a delivery frees a slot', async () => {
    const receiver = await startHeldReceiver();
    const tenant = await tenantWithEndpoint(receiver.url);
    const claims = counting(pool, 'webhook_claim_deliveries');
    await tenant.record();
    const clock = new FakeClock(Date.now());
    const startMs = clock.now();
    const sender = startSender(clock, claims.pool);
    try {
      expect(claims.count()).toBe(0);
      await clock.advance(0);
      expect(claims.count()).toBe(1);
      await waitFor(() => expect(receiver.held).toHaveLength(1), WAIT);
      // The claim found work: the next one comes as soon as the delivery ends (5 ms on).
      receiver.answerAll();
      await waitFor(() => expect(clock.pendingTimers).toBe(2), WAIT);
      expect(clock.nextTimerMs()).toBe(startMs + 5);
      await clock.advance(5);
      expect(claims.count()).toBe(2);
      expect(await tenant.statuses()).toEqual(['delivered']);
      // That claim found nothing: the sender waits one idle poll, whatever is queued meanwhile.
      await waitFor(() => expect(clock.nextTimerMs()).toBe(startMs + 5 + IDLE_MS), WAIT);
      await tenant.record();
      await clock.advance(IDLE_MS - 1);
      expect(claims.count()).toBe(2);
      await clock.advance(1);
      expect(claims.count()).toBe(3);
      await waitFor(() => expect(receiver.held).toHaveLength(1), WAIT);
      receiver.answerAll();
      await waitFor(
        async () => expect(await tenant.statuses()).toEqual(['delivered', 'delivered']),
        WAIT,
      );
    } finally {
      await sender.stop(0);
      await receiver.close();
    }
    expect(clock.pendingTimers).toBe(0);
  });

  it('logs a failed claim and tries again after 2, 4 … idle polls, up to 30 s', async () => {
    const clock = new FakeClock(Date.now());
    const { log, lines } = capturingLogger('json');
    const broken = createAppPool('postgres://nobody:wrong@127.0.0.1:1/none');
    const sender = startSender(clock, broken, { ...SETTINGS, idlePollMs: 5000 }, log);
    const failures = () =>
      lines
        .map((text) => JSON.parse(text) as Record<string, unknown>)
        .filter((line) => line.msg === 'webhook sender: cannot claim deliveries');
    try {
      await clock.advance(0);
      const delays: number[] = [];
      for (let failed = 1; failed <= 3; failed++) {
        await waitFor(() => expect(failures()).toHaveLength(failed), WAIT);
        await waitFor(() => expect(clock.pendingTimers).toBe(1), WAIT);
        delays.push(clock.nextTimerMs()! - clock.now());
        await clock.advanceTo(clock.nextTimerMs()!);
      }
      expect(delays).toEqual([10_000, 20_000, 30_000]);
      expect(failures().slice(0, 3)).toEqual(
        [10_000, 20_000, 30_000].map((retryInMs) =>
          expect.objectContaining({ pod: SETTINGS.podId, retry_in_ms: retryInMs }),
        ),
      );
    } finally {
      await sender.stop(0);
      await broken.end();
    }
  });

  it('prunes at its first poll, then once 10 minutes of its clock have passed', async () => {
    const prunes = counting(pool, 'webhook_prune_deliveries');
    const clock = new FakeClock(Date.now());
    const fourMinutesMs = 4 * 60_000;
    const sender = startSender(clock, prunes.pool, {
      ...SETTINGS,
      idlePollMs: fourMinutesMs,
      retentionMs: 30 * 24 * 3600_000,
    });
    try {
      const seen: number[] = [];
      await clock.advance(0);
      for (let poll = 0; poll < 4; poll++) {
        seen.push(prunes.count());
        await waitFor(() => expect(clock.pendingTimers).toBe(1), WAIT);
        await clock.advanceTo(clock.nextTimerMs()!);
      }
      // Polls at 0, 4, 8 and 12 minutes.
      expect(seen).toEqual([1, 1, 1, 2]);
    } finally {
      await sender.stop(0);
    }
  });

  it('waits at its stop for deliveries in flight no longer than the grace on its clock', async () => {
    const receiver = await startHeldReceiver();
    const tenant = await tenantWithEndpoint(receiver.url);
    await tenant.record();
    const clock = new FakeClock(Date.now());
    const sender = startSender(clock, pool);
    await clock.advance(0);
    await waitFor(() => expect(receiver.held).toHaveLength(1), WAIT);
    let stopped = false;
    const stopping = sender.stop(5000).then(() => (stopped = true));
    try {
      // Only the grace's timer is left once the loop has stopped.
      await waitFor(() => expect(clock.nextTimerMs()).toBe(clock.now() + 5000), WAIT);
      expect(clock.pendingTimers).toBe(1);
      await clock.advance(4999);
      expect(stopped).toBe(false);
      await clock.advance(1);
      await flushAsync();
      expect(stopped).toBe(true);
    } finally {
      receiver.answerAll();
      await stopping;
    }
    // The delivery left behind still records its answer (its lease would cover it otherwise).
    await waitFor(async () => expect(await tenant.statuses()).toEqual(['delivered']), WAIT);
    await receiver.close();
  });

  it('returns from stop as soon as the deliveries in flight end, leaving no timer', async () => {
    const receiver = await startHeldReceiver();
    const tenant = await tenantWithEndpoint(receiver.url);
    await tenant.record();
    const clock = new FakeClock(Date.now());
    const sender = startSender(clock, pool);
    await clock.advance(0);
    await waitFor(() => expect(receiver.held).toHaveLength(1), WAIT);
    let stopped = false;
    const stopping = sender.stop(60_000).then(() => (stopped = true));
    await waitFor(() => expect(clock.pendingTimers).toBe(1), WAIT);
    receiver.answerAll();
    await waitFor(() => expect(stopped).toBe(true), WAIT);
    await stopping;
    expect(clock.pendingTimers).toBe(0);
    expect(await tenant.statuses()).toEqual(['delivered']);
    await receiver.close();
  });
});
