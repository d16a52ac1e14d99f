import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR, MigrationError, migrate } from '../../src/db/migrate.js';
import { TRIGGER_FUNCTIONS_FIRST_VERSION } from '../../src/db/migrate-functions.js';
import { createAppPool, createTestDatabase, withOwner } from '../helpers/database.js';
import { silentLogger } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';

/** The versions the guide's schema needs; later migrations may follow them. */
const REQUIRED_FILES = [
  '001_app_role.sql',
  '002_tenants.sql',
  '003_api_keys.sql',
  '100_cron_jobs.sql',
  '101_cron_job_runs.sql',
  '102_cron_jobs_rls.sql',
  '103_cron_job_runs_rls.sql',
  '104_installation.sql',
  '105_cron_jobs_notify.sql',
  '106_idempotency_keys.sql',
];
const REQUIRED_VERSIONS = [1, 2, 3, 100, 101, 102, 103, 104, 105, 106];
/** Every migration file on disk, in order (what one run must apply). */
const ALL_FILES = readdirSync(MIGRATIONS_DIR)
  .filter((file) => /^\d+_[\w-]+\.sql$/.test(file))
  .sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10));
const ALL_VERSIONS = ALL_FILES.map((file) => Number.parseInt(file, 10));
/** Every function file, applied after the numbered migrations (migrations/functions/). */
const FUNCTION_FILES = readdirSync(path.join(MIGRATIONS_DIR, 'functions'))
  .filter((file) => file.endsWith('.sql'))
  .sort()
  .map((file) => `functions/${file}`);
/**
 * The trigger-function files no numbered migration before TRIGGER_FUNCTIONS_FIRST_VERSION
 * creates: applied just before that version, so the migrations from it on find them in place.
 */
const NEW_TRIGGER_FILES = FUNCTION_FILES.filter((file) => {
  const sql = readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8');
  if (!/\bRETURNS\s+trigger\b/i.test(sql.replace(/--.*$/gm, ''))) return false;
  const name = path.basename(file, '.sql');
  return !ALL_FILES.some(
    (m) =>
      Number.parseInt(m, 10) < TRIGGER_FUNCTIONS_FIRST_VERSION &&
      new RegExp(`CREATE (OR REPLACE )?FUNCTION ${name}\\(`).test(
        readFileSync(path.join(MIGRATIONS_DIR, m), 'utf8'),
      ),
  );
});
/** What one run on an empty database applies, in order. */
const APPLY_ORDER = [
  ...ALL_FILES.filter((file) => Number.parseInt(file, 10) < TRIGGER_FUNCTIONS_FIRST_VERSION),
  ...NEW_TRIGGER_FILES,
  ...ALL_FILES.filter((file) => Number.parseInt(file, 10) >= TRIGGER_FUNCTIONS_FIRST_VERSION),
  ...FUNCTION_FILES.filter((file) => !NEW_TRIGGER_FILES.includes(file)),
];
const DEFAULT_TENANT = '00000000-0000-0000-0000-000000000001';
const CHANNEL = 'hermesx_cron_jobs';

async function appliedVersions(databaseUrl: string): Promise<number[]> {
  return withOwner(databaseUrl, async (client) => {
    const { rows } = await client.query<{ version: number }>(
      'SELECT version FROM schema_migrations ORDER BY version',
    );
    return rows.map((row) => row.version);
  });
}

