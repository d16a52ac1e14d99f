// Redis failovers under load, on real processes: three pods schedule per-second jobs through
// Sentinel, then through a Redis Cluster, and the primary is SIGKILLed. Each test reports the time
// from the kill to resumed scheduling, the runs, duplicates (0), misses outside the failover
// window (0) and the occurrences caught up.
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { insertJob, linesWithMessage, runsOf, startPod, stopAllPods } from '../helpers/cluster.js';
import { createTestDatabase } from '../helpers/database.js';
import { exerciseFailover } from '../helpers/failover-run.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { waitFor } from '../helpers/process-wait.js';
import { startClusterSetup } from '../helpers/redis-cluster.js';
import { stopRedisProcesses, withClient } from '../helpers/redis-processes.js';
import { startSentinelSetup } from '../helpers/redis-sentinel.js';

const SECOND = 1000;

let databaseUrl: string;
let db: pg.Client;
let llm: FakeLlm;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  llm = await startFakeLlm();
});

afterEach(async () => {
  await stopAllPods(3000);
  for (const cleanup of cleanups.splice(0)) await cleanup();
  await stopRedisProcesses();
  await db.query('DELETE FROM cron_jobs');
});

afterAll(async () => {
  await stopAllPods(3000);
  await stopRedisProcesses();
  await db?.end();
  await llm?.close();
});

describe('Redis Sentinel failover', () => {
  it(
    'three pods pause only for the failover, resume within 10 s of a SIGKILLed primary, run nothing twice and miss nothing outside it',
    { timeout: 120_000 },
    async () => {
      const setup = await startSentinelSetup({ downAfterMs: 5000 });
      cleanups.push(setup.cleanup);
      const env = {
        REDIS_SENTINELS: setup.sentinelList,
        REDIS_SENTINEL_NAME: setup.name,
        REDIS_PASSWORD: setup.password,
        REDIS_SENTINEL_PASSWORD: setup.sentinelPassword,
      };
      const { report, pods } = await exerciseFailover(
        { databaseUrl, db, llm },
        'sentinel',
        env,
        () => setup.primary.kill(),
      );
      expect(await setup.reportedPrimaryPort()).toBe(setup.replica.port);
      for (const resumeMs of report.resumeMs) expect(resumeMs).toBeLessThanOrEqual(10 * SECOND);
      for (const pod of pods) {
        const line = linesWithMessage(
          pod,
          `redis failover: new primary 127.0.0.1:${setup.replica.port}`,
        );
        expect(line, `${pod.podId} logs the new primary`).toHaveLength(1);
        expect(line[0]).toMatch(/level=WARN/);
        expect(line[0]).toContain(`previous=127.0.0.1:${setup.primary.port}`);
      }
    },
  );

  it('also connects through a redis+sentinel:// REDIS_URL', async () => {
    const setup = await startSentinelSetup({ downAfterMs: 5000 });
    cleanups.push(setup.cleanup);
    const pod = await startPod({
      databaseUrl,
      llmUrl: llm.url,
      podId: 'sentinel-url',
      waitFor: 'scheduler',
      env: {
        REDIS_URL: `redis+sentinel://:${setup.password}@${setup.sentinelList}/${setup.name}`,
        REDIS_SENTINEL_PASSWORD: setup.sentinelPassword,
      },
    });
    const job = await insertJob(db, { name: 'url', schedule: '* * * * * *', prompt: 'hi' });
    await waitFor(
      async () =>
        expect((await runsOf(db, [job.id])).some((r) => r.status === 'success')).toBe(true),
      { timeoutMs: 10_000, intervalMs: 100, what: 'a run' },
    );
    const lock = await withClient(setup.primary.port, setup.password, (redis) =>
      redis.get(`hermesx:cron:lock:${job.id}`),
    );
    expect(lock, 'the lock lives on the primary the sentinels named').toMatch(/^(run|done)\|/);
    expect(linesWithMessage(pod, 'redis: connected to the primary')[0]).toContain(
      `primary=127.0.0.1:${setup.primary.port}`,
    );
  }, 60_000);
});

describe('Redis Cluster failover', () => {
  it('three pods on a 3-primary cluster ride out a killed primary whose replica takes over', async () => {
    const setup = await startClusterSetup({ nodeTimeoutMs: 5000 });
    cleanups.push(setup.cleanup);
    const env = { REDIS_CLUSTER_NODES: setup.nodeList, REDIS_PASSWORD: setup.password };
    const before = await setup.topology(setup.nodes[0]!.port);
    const victim = before.find((node) => node.role === 'master')!;
    const heir = before.find((node) => node.primaryPort === victim.port)!;
    const victimProcess = setup.nodes.find((node) => node.port === victim.port)!;
    const { report, pods } = await exerciseFailover({ databaseUrl, db, llm }, 'cluster', env, () =>
      victimProcess.kill(),
    );
    const after = await setup.topology(heir.port);
    expect(after.find((node) => node.port === heir.port)?.role).toBe('master');
    expect(report.resumeMs.length).toBe(3);
    for (const pod of pods) {
      expect(
        linesWithMessage(pod, `redis failover: new primary 127.0.0.1:${heir.port}`),
        `${pod.podId} logs the new primary`,
      ).toHaveLength(1);
    }
  }, 120_000);
});
