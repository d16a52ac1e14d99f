// The sweep of orphaned result objects on real PostgreSQL, over both object store adapters (a
// directory, and S3 through s3rver): an object with no run row older than the grace is deleted,
// one of a recorded run is kept, one newer than the grace is kept, one whose row retention
// removed goes, and a round is bounded and goes on where it stopped.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, utimes } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pool } from '../../src/db/pool.js';
import { DiskObjectStore } from '../../src/storage/disk-store.js';
import { objectKey, type ObjectStore } from '../../src/storage/object-store.js';
import {
  ResultSweeper,
  sweepCandidates,
  sweepOrphanResults,
  SWEEP_START,
} from '../../src/storage/result-sweeper.js';
import { runResultKey } from '../../src/storage/run-results.js';
import { S3ObjectStore } from '../../src/storage/s3-store.js';
import { createAppPool, createTestDatabase } from '../helpers/database.js';
import { capturingLogger, loggedLine, silentLogger } from '../helpers/log.js';
import { startS3Server, type S3Server } from '../helpers/s3-server.js';

const HOUR_MS = 3_600_000;
const GRACE_MS = 24 * HOUR_MS;

let owner: pg.Client;
let pool: Pool;
let s3: S3Server;
let diskRoot: string;

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  owner = new pg.Client({ connectionString: databaseUrl });
  await owner.connect();
  pool = createAppPool(databaseUrl);
  s3 = await startS3Server();
  diskRoot = await mkdtemp(path.join(os.tmpdir(), 'hermesx-sweep-'));
});

afterAll(async () => {
  await pool?.end();
  await owner?.end();
  await s3?.close();
  await rm(diskRoot, { recursive: true, force: true });
});

async function newJob(): Promise<{ tenantId: string; jobId: string }> {
  const tenantId = randomUUID();
  const jobId = randomUUID();
  await owner.query(`INSERT INTO tenants (id, name) VALUES ($1, 'sweep')`, [tenantId]);
  await owner.query(
    `INSERT INTO cron_jobs (id, tenant_id, name, schedule, prompt)
     VALUES ($1, $2, 'digest', '0 8 * * *', 'summarise')`,
    [jobId, tenantId],
  );
  return { tenantId, jobId };
}

/** A run recorded with its result in the store, as the scheduler records a long answer. */
async function recordRun(job: { tenantId: string; jobId: string }, runId: string, key: string) {
  await owner.query(
    `INSERT INTO cron_job_runs (id, cron_job_id, tenant_id, scheduled_at, status, pod_id,
                                finished_at, result, result_object_key, result_bytes)
     VALUES ($1, $2, $3, now() - interval '2 days', 'success', 'pod-a', now(), 'short', $4, 9000)`,
    [runId, job.jobId, job.tenantId, key],
  );
}

const adapters: { name: string; open: () => Promise<ObjectStore> }[] = [
  { name: 'disk', open: () => Promise.resolve(new DiskObjectStore(diskRoot)) },
  {
    name: 's3',
    open: async () => {
      const store = new S3ObjectStore({
        source: 'S3_*',
        endpoint: s3.endpoint,
        bucket: 'sweep-test',
        region: 'us-east-1',
        accessKeyId: 'S3RVER',
        secretAccessKey: 'S3RVER',
      });
      await store.ensureBucket();
      return store;
    },
  },
];

