// The result sweeper as a service on real PostgreSQL and a directory store, its time a fake
// clock: rounds come each interval and the grace is measured on that clock, so an orphan goes at
// the first round past its grace and not before; a failed round is retried after 1, 2 … minutes
// up to the interval; stop leaves no timer.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pool } from '../../src/db/pool.js';
import { DiskObjectStore } from '../../src/storage/disk-store.js';
import { ResultSweeper } from '../../src/storage/result-sweeper.js';
import { runResultKey } from '../../src/storage/run-results.js';
import { createAppPool, createTestDatabase } from '../helpers/database.js';
import { capturingLogger, silentLogger } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';
import { FakeClock } from '../kit/clock.js';

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

let owner: pg.Client;
let pool: Pool;
let root: string;

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  owner = new pg.Client({ connectionString: databaseUrl });
  await owner.connect();
  pool = createAppPool(databaseUrl);
  root = await mkdtemp(path.join(os.tmpdir(), 'hermesx-sweep-clock-'));
});

afterAll(async () => {
  await pool?.end();
  await owner?.end();
  await rm(root, { recursive: true, force: true });
});

/** Waits (real time, with a deadline) for the round under way to end: the next one is planned. */
async function roundEnded(clock: FakeClock): Promise<void> {
  await waitFor(() => expect(clock.pendingTimers).toBe(1), {
    timeoutMs: 10_000,
    what: 'the round to end',
  });
}

describe('the result sweeper on a clock', () => {
  it('deletes an orphan at the first round past its grace on the clock, and keeps a recorded run', async () => {
    const tenantId = randomUUID();
    const jobId = randomUUID();
    await owner.query(`INSERT INTO tenants (id, name) VALUES ($1, 'sweep')`, [tenantId]);
    await owner.query(
      `INSERT INTO cron_jobs (id, tenant_id, name, schedule, prompt)
       VALUES ($1, $2, 'digest', '0 8 * * *', 'summarise')`,
      [jobId, tenantId],
    );
    const { rows } = await owner.query<{ id: string }>(
      `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, pod_id)
       VALUES ($1, $2, now(), 'success', 'pod-a') RETURNING id`,
      [jobId, tenantId],
    );
    // A minute behind the objects' times, which the file system may round down a little.
    const clock = new FakeClock(Date.now() - MINUTE_MS);
    const store = new DiskObjectStore(root);
    const orphan = runResultKey({ tenantId, jobId, runId: randomUUID() });
    const recorded = runResultKey({ tenantId, jobId, runId: rows[0]!.id });
    await store.put(orphan, 'nobody points at me');
    await store.put(recorded, 'the run row points at me');
    const sweeper = new ResultSweeper({
      pool,
      store,
      log: silentLogger(),
      clock,
      settings: { graceMs: 2 * HOUR_MS, intervalMs: HOUR_MS },
    });
    sweeper.start();
    try {
      expect(clock.nextTimerMs()).toBe(clock.now() + HOUR_MS);
      // Rounds at one and two hours: the orphan is not older than the grace yet.
      for (let round = 1; round <= 2; round++) {
        await clock.advanceTo(clock.nextTimerMs()!);
        await roundEnded(clock);
        expect(await store.get(orphan)).not.toBeNull();
      }
      await clock.advanceTo(clock.nextTimerMs()!);
      await roundEnded(clock);
      expect(await store.get(orphan)).toBeNull();
      expect(await store.get(recorded)).not.toBeNull();
    } finally {
      await sweeper.stop();
    }
    expect(clock.pendingTimers).toBe(0);
  });

  it('retries a failed round after 1, 2, 4 … minutes, never later than the interval', async () => {
    const clock = new FakeClock(Date.now());
    const { log, lines } = capturingLogger('json');
    const broken = createAppPool('postgres://nobody:wrong@127.0.0.1:1/none');
    const store = new DiskObjectStore(root);
    const sweeper = new ResultSweeper({
      pool: broken,
      store,
      log,
      clock,
      settings: { intervalMs: 3 * MINUTE_MS },
    });
    sweeper.start();
    try {
      await clock.advance(3 * MINUTE_MS);
      const delays: number[] = [];
      for (let failed = 1; failed <= 3; failed++) {
        await roundEnded(clock);
        delays.push(clock.nextTimerMs()! - clock.now());
        await clock.advanceTo(clock.nextTimerMs()!);
      }
      expect(delays).toEqual([MINUTE_MS, 2 * MINUTE_MS, 3 * MINUTE_MS]);
      const failures = lines
        .map((text) => JSON.parse(text) as Record<string, unknown>)
        .filter((line) => line.msg === 'orphaned result objects not swept');
      expect(failures.slice(0, 3)).toEqual(
        [1, 2, 3].map((count) =>
          expect.objectContaining({
            failures: count,
            object_store: store.description,
            retry_in_ms: Math.min(3, 2 ** (count - 1)) * MINUTE_MS,
          }),
        ),
      );
    } finally {
      await sweeper.stop();
      await broken.end();
    }
  });
});
