// The boundary between the app role and the schema owner: SECURITY DEFINER functions cannot be
// steered by objects the app role makes, the app role makes no temporary objects, and a
// dedicated login role (APP_DATABASE_URL) leaves nothing to RESET ROLE back to.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createPool } from '../../src/db/pool.js';
import { startService } from '../../src/main.js';
import { createJob, listJobs } from '../../src/jobs/commands.js';
import { checkLoginRole } from '../../src/db/login-role.js';
import { MIGRATIONS_DIR } from '../../src/db/migrate.js';
import { readFunctionFiles } from '../../src/db/migrate-functions.js';
import { DEFAULT_TENANT_ID } from '../helpers/api.js';
import { createTestDatabase, withOwner } from '../helpers/database.js';
import { silentLogger } from '../helpers/log.js';

describe('database role boundary', () => {
  let databaseUrl: string;
  const login = `hermesx_login_${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    await withOwner(databaseUrl, (c) =>
      c.query(`CREATE ROLE ${login} LOGIN PASSWORD 'login-pass' NOINHERIT IN ROLE hermesx_app`),
    );
  });
  afterAll(async () => {
    await withOwner(databaseUrl, async (c) => {
      await c.query(
        `REVOKE ALL ON DATABASE ${new URL(databaseUrl).pathname.slice(1)} FROM ${login}`,
      );
      await c.query(`DROP ROLE IF EXISTS ${login}`);
    });
  });

  it('warns at start when the pool logs in as a superuser, not as a plain login role', async () => {
    // The test database's owner is the postgres image's superuser, like compose's POSTGRES_USER.
    expect(await checkLoginRole(databaseUrl)).toMatch(
      /^the app pool logs in as \S+, a superuser: .*set APP_DATABASE_URL/,
    );
    const plain = new URL(databaseUrl);
    plain.username = login;
    plain.password = 'login-pass';
    expect(await checkLoginRole(plain.toString())).toBeUndefined();
  });

  it('warns when the pool logs in as a plain role that owns tables (it could bypass RLS too)', async () => {
    const owner = `hermesx_owner_${randomBytes(4).toString('hex')}`;
    await withOwner(databaseUrl, async (c) => {
      await c.query(`CREATE ROLE ${owner} LOGIN PASSWORD 'owner-pass'`);
      await c.query(`CREATE TABLE public.${owner}_probe (id int)`);
      await c.query(`ALTER TABLE public.${owner}_probe OWNER TO ${owner}`);
      await c.query(
        `GRANT CONNECT ON DATABASE ${new URL(databaseUrl).pathname.slice(1)} TO ${owner}`,
      );
    });
    try {
      const url = new URL(databaseUrl);
      url.username = owner;
      url.password = 'owner-pass';
      expect(await checkLoginRole(url.toString())).toMatch(
        new RegExp(`^the app pool logs in as ${owner}, the owner of 1 tables: .*APP_DATABASE_URL`),
      );
    } finally {
      await withOwner(databaseUrl, async (c) => {
        await c.query(`DROP TABLE public.${owner}_probe`);
        await c.query(
          `REVOKE ALL ON DATABASE ${new URL(databaseUrl).pathname.slice(1)} FROM ${owner}`,
        );
        await c.query(`DROP ROLE ${owner}`);
      });
    }
  });

  it('every SECURITY DEFINER function searches pg_temp last', async () => {
    const { rows } = await withOwner(databaseUrl, (c) =>
      c.query<{ name: string; config: string[] | null }>(
        `SELECT p.oid::regprocedure::text AS name, p.proconfig AS config
           FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
          WHERE n.nspname = 'public' AND p.prosecdef`,
      ),
    );
    expect(rows.length).toBeGreaterThan(5);
    const searchPath = (config: string[] | null) =>
      (config ?? []).find((setting) => setting.startsWith('search_path='));
    const bad = rows.filter((row) => !/,\s*pg_temp$/.test(searchPath(row.config) ?? ''));
    expect(bad.map((row) => `${row.name}: ${searchPath(row.config) ?? 'no search_path'}`)).toEqual(
      [],
    );
  });

  it('every function file follows the rule of its kind (migrations/functions/README.md)', async () => {
    const files = await readFunctionFiles(path.join(MIGRATIONS_DIR, 'functions'));
    const { rows } = await withOwner(databaseUrl, (c) =>
      c.query<{ name: string; trigger: boolean; definer: boolean; callers: string[] }>(
        `SELECT p.proname AS name, p.prorettype = 'trigger'::regtype AS trigger,
                p.prosecdef AS definer,
                array(SELECT CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE a.grantee::regrole::text END
                        FROM aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a
                       WHERE a.privilege_type = 'EXECUTE' AND a.grantee <> p.proowner
                       ORDER BY 1) AS callers
           FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
          WHERE n.nspname = 'public' AND p.proname = ANY ($1)`,
        [files.map((file) => file.name)],
      ),
    );
    const described = (row: (typeof rows)[number]) =>
      `${row.name}: ${row.trigger ? 'trigger' : 'called'}, ` +
      `${row.definer ? 'definer' : 'invoker'}, execute: ${row.callers.join(',') || 'owner only'}`;
    // Called by the application: SECURITY DEFINER, executable by hermesx_app alone. A trigger
    // function: executable by no one (only its triggers call it); SECURITY DEFINER only when it
    // writes a table the statement's role may not, else it runs as that role.
    const ruled = (row: (typeof rows)[number]) => {
      const file = files.find((f) => f.name === row.name);
      const writes = /\b(INSERT|UPDATE|DELETE)\b/.test(file?.sql.replace(/--.*$/gm, '') ?? '');
      // A trigger function that reads rows the statement's tenant cannot see says so.
      const saysWhy = /^-- .*SECURITY DEFINER:/m.test(file?.sql ?? '');
      return (
        `${row.name}: ${row.trigger ? 'trigger' : 'called'}, ` +
        `${!row.trigger || (row.definer && (writes || saysWhy)) ? 'definer' : 'invoker'}, ` +
        `execute: ${row.trigger ? 'owner only' : 'hermesx_app'}`
      );
    };
    expect(rows.map((row) => row.name).sort()).toEqual(files.map((file) => file.name).sort());
    expect(rows.map(described).sort()).toEqual(rows.map(ruled).sort());
    expect(rows.filter((row) => row.trigger).length).toBeGreaterThan(5);
  });

  it('the app role can neither make temporary objects nor steer a definer function', async () => {
    const pool = createPool(databaseUrl, silentLogger(), { max: 1 });
    try {
      const real = await pool.query<{ id: string }>('SELECT scheduler_installation_id() AS id');
      await expect(
        pool.query('CREATE TEMP VIEW installation AS SELECT gen_random_uuid() AS id'),
      ).rejects.toMatchObject({ code: '42501' });
      const again = await pool.query<{ id: string }>('SELECT scheduler_installation_id() AS id');
      expect(again.rows[0]?.id).toBe(real.rows[0]?.id);
    } finally {
      await pool.end();
    }
  });

  it('a dedicated login role runs the app, and RESET ROLE leads to no privileges', async () => {
    const url = new URL(databaseUrl);
    url.username = login;
    url.password = 'login-pass';
    const pool = createPool(url.toString(), silentLogger(), { max: 1 });
    try {
      const deps = { pool, now: () => new Date() };
      const job = await createJob(deps, DEFAULT_TENANT_ID, {
        name: 'via login role',
        schedule: '@daily',
        prompt: 'hi',
      });
      const page = await listJobs(deps, DEFAULT_TENANT_ID, {});
      expect(page.data.map((j) => j.id)).toContain(job.id);
      const client = await pool.connect();
      try {
        await client.query("SELECT set_config('role', 'none', false)");
        const who = await client.query<{ user: string }>('SELECT current_user AS user');
        expect(who.rows[0]?.user).toBe(login);
        await expect(client.query('SELECT count(*) FROM cron_jobs')).rejects.toMatchObject({
          code: '42501',
        });
      } finally {
        client.release(true);
      }
    } finally {
      await pool.end();
    }
  });

  it('the service pools as APP_DATABASE_URL when it is set, and migrates as DATABASE_URL', async () => {
    const url = new URL(databaseUrl);
    url.username = login;
    url.password = 'login-pass';
    const config = loadConfig({
      DATABASE_URL: databaseUrl,
      APP_DATABASE_URL: url.toString(),
      SAAS_API_PORT: '0',
      SAAS_API_HOST: '127.0.0.1',
      HERMES_POD_ID: 'roles-test',
    });
    const service = await startService(config, silentLogger());
    try {
      const ready = await fetch(`${service.url}/health/ready`);
      expect(ready.status).toBe(200);
      const { rows } = await withOwner(databaseUrl, (c) =>
        c.query<{ usename: string }>(
          `SELECT DISTINCT usename FROM pg_stat_activity
            WHERE datname = current_database() AND application_name = 'hermesx'`,
        ),
      );
      expect(rows.map((row) => row.usename)).toEqual([login]);
    } finally {
      await service.stop();
    }
  });
});
