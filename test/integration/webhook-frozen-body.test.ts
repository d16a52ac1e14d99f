// A delivery's body is frozen when it is queued, in the transaction that records the run: a run
// retried by hand (and succeeding) before its run.failed goes out, or a job renamed meanwhile,
// changes nothing of what that delivery sends. Every attempt carries the same webhook-id and
// the same bytes, signed anew. Deliveries pending when migration 335 runs are frozen by it.
import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR, migrate } from '../../src/db/migrate.js';
import type { Pool } from '../../src/db/pool.js';
import { retryRun } from '../../src/jobs/run-retry.js';
import * as endpoints from '../../src/webhooks/endpoints.js';
import { createWebhookMetrics } from '../../src/webhooks/metrics.js';
import { WebhookSender } from '../../src/webhooks/sender.js';
import { createAppPool, createTestDatabase, withOwner } from '../helpers/database.js';
import { silentLogger } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

let owner: pg.Client;
let pool: Pool;
let receiver: Receiver | undefined;
let sender: WebhookSender | undefined;

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  owner = new pg.Client({ connectionString: databaseUrl });
  await owner.connect();
  pool = createAppPool(databaseUrl);
});

afterAll(async () => {
  await sender?.stop(1000);
  await receiver?.close();
  await pool?.end();
  await owner?.end();
});

