// The audit upkeep service: its first round runs at start, so a fresh installation has this
// month's partition and the two after; stop ends it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditUpkeep } from '../../src/audit/upkeep.js';
import type { Pool } from '../../src/db/pool.js';
import { createAppPool, createTestDatabase, withOwner } from '../helpers/database.js';
import { silentLogger } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';

describe('the audit upkeep service', () => {
  let url: string;
  let pool: Pool;

  beforeAll(async () => {
    url = await createTestDatabase();
    pool = createAppPool(url);
  });

  afterAll(async () => {
    await pool?.end();
  });

  it('creates the months ahead at start, and stops', async () => {
    const partitions = () =>
      withOwner(url, async (owner) => {
        const { rows } = await owner.query<{ relname: string }>(
          `SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = 'audit_log'::regclass AND c.relname <> 'audit_log_default'
            ORDER BY 1`,
        );
        return rows.map((row) => row.relname);
      });
    expect(await partitions()).toEqual([]);
    const upkeep = new AuditUpkeep({ pool, log: silentLogger() });
    upkeep.start();
    const made = await waitFor(
      async () => {
        const names = await partitions();
        if (names.length < 3) throw new Error(`partitions so far: ${names.join(', ')}`);
        return names;
      },
      { timeoutMs: 10_000, what: 'three monthly partitions' },
    );
    const month = (offset: number) => {
      const now = new Date();
      const date = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1));
      return `audit_log_p${date.toISOString().slice(0, 7).replace('-', '')}`;
    };
    expect(made).toEqual([month(0), month(1), month(2)]);
    await upkeep.stop();
  });
});