describe('migrate on an empty database', () => {
  it('applies every migration once and records versions 1,2,3,100..106', async () => {
    const url = await createTestDatabase({ migrate: false });
    expect(ALL_FILES).toEqual(expect.arrayContaining(REQUIRED_FILES));
    const applied = await migrate(url, silentLogger());
    expect(applied).toEqual(APPLY_ORDER);
    expect(FUNCTION_FILES).toContain('functions/scheduler_cleanup_stale_runs.sql');
    expect(applied.slice(0, REQUIRED_FILES.length)).toEqual(REQUIRED_FILES);
    const versions = await appliedVersions(url);
    expect(versions).toEqual(ALL_VERSIONS);
    expect(versions).toEqual(expect.arrayContaining(REQUIRED_VERSIONS));

    // A second run finds nothing left to do.
    expect(await migrate(url, silentLogger())).toEqual([]);
    expect(await appliedVersions(url)).toEqual(ALL_VERSIONS);
  });

  it('serialises concurrent runs: three at once equal one run', async () => {
    const url = await createTestDatabase({ migrate: false });
    const results = await Promise.all([1, 2, 3].map(() => migrate(url, silentLogger())));
    const names = results.flat().sort();
    // Every migration and function file was applied by exactly one of the three.
    expect(names).toHaveLength(ALL_VERSIONS.length + FUNCTION_FILES.length);
    expect(new Set(names).size).toBe(ALL_VERSIONS.length + FUNCTION_FILES.length);
    expect(await appliedVersions(url)).toEqual(ALL_VERSIONS);
    const tenants = await withOwner(url, (client) =>
      client.query('SELECT id FROM tenants WHERE id = $1', [DEFAULT_TENANT]),
    );
    expect(tenants.rowCount).toBe(1);
  });

  it('refuses a migration whose checksum changed after it was applied', async () => {
    const url = await createTestDatabase();
    await withOwner(url, (client) =>
      client.query("UPDATE schema_migrations SET checksum = 'tampered' WHERE version = 100"),
    );
    const attempt = migrate(url, silentLogger());
    await expect(attempt).rejects.toBeInstanceOf(MigrationError);
    await expect(attempt).rejects.toThrow(
      'migration 100_cron_jobs.sql was changed after it was applied; add a new migration instead',
    );
  });
});

