// docs/database.md lists every numbered migration (and nothing else) in its migration table, and
// every function file of migrations/functions/ is described there or in that folder's README;
// docs/scheduler.md's run-row table names everything that writes a run's status.
// A numbered migration from TRIGGER_FUNCTIONS_FIRST_VERSION on never defines a function that has
// a file: the file is the one definition in force.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TRIGGER_FUNCTIONS_FIRST_VERSION } from '../../src/db/migrate-functions.js';
import { RUN_STATUSES } from '../../src/domain/vocabulary.js';

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

describe('docs/scheduler.md, "Who moves a run row"', () => {
  const doc = readFileSync(path.join(ROOT, 'docs/scheduler.md'), 'utf8');
  const section = doc.split('### Who moves a run row')[1]?.split('\n### ')[0] ?? '';
  const rows = section
    .split('\n')
    .filter((line) => /^\| (—|`)/.test(line))
    .map((line) => line.split('|').map((cell) => cell.trim()));
  const codes = (cell: string | undefined) =>
    [...(cell ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');
  const by = rows.flatMap((cells) => codes(cells[3]));

  it('moves rows between the run statuses, every one of them', () => {
    const statuses = new Set(rows.flatMap((cells) => [...codes(cells[1]), ...codes(cells[2])]));
    expect([...statuses].sort()).toEqual([...RUN_STATUSES].sort());
  });

  it('names every function and statement that writes a run status, and only real ones', () => {
    const writers = functionNames.filter((name) => {
      const sql = readFileSync(path.join(FUNCTIONS, `${name}.sql`), 'utf8');
      return (
        /UPDATE cron_job_runs[^;]*?\bSET\s+status\s*=/.test(sql) ||
        /INSERT INTO cron_job_runs\b[^;(]*\([^)]*\bstatus\b/.test(sql) ||
        /DELETE FROM cron_job_runs\b(?!_)/.test(sql) ||
        /NEW\.status :=/.test(sql)
      );
    });
    expect(writers.length).toBeGreaterThan(8);
    expect(writers.filter((name) => !by.includes(name))).toEqual([]);
    const statements = sourceFiles(path.join(ROOT, 'src')).filter((file) =>
      [...readFileSync(file, 'utf8').matchAll(/(?:UPDATE|INSERT INTO) cron_job_runs\b[^`]*/g)].some(
        (m) => /\bstatus\b/.test(m[0]),
      ),
    );
    expect(statements.length).toBeGreaterThan(2);
    const relative = statements.map((file) => path.relative(ROOT, file));
    expect(relative.filter((file) => !by.includes(file))).toEqual([]);
    for (const name of by) {
      if (name.startsWith('src/')) expect(existsSync(path.join(ROOT, name)), name).toBe(true);
      else if (/^[a-z_]+$/.test(name)) expect(functionNames, name).toContain(name);
    }
  });
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}
