import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import type { Logger } from '../log.js';

/**
 * The repeatable part of a migration: migrations/functions/<name>.sql, one SQL function per file.
 * A file whose checksum changed since it was applied is applied again: every function of that
 * name is dropped first (a changed signature must not leave the old overload behind), then the
 * file runs, carrying its own REVOKE and GRANT. A file that disappeared drops its function. All
 * changes go in one transaction, with function bodies unchecked until then, so the files may call
 * each other in any order.
 *
 * A trigger function (RETURNS trigger) is never dropped to be applied again: its triggers depend
 * on it, so a DROP would fail and a DROP … CASCADE would take them with it. Its file says
 * CREATE OR REPLACE, which keeps the triggers (it takes no arguments, so it has one overload).
 */
export interface FunctionFile {
  name: string;
  sql: string;
  checksum: string;
  /** Returns trigger: replaced in place, never dropped while it is applied again. */
  trigger: boolean;
}

/**
 * Numbered migrations up to 314 create the trigger functions they use themselves (the bodies
 * there are history: the files of functions/ replace them when the numbered migrations are
 * done). A migration from this version on finds every trigger function of functions/ in place
 * (createTriggerFunctions), so it can CREATE TRIGGER on one without a copy of its body.
 */
export const TRIGGER_FUNCTIONS_FIRST_VERSION = 315;

export async function readFunctionFiles(dir: string): Promise<FunctionFile[]> {
  if (!existsSync(dir)) return [];
  const files = (await readdir(dir)).filter((file) => /^[a-z_][a-z0-9_]*\.sql$/.test(file));
  const read = await Promise.all(
    files.map(async (file) => {
      const sql = await readFile(path.join(dir, file), 'utf8');
      const checksum = createHash('sha256').update(sql).digest('hex');
      const trigger = /\bRETURNS\s+trigger\b/i.test(sql.replace(/--.*$/gm, ''));
      return { name: file.slice(0, -'.sql'.length), sql, checksum, trigger };
    }),
  );
  return read.sort((a, b) => a.name.localeCompare(b.name));
}

/** Applies changed function files and drops removed ones. Returns the file names applied. */
export async function applyFunctionFiles(
  client: pg.Client,
  files: FunctionFile[],
  log: Logger,
  failure: (message: string) => Error,
): Promise<string[]> {
  const applied = await readApplied(client);
  const changed = files.filter((file) => applied.get(file.name) !== file.checksum);
  const onDisk = new Set(files.map((file) => file.name));
  const removed = [...applied.keys()].filter((name) => !onDisk.has(name));
  return applyChanges(client, { changed, removed }, log, failure);
}

/**
 * Applies the trigger-function files whose function the database does not have yet (a new
 * file), before the numbered migrations from TRIGGER_FUNCTIONS_FIRST_VERSION on. A function that
 * exists already keeps its body until the numbered migrations are done: a changed body may read a
 * column one of them adds, and the pods still running meanwhile fire it.
 */
export async function createTriggerFunctions(
  client: pg.Client,
  files: FunctionFile[],
  log: Logger,
  failure: (message: string) => Error,
): Promise<string[]> {
  const triggers = files.filter((file) => file.trigger);
  if (triggers.length === 0) return [];
  await readApplied(client);
  const { rows } = await client.query<{ name: string }>(
    `SELECT p.proname AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = 'public' AND p.proname = ANY ($1)`,
    [triggers.map((file) => file.name)],
  );
  const present = new Set(rows.map((row) => row.name));
  const missing = triggers.filter((file) => !present.has(file.name));
  return applyChanges(client, { changed: missing, removed: [] }, log, failure);
}

async function readApplied(client: pg.Client): Promise<Map<string, string>> {
  await client.query(`CREATE TABLE IF NOT EXISTS schema_functions (
    name text PRIMARY KEY,
    checksum text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
  const { rows } = await client.query<{ name: string; checksum: string }>(
    'SELECT name, checksum FROM schema_functions',
  );
  return new Map(rows.map((row) => [row.name, row.checksum]));
}

async function applyChanges(
  client: pg.Client,
  { changed, removed }: { changed: FunctionFile[]; removed: string[] },
  log: Logger,
  failure: (message: string) => Error,
): Promise<string[]> {
  if (changed.length === 0 && removed.length === 0) return [];
  const unreplaceable = changed.find(
    (file) => file.trigger && !/\bCREATE\s+OR\s+REPLACE\s+FUNCTION\b/i.test(file.sql),
  );
  if (unreplaceable) {
    throw failure(
      `functions/${unreplaceable.name}.sql returns trigger, so it is never dropped to be ` +
        'applied again: write it as CREATE OR REPLACE FUNCTION',
    );
  }
  await client.query('BEGIN');
  let current = '';
  try {
    await client.query('SET LOCAL check_function_bodies = off');
    for (const name of removed) {
      current = `${name} (removed)`;
      await dropFunctionsNamed(client, name);
      await client.query('DELETE FROM schema_functions WHERE name = $1', [name]);
    }
    for (const file of changed) {
      current = `functions/${file.name}.sql`;
      if (!file.trigger) await dropFunctionsNamed(client, file.name);
      await client.query(file.sql);
      await client.query(
        `INSERT INTO schema_functions (name, checksum) VALUES ($1, $2)
         ON CONFLICT (name) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now()`,
        [file.name, file.checksum],
      );
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    const reason = err instanceof Error ? err.message : String(err);
    throw failure(`migration ${current} failed: ${reason}`);
  }
  for (const name of removed) log.info({ function: name }, 'function dropped');
  for (const file of changed) log.info({ function: file.name }, 'function applied');
  return changed.map((file) => `functions/${file.name}.sql`);
}

/**
 * Drops every overload of a function in the public schema (no CASCADE: a dependent fails loudly;
 * a trigger function still used by a trigger is dropped only once a numbered migration has
 * dropped its triggers).
 */
export async function dropFunctionsNamed(client: pg.ClientBase, name: string): Promise<void> {
  const { rows } = await client.query<{ signature: string }>(
    `SELECT p.oid::regprocedure::text AS signature
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = 'public' AND p.proname = $1`,
    [name],
  );
  for (const row of rows) await client.query(`DROP FUNCTION ${row.signature}`);
}