describe('the migrated schema', () => {
  let url: string;
  let owner: pg.Client;

  beforeAll(async () => {
    url = await createTestDatabase();
    owner = new pg.Client({ connectionString: url });
    await owner.connect();
  });

  afterAll(async () => {
    await owner?.end();
  });

  async function insertJob(fields: { name?: string; schedule?: string } = {}): Promise<string> {
    const { rows } = await owner.query<{ id: string }>(
      `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt)
       VALUES ($1, $2, $3, 'say hello') RETURNING id`,
      [DEFAULT_TENANT, fields.name ?? 'job', fields.schedule ?? '*/5 * * * *'],
    );
    return rows[0]!.id;
  }

  it('has the default tenant', async () => {
    const { rows } = await owner.query('SELECT id, name, deleted_at FROM tenants WHERE id = $1', [
      DEFAULT_TENANT,
    ]);
    expect(rows).toEqual([{ id: DEFAULT_TENANT, name: 'default', deleted_at: null }]);
  });

  it('has the columns the guide queries', async () => {
    const { rows } = await owner.query<{ table_name: string; column_name: string }>(
      `SELECT table_name, column_name FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name IN ('cron_jobs', 'cron_job_runs')`,
    );
    const columns = (table: string) =>
      rows.filter((row) => row.table_name === table).map((row) => row.column_name);
    expect(columns('cron_job_runs')).toEqual(
      expect.arrayContaining([
        'id',
        'status',
        'scheduled_at',
        'duration_ms',
        'created_at',
        'cron_job_id',
        'tenant_id',
        'started_at',
        'finished_at',
        'result',
        'error',
        'pod_id',
      ]),
    );
    expect(columns('cron_jobs')).toEqual(
      expect.arrayContaining([
        'id',
        'tenant_id',
        'name',
        'schedule',
        'timezone',
        'prompt',
        'enabled',
        'next_run_at',
        'last_run_at',
        'last_run_success',
        'last_run_error',
        'run_count',
        'created_at',
        'updated_at',
      ]),
    );
  });

  it('holds UNIQUE(cron_job_id, scheduled_at)', async () => {
    const jobId = await insertJob({ name: 'unique' });
    const insertRun = () =>
      owner.query(
        `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, pod_id)
         VALUES ($1, $2, '2030-01-01T00:00:00Z', 'pod-a')`,
        [jobId, DEFAULT_TENANT],
      );
    await insertRun();
    // Each partition holds its part of the parent's key, and the error names that part.
    await expect(insertRun()).rejects.toMatchObject({
      code: '23505',
      constraint: expect.stringMatching(/^cron_job_runs_\w+_cron_job_id_scheduled_at_key$/),
    });
    const { rows } = await owner.query(
      `SELECT count(*)::int AS n FROM pg_inherits i
         JOIN pg_class parent ON parent.oid = i.inhparent
        WHERE parent.relname = 'cron_job_runs_cron_job_id_scheduled_at_key'`,
    );
    const partitions = await owner.query(
      `SELECT count(*)::int AS n FROM pg_inherits WHERE inhparent = 'cron_job_runs'::regclass`,
    );
    expect(rows[0].n).toBe(partitions.rows[0].n);
  });

  it('gives a job inserted with only tenant_id, name, schedule, prompt its defaults', async () => {
    const jobId = await insertJob({ name: 'minimal' });
    const { rows } = await owner.query('SELECT * FROM cron_jobs WHERE id = $1', [jobId]);
    expect(rows[0]).toMatchObject({
      tenant_id: DEFAULT_TENANT,
      name: 'minimal',
      enabled: true,
      timezone: 'UTC',
      run_count: '0',
      next_run_at: null,
      last_run_at: null,
      last_run_success: null,
      last_run_error: null,
    });
    expect(rows[0].created_at).toBeInstanceOf(Date);
    expect(rows[0].updated_at).toBeInstanceOf(Date);
    expect(rows[0].due_from).toBeInstanceOf(Date);
  });

  it('has scheduler_cleanup_stale_runs(lock_ttl_seconds) as SECURITY DEFINER', async () => {
    const { rows } = await owner.query<{ args: string; secdef: boolean; result: string }>(
      `SELECT pg_get_function_arguments(oid) AS args, prosecdef AS secdef,
              pg_get_function_result(oid) AS result
         FROM pg_proc WHERE proname = 'scheduler_cleanup_stale_runs'`,
    );
    expect(rows).toEqual([{ args: 'lock_ttl_seconds integer', secdef: true, result: 'integer' }]);
  });

  it('fails runs older than the lock TTL and leaves newer ones running', async () => {
    const staleJob = await insertJob({ name: 'stale' });
    const freshJob = await insertJob({ name: 'fresh' });
    const insertRun = async (jobId: string, ageSeconds: number) => {
      const { rows } = await owner.query<{ id: string }>(
        `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, started_at, pod_id)
         VALUES ($1, $2, now() - make_interval(secs => $3), now() - make_interval(secs => $3),
                 'dead-pod') RETURNING id`,
        [jobId, DEFAULT_TENANT, ageSeconds],
      );
      return rows[0]!.id;
    };
    const staleRun = await insertRun(staleJob, 3600);
    const freshRun = await insertRun(freshJob, 10);

    // Called as the application role with no tenant set, as the scheduler does: being SECURITY
    // DEFINER, it reaches every tenant's runs all the same.
    const app = createAppPool(url);
    try {
      const { rows: cleaned } = await app.query<{ role: string; n: number }>(
        'SELECT current_user AS role, scheduler_cleanup_stale_runs(600) AS n',
      );
      expect(cleaned).toEqual([{ role: 'hermesx_app', n: 1 }]);
    } finally {
      await app.end();
    }

    const { rows } = await owner.query(
      'SELECT id, status, error, finished_at, duration_ms FROM cron_job_runs WHERE id = ANY($1)',
      [[staleRun, freshRun]],
    );
    const stale = rows.find((row) => row.id === staleRun);
    const fresh = rows.find((row) => row.id === freshRun);
    expect(stale).toMatchObject({ status: 'failed', error: 'pod crash or lock TTL exceeded' });
    expect(stale.finished_at).toBeInstanceOf(Date);
    expect(stale.duration_ms).toBeGreaterThanOrEqual(3_600_000);
    expect(fresh).toMatchObject({ status: 'running', error: null, finished_at: null });

    const { rows: jobs } = await owner.query(
      'SELECT id, last_run_success, last_run_error, run_count FROM cron_jobs WHERE id = ANY($1)',
      [[staleJob, freshJob]],
    );
    expect(jobs.find((job) => job.id === staleJob)).toMatchObject({
      last_run_success: false,
      last_run_error: 'pod crash or lock TTL exceeded',
      run_count: '1',
    });
    expect(jobs.find((job) => job.id === freshJob)).toMatchObject({
      last_run_success: null,
      run_count: '0',
    });

    // Nothing is left to clean up.
    const { rows: again } = await owner.query<{ n: number }>(
      'SELECT scheduler_cleanup_stale_runs(600) AS n',
    );
    expect(again[0]?.n).toBe(0);
  });

  it('bumps updated_at and due_from on a schedule change, not on a run-statistics update', async () => {
    const jobId = await insertJob({ name: 'tracked' });
    const past = new Date('2000-01-01T00:00:00Z');
    const reset = () =>
      owner.query('UPDATE cron_jobs SET updated_at = $2, due_from = $2 WHERE id = $1', [
        jobId,
        past,
      ]);
    const read = async () => {
      const { rows } = await owner.query<{ updated_at: Date; due_from: Date }>(
        'SELECT updated_at, due_from FROM cron_jobs WHERE id = $1',
        [jobId],
      );
      return rows[0]!;
    };

    await reset();
    expect(await read()).toEqual({ updated_at: past, due_from: past });

    await owner.query("UPDATE cron_jobs SET schedule = '0 * * * *' WHERE id = $1", [jobId]);
    const afterSchedule = await read();
    expect(afterSchedule.updated_at.getTime()).toBeGreaterThan(past.getTime());
    expect(afterSchedule.due_from.getTime()).toBeGreaterThan(past.getTime());

    await reset();
    await owner.query('UPDATE cron_jobs SET run_count = run_count + 1 WHERE id = $1', [jobId]);
    expect(await read()).toEqual({ updated_at: past, due_from: past });
  });
});