interface Event {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

describe('a delivery whose run changes before it is sent', () => {
  it('sends the body frozen when it was queued, the same bytes on every attempt', async () => {
    const tenantId = randomUUID();
    const jobId = randomUUID();
    await owner.query(`INSERT INTO tenants (id, name) VALUES ($1, 'frozen')`, [tenantId]);
    await owner.query(
      `INSERT INTO cron_jobs (id, tenant_id, name, schedule, prompt)
       VALUES ($1, $2, 'digest', '0 8 * * *', 'summarise')`,
      [jobId, tenantId],
    );
    // The first attempt of each delivery is answered 500, so each is sent twice.
    const seen = new Map<string, number>();
    receiver = await startReceiver((message) => {
      const count = (seen.get(message.id) ?? 0) + 1;
      seen.set(message.id, count);
      return { status: count === 1 ? 500 : 200 };
    });
    const endpoint = await endpoints.createEndpoint(
      { pool, now: () => new Date(), allowPrivateNetworks: true, maxEndpoints: 10 },
      tenantId,
      { url: receiver.url },
    );
    receiver.secrets = [endpoint.secret];

    const { rows } = await owner.query<{ id: string }>(
      `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, pod_id)
       VALUES ($1, $2, now() - interval '1 hour', 'running', 'pod-a') RETURNING id`,
      [jobId, tenantId],
    );
    const runId = rows[0]!.id;
    await owner.query(
      `UPDATE cron_job_runs SET status = 'failed', finished_at = now(), duration_ms = 7,
              error = 'the model server answered with an error', error_kind = 'model_error'
        WHERE id = $1`,
      [runId],
    );
    const failedAt = await owner.query<{ finished_at: Date }>(
      'SELECT finished_at FROM cron_job_runs WHERE id = $1',
      [runId],
    );
    // Before any attempt: the run is retried by hand and its second attempt succeeds, and the
    // job is renamed.
    await retryRun({ pool }, tenantId, runId);
    await owner.query(
      `UPDATE cron_job_runs SET status = 'claimed', pod_id = 'pod-b' WHERE id = $1`,
      [runId],
    );
    await owner.query(
      `UPDATE cron_job_runs SET status = 'success', finished_at = now(), duration_ms = 9,
              result = 'all quiet' WHERE id = $1`,
      [runId],
    );
    await owner.query(`UPDATE cron_jobs SET name = 'renamed' WHERE id = $1`, [jobId]);

    sender = new WebhookSender({
      pool,
      log: silentLogger(),
      metrics: createWebhookMetrics(new Registry()),
      settings: {
        podId: 'frozen-test',
        retryScheduleMs: [200, 200, 200],
        timeoutMs: 2000,
        maxConcurrent: 10,
        maxPerTenant: 5,
        disableAfterMs: 24 * 3600_000,
        allowPrivateNetworks: true,
        idlePollMs: 50,
      },
    });
    sender.start();
    const received = receiver.received;
    await waitFor(() => expect(received.length).toBe(4), { timeoutMs: 15_000 });

    expect(received.every((message) => message.verifiedBy.length === 1)).toBe(true);
    const byId = new Map<string, typeof received>();
    for (const message of received)
      byId.set(message.id, [...(byId.get(message.id) ?? []), message]);
    expect([...byId.values()].map((messages) => messages.length)).toEqual([2, 2]);
    for (const [id, messages] of byId) {
      expect(messages[1]!.body, id).toBe(messages[0]!.body);
    }
    const events = [...byId.values()].map((messages) => messages[0]!.verified as Event);
    const failed = events.find((event) => event.type === 'run.failed');
    const succeeded = events.find((event) => event.type === 'run.succeeded');
    expect(failed?.data).toMatchObject({
      id: runId,
      status: 'failed',
      attempt: 1,
      error_kind: 'model_error',
      result: null,
      job_id: jobId,
      job_name: 'digest',
      finished_at: failedAt.rows[0]!.finished_at.toISOString(),
    });
    expect(failed?.timestamp).toBe(failedAt.rows[0]!.finished_at.toISOString());
    expect(succeeded?.data).toMatchObject({
      id: runId,
      status: 'success',
      attempt: 2,
      error_kind: null,
      result: 'all quiet',
      job_name: 'digest',
    });
  });
});

describe('migration 335', () => {
  it('freezes the body of the run deliveries still pending, from their run as it is', async () => {
    const scratch = mkdtempSync(path.join(os.tmpdir(), 'hermesx-frozen-'));
    try {
      const before = path.join(scratch, 'migrations');
      cpSync(MIGRATIONS_DIR, before, {
        recursive: true,
        filter: (source) => {
          const relative = path.relative(MIGRATIONS_DIR, source);
          if (relative === '' || relative.startsWith('functions')) return true;
          return Number.parseInt(relative, 10) < 335;
        },
      });
      const url = await createTestDatabase({ migrate: false });
      await migrate(url, silentLogger(), before);
      const ids = await withOwner(url, async (client) => {
        const tenantId = randomUUID();
        const jobId = randomUUID();
        await client.query(`INSERT INTO tenants (id, name) VALUES ($1, 'upgrade')`, [tenantId]);
        await client.query(
          `INSERT INTO cron_jobs (id, tenant_id, name, schedule, prompt)
           VALUES ($1, $2, 'nightly', '0 3 * * *', 'p')`,
          [jobId, tenantId],
        );
        const run = await client.query<{ id: string }>(
          `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, started_at, status,
                                      pod_id, finished_at, result)
           VALUES ($1, $2, '2030-01-01T03:00:00Z', '2030-01-01T03:00:00.250Z', 'success', 'pod-a',
                   '2030-01-01T03:00:02.500Z', 'done')
           RETURNING id`,
          [jobId, tenantId],
        );
        const endpoint = await client.query<{ id: string }>(
          `INSERT INTO webhook_endpoints (tenant_id, url, secret)
           VALUES ($1, 'http://127.0.0.1:9/x', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')
           RETURNING id`,
          [tenantId],
        );
        // As the previous outbox queued it: no data, rendered at each attempt.
        const queued = await client.query<{ id: string }>(
          `INSERT INTO webhook_deliveries (tenant_id, endpoint_id, cron_job_id, run_id,
                                           event_type, payload)
           VALUES ($1, $2, $3, $4, 'run.succeeded', NULL) RETURNING id`,
          [tenantId, endpoint.rows[0]!.id, jobId, run.rows[0]!.id],
        );
        return { jobId, runId: run.rows[0]!.id, deliveryId: queued.rows[0]!.id };
      });
      await migrate(url, silentLogger());
      const { rows } = await withOwner(url, (client) =>
        client.query<{ payload: Record<string, unknown> }>(
          'SELECT payload FROM webhook_deliveries WHERE id = $1',
          [ids.deliveryId],
        ),
      );
      expect(rows[0]!.payload).toMatchObject({
        id: ids.runId,
        status: 'success',
        result: 'done',
        scheduled_at: '2030-01-01T03:00:00.000Z',
        started_at: '2030-01-01T03:00:00.250Z',
        finished_at: '2030-01-01T03:00:02.500Z',
        job_id: ids.jobId,
        job_name: 'nightly',
        result_complete: true,
      });
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
