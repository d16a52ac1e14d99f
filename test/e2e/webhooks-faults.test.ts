// Webhooks with real pods: a pod SIGKILLed while one delivery is on the wire and another is
// recorded but not yet sent loses neither; the next pod sends both (the one on the wire again,
// with the same webhook-id), and every message verifies with standardwebhooks.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { generateSecret } from '../../src/webhooks/message.js';
import { DEFAULT_TENANT, insertJob, startPod, stopAllPods, type Pod } from '../helpers/cluster.js';
import { createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { waitFor } from '../helpers/process-wait.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

let databaseUrl: string;
let db: pg.Client;
let llm: FakeLlm;
let receiver: Receiver;

const WEBHOOK_ENV = {
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  // Long enough that the first attempt still hangs when the test looks, on a slow machine too.
  WEBHOOK_TIMEOUT: '10s',
  WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s',
  // One slot: while the first delivery hangs, the next ones stay recorded but unsent.
  WEBHOOK_MAX_CONCURRENT_DELIVERIES: '1',
};

function pod(podId: string): Promise<Pod> {
  return startPod({
    databaseUrl,
    redisUrl: inject('redisUrl'),
    llmUrl: llm.url,
    podId,
    env: WEBHOOK_ENV,
  });
}

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  llm = await startFakeLlm();
  // The first message is never answered (the pod dies holding it); every later one gets a 200.
  receiver = await startReceiver((_message, count) =>
    count === 1 ? { status: 200, delayMs: 600_000 } : { status: 200 },
  );
});

afterAll(async () => {
  await stopAllPods(3000);
  await receiver?.close();
  await db?.end();
  await llm?.close();
});

describe('webhook deliveries across a pod crash', () => {
  it('loses nothing when the sending pod is SIGKILLed between recording and sending', async () => {
    const secret = generateSecret();
    receiver.secrets = [secret];
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO webhook_endpoints (tenant_id, url, secret) VALUES ($1, $2, $3) RETURNING id`,
      [DEFAULT_TENANT, `${receiver.url}/hook`, secret],
    );
    const endpointId = rows[0]!.id;
    const first = await pod('webhooks-a');
    const job = await insertJob(db, { name: 'tick', schedule: '* * * * * *', prompt: 'tick' });

    // One delivery on the wire, at least one more recorded and queued behind it.
    await waitFor(
      async () => {
        expect(receiver.received.length).toBe(1);
        const { rows: queued } = await db.query(
          `SELECT 1 FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending'
              AND leased_by IS NULL`,
          [endpointId],
        );
        expect(queued.length).toBeGreaterThanOrEqual(1);
      },
      { timeoutMs: 30_000 },
    );
    expect((await first.kill('SIGKILL')).signal).toBe('SIGKILL');
    await db.query('UPDATE cron_jobs SET enabled = false WHERE id = $1', [job.id]);

    // Every run recorded before the kill has its delivery queued (same transaction).
    const unqueued = () =>
      db.query(
        `SELECT r.id FROM cron_job_runs r
          WHERE r.cron_job_id = $1 AND r.status IN ('success', 'failed')
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.run_id = r.id)`,
        [job.id],
      );
    expect((await unqueued()).rows).toEqual([]);

    await pod('webhooks-b');
    // The next pod fails the runs the dead one left running (run.failed events too), and
    // sends everything once the dead pod's lease has expired.
    const deliveries = await waitFor(
      async () => {
        const { rows: running } = await db.query(
          `SELECT 1 FROM cron_job_runs WHERE cron_job_id = $1 AND status IN ('claimed', 'running')`,
          [job.id],
        );
        expect(running).toEqual([]);
        const { rows: all } = await db.query<{ id: string; run_id: string; status: string }>(
          'SELECT id, run_id, status FROM webhook_deliveries WHERE endpoint_id = $1',
          [endpointId],
        );
        expect(all.filter((d) => d.status !== 'delivered')).toEqual([]);
        return all;
      },
      { timeoutMs: 90_000, intervalMs: 250 },
    );
    expect((await unqueued()).rows).toEqual([]);
    const { rows: finished } = await db.query<{ id: string }>(
      `SELECT id FROM cron_job_runs WHERE cron_job_id = $1`,
      [job.id],
    );
    expect(deliveries.map((d) => d.run_id).sort()).toEqual(finished.map((r) => r.id).sort());

    // Every delivery reached the receiver, signed; a repeat only ever carries the same
    // webhook-id and the same body (the one that was on the wire when the pod died).
    expect(receiver.received.every((message) => message.verifiedBy.length === 1)).toBe(true);
    const ids = new Set(receiver.received.map((message) => message.id));
    expect(ids.size).toBe(deliveries.length);
    const repeated = [...ids].filter(
      (id) => receiver.received.filter((message) => message.id === id).length > 1,
    );
    expect(repeated).toEqual([receiver.received[0]!.id]);
    const bodies = receiver.received.filter((message) => message.id === repeated[0]);
    expect(new Set(bodies.map((message) => message.body)).size).toBe(1);
  }, 180_000);
});