describe('the cron_jobs NOTIFY trigger', () => {
  let url: string;
  let owner: pg.Client;
  let listener: pg.Client;
  const received: string[] = [];

  beforeAll(async () => {
    url = await createTestDatabase();
    owner = new pg.Client({ connectionString: url });
    await owner.connect();
    listener = new pg.Client({ connectionString: url });
    await listener.connect();
    listener.on('notification', (message) => {
      if (message.channel === CHANNEL) received.push(message.payload ?? '');
    });
    await listener.query(`LISTEN ${CHANNEL}`);
  });

  afterAll(async () => {
    await listener?.end();
    await owner?.end();
  });

  const nextNotification = () =>
    waitFor(
      () => {
        const payload = received.shift();
        if (payload === undefined) throw new Error('no notification yet');
        return payload;
      },
      { timeoutMs: 5000, intervalMs: 10, what: `a notification on ${CHANNEL}` },
    );

  it('notifies on insert, definition update and delete, not on a run-statistics update', async () => {
    const { rows } = await owner.query<{ id: string }>(
      `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt)
       VALUES ($1, 'notify', '* * * * *', 'hi') RETURNING id`,
      [DEFAULT_TENANT],
    );
    const jobId = rows[0]!.id;
    expect(await nextNotification()).toBe(jobId);

    await owner.query("UPDATE cron_jobs SET prompt = 'hello' WHERE id = $1", [jobId]);
    expect(await nextNotification()).toBe(jobId);

    await owner.query('UPDATE cron_jobs SET enabled = false WHERE id = $1', [jobId]);
    expect(await nextNotification()).toBe(jobId);

    // Run statistics, then a fence: the first message to arrive must be the fence.
    await owner.query(
      `UPDATE cron_jobs SET run_count = run_count + 1, last_run_at = now(),
              last_run_success = true, last_run_error = NULL, next_run_at = now() + interval '1 minute'
        WHERE id = $1`,
      [jobId],
    );
    await owner.query(`SELECT pg_notify($1, 'fence')`, [CHANNEL]);
    expect(await nextNotification()).toBe('fence');

    await owner.query('DELETE FROM cron_jobs WHERE id = $1', [jobId]);
    expect(await nextNotification()).toBe(jobId);
    expect(received).toEqual([]);
  });
});