describe.each(adapters)('the result sweep on $name', (adapter) => {
  let store: ObjectStore;
  beforeAll(async () => {
    store = await adapter.open();
  });
  afterAll(() => store.close());

  it('deletes an orphan past the grace, keeps a recorded run’s and a newer orphan', async () => {
    const job = await newJob();
    const orphanRun = randomUUID();
    const recordedRun = randomUUID();
    const orphan = runResultKey({ ...job, runId: orphanRun });
    const recorded = runResultKey({ ...job, runId: recordedRun });
    // Not a run result: left alone whatever its age.
    const other = objectKey(job.tenantId, 'runs', job.jobId, 'notes.md');
    for (const key of [orphan, recorded, other]) await store.put(key, `answer ${key}`);
    await recordRun(job, recordedRun, recorded);
    const deps = { pool, store, log: silentLogger(), settings: { graceMs: GRACE_MS } };

    // Now: every object is seconds old, inside the grace: nothing goes.
    const early = await sweepOrphanResults({ ...deps, now: () => new Date() });
    expect(early.tally.deleted).toBe(0);
    for (const key of [orphan, recorded, other]) expect(await store.get(key)).not.toBeNull();

    // A day and an hour later: the orphan goes, the recorded run's stays.
    const later = () => new Date(Date.now() + GRACE_MS + HOUR_MS);
    const swept = await sweepOrphanResults({ ...deps, now: later });
    expect(swept.tally).toMatchObject({ deleted: 1, complete: true });
    expect(swept.cursor).toEqual(SWEEP_START);
    expect(await store.get(orphan)).toBeNull();
    expect((await store.get(recorded))?.toString()).toBe(`answer ${recorded}`);
    expect(await store.get(other)).not.toBeNull();

    // Retention removes the run's row: its object goes on the next round.
    await owner.query('DELETE FROM cron_job_runs WHERE id = $1', [recordedRun]);
    await sweepOrphanResults({ ...deps, now: later });
    expect(await store.get(recorded)).toBeNull();
    expect(await store.get(other)).not.toBeNull();
  });

  it('is bounded per round and goes on from where it stopped', async () => {
    // One orphan per tenant, so that no listing is cut short: s3rver answers a truncated
    // ListObjectsV2 with an internal error (object-store.test.ts pages on disk instead).
    const keys: string[] = [];
    for (let i = 0; i < 4; i++) {
      const job = await newJob();
      const key = runResultKey({ ...job, runId: randomUUID() });
      await store.put(key, 'orphan');
      keys.push(key);
    }
    const deps = {
      pool,
      store,
      log: silentLogger(),
      now: () => new Date(Date.now() + GRACE_MS + HOUR_MS),
      settings: { graceMs: GRACE_MS, maxObjectsPerRound: 2 },
    };
    let cursor = SWEEP_START;
    let rounds = 0;
    for (;;) {
      const round = await sweepOrphanResults(deps, cursor);
      expect(round.tally.listed).toBeLessThanOrEqual(2);
      rounds += 1;
      cursor = round.cursor;
      if (round.tally.complete) break;
      expect(rounds).toBeLessThan(20);
    }
    expect(rounds).toBeGreaterThan(1);
    for (const key of keys) expect(await store.get(key)).toBeNull();
  });
});

describe('the result sweep', () => {
  it('judges age and shape without I/O', () => {
    const now = new Date('2026-12-01T12:00:00Z');
    const tenant = randomUUID();
    const run = randomUUID();
    const at = (hoursAgo: number) => new Date(now.getTime() - hoursAgo * HOUR_MS);
    const key = `${tenant}/runs/job/${run}.txt`;
    expect(
      sweepCandidates(
        [
          { key, sizeBytes: 1, modifiedAt: at(25) },
          { key: `${tenant}/runs/job/${randomUUID()}.txt`, sizeBytes: 1, modifiedAt: at(23) },
          { key: `${tenant}/runs/job/readme.txt`, sizeBytes: 1, modifiedAt: at(99) },
        ],
        now,
        GRACE_MS,
      ),
    ).toEqual([{ key, runId: run }]);
  });

  it('runs in the background, mixed ages in one round (disk dates set back), with a log line', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'hermesx-sweep-bg-'));
    const store = new DiskObjectStore(root);
    const job = await newJob();
    const old = runResultKey({ ...job, runId: randomUUID() });
    const fresh = runResultKey({ ...job, runId: randomUUID() });
    await store.put(old, 'old orphan');
    await store.put(fresh, 'new orphan');
    const twoDaysAgo = new Date(Date.now() - 2 * GRACE_MS);
    await utimes(path.join(root, ...old.split('/')), twoDaysAgo, twoDaysAgo);
    const { log, lines } = capturingLogger('json');
    const sweeper = new ResultSweeper({
      pool,
      store,
      log,
      settings: { graceMs: GRACE_MS, intervalMs: 20 },
    });
    sweeper.start();
    try {
      // The round logs after its last delete, so the line, not the object's absence, ends it.
      const line = await loggedLine(lines, 'orphaned result objects swept');
      expect(JSON.parse(line)).toMatchObject({ orphans_deleted: 1, complete: true });
      expect(await store.get(old)).toBeNull();
      expect(await store.get(fresh)).not.toBeNull();
    } finally {
      await sweeper.stop();
      await rm(root, { recursive: true, force: true });
    }
  });

  it('logs a failed round with context and tries again', async () => {
    const store = new DiskObjectStore(diskRoot);
    const broken = createAppPool('postgres://nobody:wrong@127.0.0.1:1/none');
    const { log, lines } = capturingLogger('json');
    const sweeper = new ResultSweeper({
      pool: broken,
      store,
      log,
      settings: { intervalMs: 20 },
    });
    sweeper.start();
    try {
      const line = JSON.parse(await loggedLine(lines, 'orphaned result objects not swept'));
      expect(line).toMatchObject({ failures: 1, object_store: store.description });
      expect(line.retry_in_ms).toBe(20);
    } finally {
      await sweeper.stop();
      await broken.end();
    }
  });
});
