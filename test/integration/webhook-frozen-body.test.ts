// A delivery's body is frozen when it is queued, in the transaction that records the run: a run
// retried by hand (and succeeding) before its run.failed goes out, or a job renamed meanwhile,
// changes nothing of what that delivery sends. Every attempt carries the same webhook-id and
// the same bytes, signed anew.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pool } from '../../src/db/pool.js';
import { retryRun } from '../../src/jobs/run-retry.js';
import * as endpoints from '../../src/webhooks/endpoints.js';
import { createWebhookMetrics } from '../../src/webhooks/metrics.js';
import { WebhookSender } from '../../src/webhooks/sender.js';
import { createAppPool, createTestDatabase } from '../helpers/database.js';
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
