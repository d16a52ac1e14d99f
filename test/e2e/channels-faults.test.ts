// Channel messages with real pods: a pod SIGKILLed while one message is on the wire and others
// are recorded but not yet sent loses none; the next pod sends them all (the one on the wire
// again: at least once), and every recorded run has its message queued in its own transaction.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startPlatformStandIn, type PlatformStandIn } from '../helpers/channel-peers.js';
import { DEFAULT_TENANT, insertJob, startPod, stopAllPods, type Pod } from '../helpers/cluster.js';
import { createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { waitFor } from '../helpers/process-wait.js';

let databaseUrl: string;
let db: pg.Client;
let llm: FakeLlm;
let slack: PlatformStandIn;

const CHANNEL_ENV = {
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  PUBLIC_URL: 'https://hermesx.example.com',
  // Long enough that the first attempt still hangs when the test looks, on a slow machine too.
  CHANNEL_TIMEOUT: '10s',
  CHANNEL_RETRY_SCHEDULE: '1s,1s,1s',
  // One slot: while the first message hangs, the next ones stay recorded but unsent.
  CHANNEL_MAX_CONCURRENT_DELIVERIES: '1',
};

function pod(podId: string): Promise<Pod> {
  return startPod({
    databaseUrl,
    redisUrl: inject('redisUrl'),
    llmUrl: llm.url,
    podId,
    env: CHANNEL_ENV,
  });
}

/** The run a Slack message is about, from its "Open the run" link. */
function runOf(body: Record<string, unknown>): string {
  const blocks = body.blocks as { type: string; elements?: { text: string }[] }[];
  const link = blocks.find((block) => block.type === 'context')?.elements?.[0]?.text ?? '';
  return /\/runs\/([0-9a-f-]{36})\|/.exec(link)?.[1] ?? '';
}

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  llm = await startFakeLlm();
  slack = await startPlatformStandIn('slack', { hangFirst: true });
});

afterAll(async () => {
  await stopAllPods(3000);
  await slack?.close();
  await db?.end();
  await llm?.close();
});

describe('channel deliveries across a pod crash', () => {
  it('loses nothing when the sending pod is SIGKILLed between recording and sending', async () => {
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO notify_channels (tenant_id, kind, name, config)
       VALUES ($1, 'slack', 'ops', $2) RETURNING id`,
      [DEFAULT_TENANT, JSON.stringify({ url: `${slack.url}/services/T/B/X` })],
    );
    const channelId = rows[0]!.id;
    const first = await pod('channels-a');
    const job = await insertJob(db, { name: 'tick', schedule: '* * * * * *', prompt: 'tick' });
    await db.query('UPDATE cron_jobs SET notify_rules = $2 WHERE id = $1', [
      job.id,
      JSON.stringify([{ channel: channelId, when: 'always' }]),
    ]);

    // One message on the wire (never answered), at least one more recorded and queued behind it.
    await waitFor(
      async () => {
        const { rows: leased } = await db.query(
          `SELECT 1 FROM channel_deliveries WHERE channel_id = $1 AND leased_by IS NOT NULL`,
          [channelId],
        );
        expect(leased.length).toBe(1);
        const { rows: queued } = await db.query(
          `SELECT 1 FROM channel_deliveries WHERE channel_id = $1 AND status = 'pending'
              AND leased_by IS NULL`,
          [channelId],
        );
        expect(queued.length).toBeGreaterThanOrEqual(1);
      },
      { timeoutMs: 30_000 },
    );
    expect((await first.kill('SIGKILL')).signal).toBe('SIGKILL');
    await db.query('UPDATE cron_jobs SET enabled = false WHERE id = $1', [job.id]);

    // Every run recorded before the kill has its message queued (same transaction).
    const unqueued = () =>
      db.query(
        `SELECT r.id FROM cron_job_runs r
          WHERE r.cron_job_id = $1 AND r.status IN ('success', 'failed')
            AND NOT EXISTS (SELECT 1 FROM channel_deliveries d WHERE d.run_id = r.id)`,
        [job.id],
      );
    expect((await unqueued()).rows).toEqual([]);

    await pod('channels-b');
    const deliveries = await waitFor(
      async () => {
        const { rows: running } = await db.query(
          `SELECT 1 FROM cron_job_runs WHERE cron_job_id = $1 AND status IN ('claimed', 'running')`,
          [job.id],
        );
        expect(running).toEqual([]);
        const { rows: all } = await db.query<{ run_id: string; status: string }>(
          'SELECT run_id, status FROM channel_deliveries WHERE channel_id = $1',
          [channelId],
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
    const runIds = finished.map((r) => r.id).sort();
    expect(deliveries.map((d) => d.run_id).sort()).toEqual(runIds);
    // Every run's message reached Slack, each within the platform's limits.
    expect(slack.problems).toEqual([]);
    expect([...new Set(slack.messages.map((m) => runOf(m.body)))].sort()).toEqual(runIds);
  }, 180_000);
});
