import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { Logger } from '../log.js';
import { BASELINE_LAST_VERSION, adoptBaseline } from './migrate-baseline.js';
import {
  applyFunctionFiles,
  createTriggerFunctions,
  readFunctionFiles,
  TRIGGER_FUNCTIONS_FIRST_VERSION,
  type FunctionFile,
} from './migrate-functions.js';

/** migrations/ at the repository root, from src/db or dist/db alike. */
export const MIGRATIONS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../migrations',
);

// Any constant shared by every replica: they all queue on this one lock.
const MIGRATION_LOCK_KEY = 4_242_017;
const MIN_SERVER_VERSION = 160000;

export class MigrationError extends Error {
  override name = 'MigrationError';
}

interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

/**
 * Applies every numbered .sql file not applied yet, each in its own transaction, then every
 * function file of functions/ that changed (migrate-functions.ts), as the DATABASE_URL user (the
 * schema owner). A new trigger-function file is applied before the numbered migrations from
 * TRIGGER_FUNCTIONS_FIRST_VERSION on, which may create triggers on it. Replicas serialise on an
 * advisory lock, so a second one waits for the first and then finds nothing left to do. Returns the names applied (function files as functions/<name>.sql).
 */
export async function migrate(
  databaseUrl: string,
  log: Logger,
  dir: string = MIGRATIONS_DIR,
): Promise<string[]> {
  const migrations = await readMigrations(dir);
  const functions = await readFunctionFiles(path.join(dir, 'functions'));
  const client = new pg.Client({
    connectionString: databaseUrl,
    application_name: 'hermesx-migrate',
  });
  await client.connect();
  try {
    await assertServerVersion(client);
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      const applied = await applyPending(client, migrations, functions, log);
      const appliedFunctions = await applyFunctionFiles(client, functions, log, fail);
      await ensureCanSetAppRole(client);
      return [...applied, ...appliedFunctions];
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await client.end();
  }
}

/** Refuses a server older than PostgreSQL 16 with a message an operator can act on. */
export async function assertServerVersion(client: pg.ClientBase): Promise<void> {
  const { rows } = await client.query<{ v: string; text: string }>(
    "SELECT current_setting('server_version_num') AS v, current_setting('server_version') AS text",
  );
  const row = rows[0];
  if (!row || Number(row.v) < MIN_SERVER_VERSION) {
    throw new MigrationError(
      `PostgreSQL ${row?.text ?? 'unknown'} is too old: HermesX needs PostgreSQL 16 or newer`,
    );
  }
}

/**
 * Every pooled connection runs SET ROLE hermesx_app, so the DATABASE_URL user needs the SET option
 * on that role. A superuser always has it. A plain owner with CREATEROLE who created the role holds
 * only ADMIN OPTION on PostgreSQL 16 (createrole_self_grant is empty by default), which counts as
 * membership but does not allow SET ROLE: grant it to ourselves, or say what an operator must do.
 * Checked on every run, not in a migration, because it depends on who connects, not on the schema.
 */
async function ensureCanSetAppRole(client: pg.Client): Promise<void> {
  const { rows } = await client.query<{ user: string; can_set: boolean }>(
    `SELECT current_user AS user,
            (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
              OR pg_has_role(current_user, 'hermesx_app', 'SET') AS can_set`,
  );
  const row = rows[0];
  if (!row || row.can_set) return;
  const user = client.escapeIdentifier(row.user);
  try {
    await client.query(`GRANT hermesx_app TO ${user} WITH INHERIT FALSE, SET TRUE`);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new MigrationError(
      `the DATABASE_URL user ${row.user} cannot SET ROLE hermesx_app (${reason}); ` +
        `as a superuser run: GRANT hermesx_app TO ${user} WITH SET TRUE`,
    );
  }
}

async function applyPending(
  client: pg.Client,
  migrations: Migration[],
  functions: FunctionFile[],
  log: Logger,
): Promise<string[]> {
  await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version integer PRIMARY KEY,
    name text NOT NULL,
    checksum text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
  const baseline = migrations.filter((migration) => migration.version <= BASELINE_LAST_VERSION);
  await adoptBaseline(client, baseline, log, fail);
  const { rows } = await client.query<{ version: number; name: string; checksum: string }>(
    'SELECT version, name, checksum FROM schema_migrations',
  );
  const applied = new Map(rows.map((row) => [row.version, row]));
  const done: string[] = [];
  let triggerFunctionsCreated = false;
  for (const migration of migrations) {
    const previous = applied.get(migration.version);
    if (previous) {
      if (previous.checksum !== migration.checksum) {
        throw new MigrationError(
          `migration ${migration.name} was changed after it was applied; add a new migration instead`,
        );
      }
      continue;
    }
    if (!triggerFunctionsCreated && migration.version >= TRIGGER_FUNCTIONS_FIRST_VERSION) {
      done.push(...(await createTriggerFunctions(client, functions, log, fail)));
      triggerFunctionsCreated = true;
    }
    await applyOne(client, migration);
    log.info({ migration: migration.name }, 'migration applied');
    done.push(migration.name);
  }
  return done;
}

function fail(message: string): MigrationError {
  return new MigrationError(message);
}

async function applyOne(client: pg.Client, migration: Migration): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query(migration.sql);
    await client.query(
      'INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)',
      [migration.version, migration.name, migration.checksum],
    );
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    const reason = err instanceof Error ? err.message : String(err);
    throw new MigrationError(`migration ${migration.name} failed: ${reason}`);
  }
}

async function readMigrations(dir: string): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((file) => /^\d+_[\w-]+\.sql$/.test(file));
  const migrations = await Promise.all(
    files.map(async (file) => {
      const sql = await readFile(path.join(dir, file), 'utf8');
      return {
        version: Number.parseInt(file, 10),
        name: file,
        sql,
        checksum: createHash('sha256').update(sql).digest('hex'),
      };
    }),
  );
  migrations.sort((a, b) => a.version - b.version);
  for (let i = 1; i < migrations.length; i++) {
    if (migrations[i]?.version === migrations[i - 1]?.version) {
      throw new MigrationError(`two migrations share version ${migrations[i]?.version}`);
    }
  }
  return migrations;
}
