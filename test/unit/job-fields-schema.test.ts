// The job field table (src/jobs/fields.ts) against the schema the migrations give (test/schema.sql):
// the columns whose change notifies the pods are exactly the table's `notify` rows, and the due
// window returns exactly its `dueWindow` rows. Read from the dump, so it holds however many
// triggers carry the list: the union of the columns every NOTIFY trigger on cron_jobs watches.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DUE_WINDOW_COLUMNS, NOTIFIED_COLUMNS } from '../../src/jobs/field-lists.js';

const SCHEMA = readFileSync(path.resolve(import.meta.dirname, '../schema.sql'), 'utf8');
const CHANNEL = 'hermesx_cron_jobs';

/** Each function's definition in the dump, by name. */
function functionBodies(): Map<string, string> {
  const parts = SCHEMA.split(/^(?=CREATE OR REPLACE FUNCTION )/m).slice(1);
  return new Map(
    parts.map((part) => [
      /^CREATE OR REPLACE FUNCTION public\.(\w+)\(/.exec(part)?.[1] ?? '',
      part,
    ]),
  );
}

/** The CREATE TRIGGER lines on cron_jobs whose function notifies the pods. */
function notifyTriggers(): string[] {
  const notifying = [...functionBodies()]
    .filter(([, body]) => body.includes(`pg_notify('${CHANNEL}'`))
    .map(([name]) => name);
  return SCHEMA.split('\n').filter(
    (line) =>
      line.startsWith('CREATE TRIGGER ') &&
      line.includes(' ON public.cron_jobs ') &&
      notifying.some((name) => line.endsWith(`EXECUTE FUNCTION ${name}()`)),
  );
}

/** The column names of a function's RETURNS TABLE. */
function returnedColumns(name: string): string[] {
  const body = functionBodies().get(name);
  const list = body && /^ RETURNS TABLE\((.*)\)$/m.exec(body)?.[1];
  if (!list) throw new Error(`no RETURNS TABLE for ${name} in test/schema.sql`);
  return list.split(', ').map((column) => column.split(' ')[0] as string);
}

const sorted = (names: Iterable<string>) => [...new Set(names)].sort();

describe('the job field table against the schema', () => {
  it('notifies on a change of exactly the columns of its notify rows', () => {
    const triggers = notifyTriggers();
    // Inserts and deletes notify whatever the columns (statement triggers, migration 311).
    expect(triggers.some((line) => / AFTER INSERT ON /.test(line))).toBe(true);
    expect(triggers.some((line) => / AFTER DELETE ON /.test(line))).toBe(true);
    const updates = triggers.filter((line) => / AFTER UPDATE ON /.test(line));
    expect(updates.length).toBeGreaterThan(0);
    // An update trigger without a WHEN would notify on every run's statistics.
    for (const line of updates) expect(line).toContain(' WHEN (');
    const watched = updates.flatMap((line) =>
      [...line.matchAll(/old\.(\w+) IS DISTINCT FROM new\.\1/g)].map((m) => m[1] as string),
    );
    expect(sorted(watched)).toEqual(sorted(NOTIFIED_COLUMNS));
  });

  it('reads the due window with exactly the columns of its dueWindow rows', () => {
    expect(sorted(returnedColumns('scheduler_due_jobs'))).toEqual(sorted(DUE_WINDOW_COLUMNS));
    // A notified job's re-read and the planning sweep give the pods the same job.
    expect(sorted(returnedColumns('scheduler_load_schedules'))).toEqual(sorted(DUE_WINDOW_COLUMNS));
    expect(
      sorted(returnedColumns('scheduler_plan_take').filter((c) => c !== 'last_scheduled_at')),
    ).toEqual(sorted(DUE_WINDOW_COLUMNS));
  });
});
