// The words the SQL holds as literals (CHECK constraints, index predicates, trigger conditions,
// function bodies) are the vocabulary's named lists: each list of run statuses, error kinds, job
// stop words or webhook event types in test/schema.sql is compared with its name in
// src/domain/vocabulary.ts, so a word added on one side only fails here.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ERROR_KINDS,
  EVENT_TYPES,
  IN_FLIGHT_STATUSES,
  PAUSED_BY,
  RETRYABLE_ERROR_KINDS,
  RUN_STATUSES,
  SETTLED_STATUSES,
  STOPPED_BY,
} from '../../src/domain/vocabulary.js';
import { EVENT_TYPES as WEBHOOK_EVENT_TYPES } from '../../src/webhooks/events.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SCHEMA = readFileSync(path.join(ROOT, 'test/schema.sql'), 'utf8');

/** The quoted words of a literal list: `'a', 'b'` or `'a'::text, 'b'::text`. */
const wordsOf = (list: string | undefined): string[] =>
  [...(list ?? '').matchAll(/'([\w.]+)'(?:::text)?/g)].map((m) => m[1] ?? '');

/** The CHECK constraint named, as its list of words. */
const checkOf = (table: string, constraint: string): string[] => {
  const line = new RegExp(`^${table} ${constraint} CHECK .*ARRAY\\[(.*)\\]`, 'm').exec(SCHEMA);
  expect(line, `${table}.${constraint} in test/schema.sql`).not.toBeNull();
  return wordsOf(line?.[1]);
};

/** A function's definition in test/schema.sql (pg_get_functiondef), up to the next one. */
const functionOf = (name: string): string => {
  const start = SCHEMA.indexOf(`CREATE OR REPLACE FUNCTION public.${name}(`);
  expect(start, `${name} in test/schema.sql`).toBeGreaterThan(-1);
  const end = SCHEMA.indexOf('CREATE OR REPLACE FUNCTION', start + 1);
  return SCHEMA.slice(start, end === -1 ? undefined : end);
};

