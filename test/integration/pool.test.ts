// The application pool: every connection runs as hermesx_app, no query hangs for ever, and a
// connection PostgreSQL ends (a restart) fails its work, never the process.
import { describe, expect, it } from 'vitest';
import { createPool, withAdmin, type PoolClient } from '../../src/db/pool.js';
import { createTestDatabase, withOwner } from '../helpers/database.js';
import { silentLogger } from '../helpers/log.js';

describe('application pool', () => {
  it('fails a query that outlives the query timeout and goes on serving', async () => {
    const pool = createPool(await createTestDatabase(), silentLogger(), {
      max: 1,
      queryTimeoutMs: 300,
    });
    try {
      await expect(pool.query('SELECT pg_sleep(2)')).rejects.toThrow(/timeout/i);
      const { rows } = await pool.query<{ role: string }>('SELECT current_user AS role');
      expect(rows).toEqual([{ role: 'hermesx_app' }]);
    } finally {
      await pool.end();
    }
  });

  // A PostgreSQL restart ends every connection, also those a transaction (a claim, the planning
  // sweep, an API request) holds between two statements: pg then emits 'error' on the client,
  // which the pool listens to only while the connection is idle. Unheard, it ended the process.
  it('outlives PostgreSQL ending a connection a transaction holds, and goes on serving', async () => {
    const url = await createTestDatabase();
    const pool = createPool(url, silentLogger(), { max: 2 });
    const endBackend = async (client: PoolClient) => {
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const ended = new Promise((resolve) => client.once('end', resolve));
      await withOwner(url, (owner) =>
        owner.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]),
      );
      // Ended while no statement of it was under way.
      await ended;
    };
    try {
      const transaction = withAdmin(pool, async (client) => {
        await endBackend(client);
        await client.query('SELECT 1');
      });
      await expect(transaction).rejects.toThrow(/not queryable|terminat/i);
      const held = await pool.connect();
      await endBackend(held);
      held.release(true);
      const { rows } = await pool.query<{ role: string }>('SELECT current_user AS role');
      expect(rows).toEqual([{ role: 'hermesx_app' }]);
      expect(pool.totalCount).toBe(1);
    } finally {
      await pool.end();
    }
  });
});
