// The idempotency sweeper as a service on real PostgreSQL, its time a fake clock: expired answers
// of every tenant go at each interval (not before), fresh ones stay; a failed round is logged and
// retried after 2, 4 … intervals up to the cap; stop leaves nothing behind.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pool } from '../../src/db/pool.js';
import { IdempotencySweeper } from '../../src/http/idempotency-sweeper.js';
import { createAppPool, createTestDatabase } from '../helpers/database.js';
import { capturingLogger, loggedLine } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';
import { FakeClock } from '../kit/clock.js';

const MINUTE_MS = 60_000;
const INTERVAL_MS = 10 * MINUTE_MS;

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

/** The pool, counting the sweep statements it is sent (a round begins with one). */
function countingPool(inner: Pool): { pool: Pool; sweeps: () => number } {
  let sweeps = 0;
  const counted = new Proxy(inner, {
    get(target, property, receiver) {
      if (property !== 'query') return Reflect.get(target, property, receiver) as unknown;
      return (...args: unknown[]) => {
        if (String(args[0]).includes('idempotency_sweep')) sweeps += 1;
        return (target.query as (...a: unknown[]) => unknown)(...args);
      };
    },
  });
  return { pool: counted, sweeps: () => sweeps };
}

async function keysOf(tenantId: string): Promise<string[]> {
  const { rows } = await owner.query<{ key: string }>(
    'SELECT key FROM idempotency_keys WHERE tenant_id = $1 ORDER BY key',
    [tenantId],
  );
  return rows.map((row) => row.key);
}

describe('the idempotency sweeper', () => {
  it('sweeps expired answers of every tenant each interval on its clock, and keeps fresh ones', async () => {
    const tenants = [randomUUID(), randomUUID()];
    for (const id of tenants) {
      await owner.query(`INSERT INTO tenants (id, name) VALUES ($1, 'idempotency')`, [id]);
      await owner.query(
        `INSERT INTO idempotency_keys (tenant_id, scope, key, request_hash, status_code, response, created_at)
         VALUES ($1, 'chat.completions', 'old', 'h', 200, '{}'::jsonb, now() - interval '25 hours'),
                ($1, 'chat.completions', 'fresh', 'h', 200, '{}'::jsonb, now())`,
        [id],
      );
    }
    const clock = new FakeClock(Date.now());
    const { log, lines } = capturingLogger('json');
    const counted = countingPool(pool);
    const sweeper = new IdempotencySweeper({ pool: counted.pool, log, clock });
    sweeper.start();
    try {
      await clock.advance(INTERVAL_MS - 1);
      expect(counted.sweeps()).toBe(0);
      await clock.advance(1);
      expect(counted.sweeps()).toBe(1);
      await waitFor(
        async () => {
          for (const id of tenants) expect(await keysOf(id)).toEqual(['fresh']);
        },
        { timeoutMs: 10_000, what: 'the expired keys swept' },
      );
      const line = JSON.parse(await loggedLine(lines, 'expired keys swept')) as Record<
        string,
        unknown
      >;
      expect(line.deleted).toBeGreaterThanOrEqual(2);
      // The next round is one interval after this one ended.
      await waitFor(() => expect(clock.nextTimerMs()).toBe(clock.now() + INTERVAL_MS), {
        timeoutMs: 10_000,
        what: 'the next round planned',
      });
    } finally {
      await sweeper.stop();
    }
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(2 * INTERVAL_MS);
    expect(counted.sweeps()).toBe(1);
  });

  it('logs a failed round and retries after 2, 4, then 6 intervals (the cap)', async () => {
    const clock = new FakeClock(Date.now());
    const { log, lines } = capturingLogger('json');
    const broken = createAppPool('postgres://nobody:wrong@127.0.0.1:1/none');
    const sweeper = new IdempotencySweeper({
      pool: broken,
      log,
      clock,
      settings: { maxBackoffMs: 6 * INTERVAL_MS },
    });
    sweeper.start();
    const failures = () =>
      lines
        .map((text) => JSON.parse(text) as Record<string, unknown>)
        .filter((line) => line.msg === 'idempotency: sweep failed, retrying later');
    try {
      await clock.advance(INTERVAL_MS);
      const delays: number[] = [];
      for (let failed = 1; failed <= 3; failed++) {
        await waitFor(() => expect(failures()).toHaveLength(failed), {
          timeoutMs: 10_000,
          what: `failure ${failed}`,
        });
        const next = await waitFor(
          () => {
            const due = clock.nextTimerMs();
            expect(due).toBeDefined();
            return due!;
          },
          { timeoutMs: 10_000, what: 'the retry planned' },
        );
        delays.push(next - clock.now());
        await clock.advanceTo(next);
      }
      expect(delays).toEqual([2 * INTERVAL_MS, 4 * INTERVAL_MS, 6 * INTERVAL_MS]);
      expect(failures()[0]).toMatchObject({ failures: 1, level: 'WARN' });
      expect(String(failures()[0]!.error)).not.toBe('');
    } finally {
      await sweeper.stop();
      await broken.end();
    }
  });
});
