import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MigrationError, migrate } from '../../src/db/migrate.js';
import { createTestDatabase, withOwner } from '../helpers/database.js';
import { silentLogger } from '../helpers/log.js';
import { dumpSchema } from '../helpers/schema-dump.js';

// The migrations as they stood before the baseline, exactly as installations applied them.
const PRE_BASELINE_DIR = path.resolve(import.meta.dirname, '../fixtures/pre-baseline-migrations');
const TENANT = '00000000-0000-0000-0000-000000000001';

async function schemaOf(url: string): Promise<string> {
  return withOwner(url, (client) => dumpSchema(client));
}

describe('a database migrated before the baseline', () => {
  it('moves onto the baseline with its rows in place and the schema of a fresh one', async () => {
    const old = await createTestDatabase({ migrate: false });
    await migrate(old, silentLogger(), PRE_BASELINE_DIR);
    const runIds = await withOwner(old, async (client) => {
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt) VALUES ($1, 'kept', '@hourly', 'hi')
         RETURNING id`,
        [TENANT],
      );
      const jobId = rows[0]!.id;
      const runs = await client.query<{ id: string }>(
        `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, pod_id, result)
         SELECT $1, $2, timestamptz '2026-01-01' + make_interval(hours => n), 'success', 'pod-a', 'ok'
           FROM generate_series(1, 3) AS n RETURNING id`,
        [jobId, TENANT],
      );
      return runs.rows.map((row) => row.id).sort();
    });

    const applied = await migrate(old, silentLogger());
    // Only the function files and migrations newer than the baseline (107) run: the tables
    // of the baseline are already there.
    const numbered = applied.filter((name) => !name.startsWith('functions/'));
    expect(numbered.filter((name) => Number(/^(\d+)_/.exec(name)?.[1] ?? 0) <= 107)).toEqual([]);
    expect(applied).toContain('functions/scheduler_claim.sql');

    const fresh = await createTestDatabase();
    expect(await schemaOf(old)).toBe(await schemaOf(fresh));
    const kept = await withOwner(old, async (client) => {
      const { rows } = await client.query<{ id: string }>('SELECT id FROM cron_job_runs');
      return rows.map((row) => row.id).sort();
    });
    expect(kept).toEqual(runIds);
    const obsolete = await withOwner(old, async (client) => {
      const { rows } = await client.query<{ proname: string }>(
        `SELECT proname FROM pg_proc WHERE proname IN ('scheduler_claim_runs', 'scheduler_finish_runs',
           'scheduler_fail_named_runs', 'scheduler_running_runs', 'scheduler_fail_runs')`,
      );
      return rows;
    });
    expect(obsolete).toEqual([]);
    expect(await migrate(old, silentLogger())).toEqual([]);
  });

  it('refuses one that stopped part-way through the old migrations, naming what is missing', async () => {
    const old = await createTestDatabase({ migrate: false });
    await migrate(old, silentLogger(), PRE_BASELINE_DIR);
    await withOwner(old, (client) =>
      client.query("DELETE FROM schema_migrations WHERE name = '130_admin_cluster_runs.sql'"),
    );
    const attempt = migrate(old, silentLogger());
    await expect(attempt).rejects.toBeInstanceOf(MigrationError);
    await expect(attempt).rejects.toThrow(/missing 130_admin_cluster_runs\.sql/);
  });
});

describe('function files', () => {
  it('are applied again when changed, dropping the old overload, and dropped when removed', async () => {
    const url = await createTestDatabase();
    const read = () =>
      withOwner(url, async (client) => {
        const { rows } = await client.query<{ checksum: string }>(
          "SELECT checksum FROM schema_functions WHERE name = 'scheduler_claim'",
        );
        return rows[0]?.checksum;
      });
    expect(await read()).toMatch(/^[0-9a-f]{64}$/);
    // A second run with nothing changed applies nothing.
    expect(await migrate(url, silentLogger())).toEqual([]);
    // A checksum that no longer matches (an edited file) makes the file apply again.
    await withOwner(url, (client) =>
      client.query("UPDATE schema_functions SET checksum = 'old' WHERE name = 'scheduler_claim'"),
    );
    expect(await migrate(url, silentLogger())).toEqual(['functions/scheduler_claim.sql']);
    const overloads = await withOwner(url, async (client) => {
      const { rows } = await client.query('SELECT 1 FROM pg_proc WHERE proname = $1', [
        'scheduler_claim',
      ]);
      return rows.length;
    });
    expect(overloads).toBe(1);
    // A function recorded but no longer on disk is dropped.
    await withOwner(url, async (client) => {
      await client.query(
        'CREATE FUNCTION scheduler_gone() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$',
      );
      await client.query(
        "INSERT INTO schema_functions (name, checksum) VALUES ('scheduler_gone', 'x')",
      );
    });
    expect(await migrate(url, silentLogger())).toEqual([]);
    const gone = await withOwner(url, async (client) => {
      const { rows } = await client.query("SELECT 1 FROM pg_proc WHERE proname = 'scheduler_gone'");
      return rows.length;
    });
    expect(gone).toBe(0);
  });
});
