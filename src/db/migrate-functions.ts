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
 */
export interface FunctionFile {
  name: string;
  sql: string;
  checksum: string;
}

export async function readFunctionFiles(dir: string): Promise<FunctionFile[]> {
  if (!existsSync(dir)) return [];
  const files = (await readdir(dir)).filter((file) => /^[a-z_][a-z0-9_]*\.sql$/.test(file));
  const read = await Promise.all(
    files.map(async (file) => {
      const sql = await readFile(path.join(dir, file), 'utf8');
      const checksum = createHash('sha256').update(sql).digest('hex');
      return { name: file.slice(0, -'.sql'.length), sql, checksum };
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
  await client.query(`CREATE TABLE IF NOT EXISTS schema_functions (
    name text PRIMARY KEY,
    checksum text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
  const { rows } = await client.query<{ name: string; checksum: string }>(
    'SELECT name, checksum FROM schema_functions',
  );
  const applied = new Map(rows.map((row) => [row.name, row.checksum]));
  const changed = files.filter((file) => applied.get(file.name) !== file.checksum);
  const onDisk = new Set(files.map((file) => file.name));
  const removed = [...applied.keys()].filter((name) => !onDisk.has(name));
  if (changed.length === 0 && removed.length === 0) return [];

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
      await dropFunctionsNamed(client, file.name);
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

/** Drops every overload of a function in the public schema (no CASCADE: a dependent fails loudly). */
export async function dropFunctionsNamed(client: pg.ClientBase, name: string): Promise<void> {
  const { rows } = await client.query<{ signature: string }>(
    `SELECT p.oid::regprocedure::text AS signature
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = 'public' AND p.proname = $1`,
    [name],
  );
  for (const row of rows) await client.query(`DROP FUNCTION ${row.signature}`);
}
