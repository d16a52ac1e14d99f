// The application pool: every connection runs as hermesx_app, and no query hangs for ever.
import { describe, expect, it } from 'vitest';
import { createPool } from '../../src/db/pool.js';
import { createTestDatabase } from '../helpers/database.js';
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
});