/** Every literal list in the schema: `IN (…)` in bodies, `ARRAY[…]` in constraints and indexes. */
const literalLists = (): string[][] =>
  [...SCHEMA.matchAll(/\bIN \(\s*('[^()]*')\s*\)|ARRAY\[('[^\]]*)\]/g)].map((m) =>
    wordsOf(m[1] ?? m[2]),
  );

describe('the vocabulary is what the SQL holds', () => {
  it('run statuses are the CHECK constraint of cron_job_runs.status', () => {
    const schema = readFileSync(path.join(ROOT, 'test/schema.sql'), 'utf8');
    const line = /cron_job_runs cron_job_runs_status_check CHECK .*ARRAY\[(.*)\]/.exec(schema);
    expect(line).not.toBeNull();
    expect([...(line?.[1] ?? '').matchAll(/'(\w+)'::text/g)].map((m) => m[1])).toEqual([
      ...RUN_STATUSES,
    ]);
    const migration = readFileSync(path.join(ROOT, 'migrations/250_queued_runs.sql'), 'utf8');
    const check =
      /ADD CONSTRAINT cron_job_runs_status_check\s+CHECK \(status IN \(([^)]*)\)\)/.exec(migration);
    expect([...(check?.[1] ?? '').matchAll(/'(\w+)'/g)].map((m) => m[1])).toEqual([
      ...RUN_STATUSES,
    ]);
  });

  it('error kinds are the CHECK constraint of cron_job_runs.error_kind', () => {
    const schema = readFileSync(path.join(ROOT, 'test/schema.sql'), 'utf8');
    const line = /cron_job_runs cron_job_runs_error_kind_check CHECK .*ARRAY\[(.*)\]/.exec(schema);
    expect([...(line?.[1] ?? '').matchAll(/'(\w+)'::text/g)].map((m) => m[1])).toEqual([
      ...ERROR_KINDS,
    ]);
  });

  it('every list of run statuses is the whole CHECK, the in-flight list or the settled one', () => {
    const statusLists = literalLists().filter(
      (words) =>
        words.length > 1 && words.every((w) => (RUN_STATUSES as readonly string[]).includes(w)),
    );
    const named = new Map<string, string>([
      [RUN_STATUSES.join(','), 'RUN_STATUSES'],
      [IN_FLIGHT_STATUSES.join(','), 'IN_FLIGHT_STATUSES'],
      [SETTLED_STATUSES.join(','), 'SETTLED_STATUSES'],
    ]);
    const unnamed = statusLists.filter((words) => !named.has(words.join(',')));
    expect(unnamed, 'a list of run statuses without a name in src/domain/vocabulary.ts').toEqual(
      [],
    );
    // In-flight: the partial indexes, the retry trigger's condition, the in-flight triggers,
    // the claim, recovery and the stale cleanup.
    const inFlight = statusLists.filter(
      (words) => words.join(',') === IN_FLIGHT_STATUSES.join(','),
    );
    expect(inFlight.length).toBeGreaterThanOrEqual(10);
    expect(functionOf('cron_job_runs_in_flight_changed')).toContain(
      `n.status NOT IN (${IN_FLIGHT_STATUSES.map((s) => `'${s}'`).join(', ')})`,
    );
    expect(SCHEMA).toMatch(
      /cron_job_runs_retry_attempt .*WHEN \(\(\(new\.status = 'failed'::text\) AND \(old\.status = ANY \(ARRAY\['claimed'::text, 'running'::text\]\)\)\)\)/,
    );
  });

  it('retryable error kinds are the retry decision of cron_job_runs_retry_attempt', () => {
    const body = functionOf('cron_job_runs_retry_attempt');
    const list = /NEW\.error_kind NOT IN \(([^)]*)\)/.exec(body);
    expect(wordsOf(list?.[1])).toEqual([...RETRYABLE_ERROR_KINDS]);
    expect(RETRYABLE_ERROR_KINDS.every((kind) => ERROR_KINDS.includes(kind))).toBe(true);
  });

  it('job stop words are the CHECKs of paused_by and stopped_by, and what the run limits write', () => {
    expect(checkOf('cron_jobs', 'cron_jobs_paused_by_check')).toEqual([...PAUSED_BY]);
    expect(checkOf('cron_jobs', 'cron_jobs_stopped_by_check')).toEqual([...STOPPED_BY]);
    const limits = functionOf('cron_jobs_apply_run_limits');
    const written = (column: string) =>
      [...limits.matchAll(new RegExp(`NEW\\.${column} := '(\\w+)'`, 'g'))].map((m) => m[1]);
    // `budget` is written where a budget runs out (docs/usage.md), not by the run limits.
    expect(written('stopped_by')).toEqual(STOPPED_BY.filter((by) => by !== 'budget'));
    expect(written('paused_by')).toEqual(['system']);
  });

  it('webhook event types are the CHECKs of endpoints and deliveries, and what the SQL queues', () => {
    expect(WEBHOOK_EVENT_TYPES).toBe(EVENT_TYPES);
    expect(checkOf('webhook_endpoints', 'webhook_endpoints_events_check')).toEqual([
      ...EVENT_TYPES,
    ]);
    expect(checkOf('webhook_deliveries', 'webhook_deliveries_event_type_check')).toEqual([
      ...EVENT_TYPES,
    ]);
    // The audit log's triggers write actions (job.pause), not events.
    const auditTriggers = [
      'audit_log_job_paused_by_system',
      'audit_log_webhook_disabled_by_system',
    ];
    const queuers = auditTriggers.reduce(
      (text, name) => text.replace(functionOf(name), ''),
      SCHEMA,
    );
    const queued = new Set(
      [...queuers.matchAll(/'((?:run|job)\.[a-z_]+)'/g)].map((m) => m[1] ?? ''),
    );
    // The run and job events are queued by the SQL that records them; budget and channel events
    // by the code that finds the budget passed or the channel dead.
    const ofRunsAndJobs = EVENT_TYPES.filter((type) => /^(run|job)\./.test(type));
    expect([...queued].sort()).toEqual([...ofRunsAndJobs].sort());
  });
});
