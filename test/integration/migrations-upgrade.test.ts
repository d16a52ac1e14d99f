// A database migrated by an earlier version and a fresh one end up with the same schema, and the
// trigger functions of migrations/functions/ are applied (again) without losing a trigger.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR, MigrationError, migrate } from '../../src/db/migrate.js';
import { readFunctionFiles } from '../../src/db/migrate-functions.js';
import { createTestDatabase, withOwner } from '../helpers/database.js';
import { silentLogger } from '../helpers/log.js';
import { dumpSchema } from '../helpers/schema-dump.js';

const TENANT = '00000000-0000-0000-0000-000000000001';
/** The last numbered migration of main at 09387b6, before the trigger functions had files. */
const PREVIOUS_MAIN_LAST_VERSION = 314;
const FUNCTIONS_DIR = path.join(MIGRATIONS_DIR, 'functions');
const TRIGGER_FILES = (await readFunctionFiles(FUNCTIONS_DIR))
  .filter((file) => file.trigger)
  .map((file) => `functions/${file.name}.sql`);

const scratch = mkdtempSync(path.join(os.tmpdir(), 'hermesx-migrations-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * A copy of migrations/ in the scratch directory: the numbered files up to `lastVersion`, the
 * function files `keep` accepts, then `extra` files (path → SQL).
 */
function migrationsCopy(
  name: string,
  lastVersion: number,
  keep: (file: string) => boolean,
  extra: Record<string, string> = {},
): string {
  const dir = path.join(scratch, name);
  cpSync(MIGRATIONS_DIR, dir, {
    recursive: true,
    filter: (source) => {
      const relative = path.relative(MIGRATIONS_DIR, source);
      if (relative === '' || relative === 'functions') return true;
      if (relative.startsWith('functions/')) return keep(relative);
      return Number.parseInt(relative, 10) <= lastVersion;
    },
  });
  for (const [file, sql] of Object.entries(extra)) writeFileSync(path.join(dir, file), sql);
  return dir;
}

async function schemaOf(url: string): Promise<string> {
  return withOwner(url, (client) => dumpSchema(client));
}

describe('a database migrated by the previous main (09387b6)', () => {
  it('reaches the schema of a fresh one, rows and in-flight bookkeeping in place', async () => {
    // That main had the numbered migrations up to 314 as they are now (an applied migration is
    // never edited: the runner refuses it), and a file for every function but the triggers'.
    expect(TRIGGER_FILES).toContain('functions/cron_job_runs_retry_attempt.sql');
    const previous = migrationsCopy(
      'previous-main',
      PREVIOUS_MAIN_LAST_VERSION,
      (file) => !TRIGGER_FILES.includes(file),
    );
    const old = await createTestDatabase({ migrate: false });
    await migrate(old, silentLogger(), previous);
    const jobId = await withOwner(old, async (client) => {
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt, retry_max_attempts,
                                retry_backoff_ms)
         VALUES ($1, 'kept', '@hourly', 'hi', 3, 1000) RETURNING id`,
        [TENANT],
      );
      await client.query(
        `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, pod_id)
         SELECT $1, $2, timestamptz '2030-01-01' + make_interval(hours => n),
                CASE n WHEN 1 THEN 'running' ELSE 'success' END, 'pod-a'
           FROM generate_series(1, 3) AS n`,
        [rows[0]!.id, TENANT],
      );
      return rows[0]!.id;
    });

    const applied = await migrate(old, silentLogger());
    const numbered = applied.filter((name) => !name.startsWith('functions/'));
    expect(
      numbered.filter((name) => Number.parseInt(name, 10) <= PREVIOUS_MAIN_LAST_VERSION),
    ).toEqual([]);
    expect(applied).toEqual(expect.arrayContaining(TRIGGER_FILES));

    const fresh = await createTestDatabase();
    expect(await schemaOf(old)).toBe(await schemaOf(fresh));

    // The triggers fire with the bodies of the files: a retryable failure of the running run
    // goes back to the queue and leaves the in-flight table.
    const after = await withOwner(old, async (client) => {
      await client.query(
        `UPDATE cron_job_runs SET status = 'failed', error_kind = 'pod_lost', error = 'gone'
          WHERE cron_job_id = $1 AND status = 'running'`,
        [jobId],
      );
      const runs = await client.query<{ status: string; n: number }>(
        `SELECT status, count(*)::int AS n FROM cron_job_runs WHERE cron_job_id = $1
          GROUP BY status ORDER BY status`,
        [jobId],
      );
      const inFlight = await client.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM cron_job_runs_in_flight',
      );
      return { runs: runs.rows, inFlight: inFlight.rows[0]?.n };
    });
    expect(after).toEqual({
      runs: [
        { status: 'queued', n: 1 },
        { status: 'success', n: 2 },
      ],
      inFlight: 0,
    });
    expect(await migrate(old, silentLogger())).toEqual([]);
  });
});

describe('trigger-function files', () => {
  it('are applied again in place when changed: every trigger stays', async () => {
    const url = await createTestDatabase();
    const before = await schemaOf(url);
    await withOwner(url, (client) =>
      client.query("UPDATE schema_functions SET checksum = 'old' WHERE name = ANY ($1)", [
        TRIGGER_FILES.map((file) => path.basename(file, '.sql')),
      ]),
    );
    expect((await migrate(url, silentLogger())).sort()).toEqual([...TRIGGER_FILES].sort());
    expect(await schemaOf(url)).toBe(before);
  });

  it('are in place before a numbered migration after 314, which may create a trigger on one', async () => {
    const dir = migrationsCopy('new-trigger', Number.MAX_SAFE_INTEGER, () => true, {
      'functions/tenants_probe_touched.sql': `
        CREATE OR REPLACE FUNCTION tenants_probe_touched() RETURNS trigger
          LANGUAGE plpgsql AS $$ BEGIN NEW.name := NEW.name || ' (touched)'; RETURN NEW; END $$;
        REVOKE ALL ON FUNCTION tenants_probe_touched() FROM PUBLIC;`,
      '999_tenants_probe.sql': `
        CREATE TRIGGER tenants_probe_touched BEFORE UPDATE OF name ON tenants
          FOR EACH ROW EXECUTE FUNCTION tenants_probe_touched();`,
    });
    const url = await createTestDatabase({ migrate: false });
    const applied = await migrate(url, silentLogger(), dir);
    expect(applied.indexOf('functions/tenants_probe_touched.sql')).toBeLessThan(
      applied.indexOf('999_tenants_probe.sql'),
    );
    expect(applied.filter((name) => name === 'functions/tenants_probe_touched.sql')).toHaveLength(
      1,
    );
    const name = await withOwner(url, async (client) => {
      const { rows } = await client.query<{ name: string }>(
        "UPDATE tenants SET name = 'renamed' WHERE id = $1 RETURNING name",
        [TENANT],
      );
      return rows[0]?.name;
    });
    expect(name).toBe('renamed (touched)');
  });

  it('must say CREATE OR REPLACE: one that would be dropped to be applied again is refused', async () => {
    const dir = migrationsCopy('plain-create', Number.MAX_SAFE_INTEGER, () => true, {
      'functions/tenants_probe_plain.sql': `
        CREATE FUNCTION tenants_probe_plain() RETURNS trigger
          LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;`,
    });
    const url = await createTestDatabase({ migrate: false });
    const attempt = migrate(url, silentLogger(), dir);
    await expect(attempt).rejects.toBeInstanceOf(MigrationError);
    await expect(attempt).rejects.toThrow(
      /functions\/tenants_probe_plain\.sql returns trigger.*CREATE OR REPLACE FUNCTION/,
    );
  });

  it('are the trigger functions in force', async () => {
    const url = await createTestDatabase();
    const inForce = await withOwner(url, async (client) => {
      const { rows } = await client.query<{ name: string }>(
        `SELECT p.proname AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
          WHERE n.nspname = 'public' AND p.prorettype = 'trigger'::regtype
          ORDER BY 1`,
      );
      return rows.map((row) => `functions/${row.name}.sql`);
    });
    expect(inForce).toEqual([...TRIGGER_FILES].sort());
  });
});
