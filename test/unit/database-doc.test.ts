// docs/database.md lists every numbered migration (and nothing else) in its migration table, and
// every function file of migrations/functions/ is described there or in that folder's README.
// A numbered migration from TRIGGER_FUNCTIONS_FIRST_VERSION on never defines a function that has
// a file: the file is the one definition in force.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TRIGGER_FUNCTIONS_FIRST_VERSION } from '../../src/db/migrate-functions.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MIGRATIONS = path.join(ROOT, 'migrations');
const FUNCTIONS = path.join(MIGRATIONS, 'functions');
const DOC = readFileSync(path.join(ROOT, 'docs/database.md'), 'utf8');
const README = readFileSync(path.join(FUNCTIONS, 'README.md'), 'utf8');

const numbered = readdirSync(MIGRATIONS)
  .filter((file) => /^\d+_[\w-]+\.sql$/.test(file))
  .sort();
const functionNames = readdirSync(FUNCTIONS)
  .filter((file) => file.endsWith('.sql'))
  .map((file) => file.slice(0, -'.sql'.length))
  .sort();

/** The first cells of the table that starts with the `| File ` header. */
function migrationTable(): string[] {
  const table = DOC.split('\n| File ')[1]?.split('\n\n')[0] ?? '';
  return table
    .split('\n')
    .map((line) => /^\| `([^`]+)`/.exec(line)?.[1])
    .filter((cell): cell is string => cell !== undefined);
}

describe('docs/database.md', () => {
  it('lists every numbered migration, in order, and no other', () => {
    const listed = migrationTable();
    expect(numbered.length).toBeGreaterThan(30);
    expect(listed.filter((cell) => cell !== 'functions/*.sql')).toEqual(numbered);
  });

  it('describes every function file (or the functions README does)', () => {
    const described = (name: string) => DOC.includes(`\`${name}(`) || README.includes(`\`${name}(`);
    expect(functionNames.filter((name) => !described(name))).toEqual([]);
  });
});

describe('numbered migrations', () => {
  it(`from ${TRIGGER_FUNCTIONS_FIRST_VERSION} on, define no function that has a file`, () => {
    const later = numbered.filter(
      (file) => Number.parseInt(file, 10) >= TRIGGER_FUNCTIONS_FIRST_VERSION,
    );
    const defined = later.flatMap((file) => {
      const sql = readFileSync(path.join(MIGRATIONS, file), 'utf8').replace(/--.*$/gm, '');
      return [...sql.matchAll(/CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+(?:public\.)?(\w+)/gi)]
        .map((m) => m[1] ?? '')
        .filter((name) => functionNames.includes(name))
        .map((name) => `${file}: ${name}`);
    });
    expect(defined).toEqual([]);
  });
});
