import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findApiKey, generateApiKey, hashApiKey, insertApiKey } from '../../src/db/api-keys.js';
import { migrate } from '../../src/db/migrate.js';
import { withAdmin, withTenant, type Pool } from '../../src/db/pool.js';
import { createAppPool, createTestDatabase, withOwner } from '../helpers/database.js';
import { silentLogger } from '../helpers/log.js';

const DEFAULT_TENANT = '00000000-0000-0000-0000-000000000001';
const RLS_VIOLATION = '42501';
const FK_VIOLATION = '23503';

interface Fixture {
  tenantA: string;
  tenantB: string;
  deletedTenant: string;
  jobA: string;
  jobB: string;
  runA: string;
  runB: string;
  keys: { live: string; revoked: string; expired: string; ofDeletedTenant: string; liveB: string };
}

describe('row-level security as hermesx_app', () => {
  let url: string;
  let pool: Pool;
  let f: Fixture;

  beforeAll(async () => {
    url = await createTestDatabase();
    pool = createAppPool(url);
    f = await withOwner(url, async (owner) => {
      const tenant = async (name: string, deleted = false) => {
        const { rows } = await owner.query<{ id: string }>(
          `INSERT INTO tenants (name, deleted_at) VALUES ($1, $2) RETURNING id`,
          [name, deleted ? new Date() : null],
        );
        return rows[0]!.id;
      };
      const job = async (tenantId: string, name: string) => {
        const { rows } = await owner.query<{ id: string }>(
          `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt)
           VALUES ($1, $2, '*/5 * * * *', 'report') RETURNING id`,
          [tenantId, name],
        );
        return rows[0]!.id;
      };
      const run = async (jobId: string, tenantId: string) => {
        const { rows } = await owner.query<{ id: string }>(
          `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, pod_id)
           VALUES ($1, $2, '2030-01-01T00:00:00Z', 'pod-a') RETURNING id`,
          [jobId, tenantId],
        );
        return rows[0]!.id;
      };
      const key = async (tenantId: string, options: { revoked?: boolean; expired?: boolean }) => {
        const raw = generateApiKey();
        await owner.query(
          `INSERT INTO api_keys (tenant_id, name, key_hash, key_prefix, expires_at, revoked_at)
           VALUES ($1, 'k', $2, $3, $4, $5)`,
          [
            tenantId,
            hashApiKey(raw),
            raw.slice(0, 8),
            options.expired ? new Date(Date.now() - 60_000) : new Date(Date.now() + 3_600_000),
            options.revoked ? new Date() : null,
          ],
        );
        return raw;
      };
      const tenantA = await tenant('tenant A');
      const tenantB = await tenant('tenant B');
      const deletedTenant = await tenant('tenant gone', true);
      const jobA = await job(tenantA, 'job A');
      const jobB = await job(tenantB, 'job B');
      return {
        tenantA,
        tenantB,
        deletedTenant,
        jobA,
        jobB,
        runA: await run(jobA, tenantA),
        runB: await run(jobB, tenantB),
        keys: {
          live: await key(tenantA, {}),
          revoked: await key(tenantA, { revoked: true }),
          expired: await key(tenantA, { expired: true }),
          ofDeletedTenant: await key(deletedTenant, {}),
          liveB: await key(tenantB, {}),
        },
      };
    });
  });

  afterAll(async () => {
    await pool?.end();
  });

  describe('the app pool', () => {
    it('the tenant setting is sent as a literal: a quote in it stays text, never SQL', async () => {
      const odd = `x'); SELECT set_config('app.admin', 'on', true); --\\`;
      const seen = await withTenant(pool, odd, async (client) => {
        const { rows } = await client.query<{ tenant: string; admin: string }>(
          `SELECT current_setting('app.current_tenant') AS tenant,
                  coalesce(current_setting('app.admin', true), '') AS admin`,
        );
        return rows[0];
      });
      expect(seen).toEqual({ tenant: odd, admin: '' });
    });

    it('runs as hermesx_app, which is neither superuser nor BYPASSRLS', async () => {
      const { rows } = await pool.query(
        `SELECT current_user AS role, r.rolsuper, r.rolbypassrls
           FROM pg_roles r WHERE r.rolname = current_user`,
      );
      expect(rows).toEqual([{ role: 'hermesx_app', rolsuper: false, rolbypassrls: false }]);
    });

    it('does so although DATABASE_URL names a superuser', async () => {
      const { rows } = await withOwner(url, (owner) =>
        owner.query('SELECT rolsuper FROM pg_roles WHERE rolname = current_user'),
      );
      expect(rows).toEqual([{ rolsuper: true }]);
    });

    it('sees nothing without a tenant', async () => {
      for (const table of ['cron_jobs', 'cron_job_runs', 'api_keys', 'tenants']) {
        const { rows } = await pool.query<{ n: number }>(
          `SELECT count(*)::integer AS n FROM ${table}`,
        );
        expect({ table, n: rows[0]?.n }).toEqual({ table, n: 0 });
      }
    });

    it('cannot write a job without a tenant', async () => {
      await expect(
        pool.query(
          `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt) VALUES ($1, 'x', '* * * * *', 'x')`,
          [f.tenantA],
        ),
      ).rejects.toMatchObject({ code: RLS_VIOLATION });
    });
  });

  describe('inside withTenant(A)', () => {
    it("sees its own jobs and runs, never tenant B's", async () => {
      await withTenant(pool, f.tenantA, async (client) => {
        const jobs = await client.query<{ id: string }>('SELECT id FROM cron_jobs');
        expect(jobs.rows.map((row) => row.id)).toEqual([f.jobA]);
        const runs = await client.query<{ id: string }>('SELECT id FROM cron_job_runs');
        expect(runs.rows.map((row) => row.id)).toEqual([f.runA]);
        const byId = await client.query('SELECT id FROM cron_jobs WHERE id = $1', [f.jobB]);
        expect(byId.rowCount).toBe(0);
        const runsOfB = await client.query('SELECT id FROM cron_job_runs WHERE cron_job_id = $1', [
          f.jobB,
        ]);
        expect(runsOfB.rowCount).toBe(0);
      });
    });

    it('cannot insert a job for tenant B', async () => {
      await expect(
        withTenant(pool, f.tenantA, (client) =>
          client.query(
            `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt)
             VALUES ($1, 'intruder', '* * * * *', 'x')`,
            [f.tenantB],
          ),
        ),
      ).rejects.toMatchObject({ code: RLS_VIOLATION });
    });

    it('cannot move its own job to tenant B', async () => {
      await expect(
        withTenant(pool, f.tenantA, (client) =>
          client.query('UPDATE cron_jobs SET tenant_id = $2 WHERE id = $1', [f.jobA, f.tenantB]),
        ),
      ).rejects.toMatchObject({ code: RLS_VIOLATION });
    });

    it("updates and deletes none of tenant B's rows", async () => {
      const counts = await withTenant(pool, f.tenantA, async (client) => ({
        updateJob: (
          await client.query("UPDATE cron_jobs SET name = 'hacked' WHERE id = $1", [f.jobB])
        ).rowCount,
        updateRun: (
          await client.query("UPDATE cron_job_runs SET status = 'failed' WHERE id = $1", [f.runB])
        ).rowCount,
        deleteRun: (await client.query('DELETE FROM cron_job_runs WHERE id = $1', [f.runB]))
          .rowCount,
        deleteJob: (await client.query('DELETE FROM cron_jobs WHERE id = $1', [f.jobB])).rowCount,
      }));
      expect(counts).toEqual({ updateJob: 0, updateRun: 0, deleteRun: 0, deleteJob: 0 });
      const after = await withOwner(url, (owner) =>
        owner.query(
          `SELECT j.name, r.status FROM cron_jobs j JOIN cron_job_runs r ON r.cron_job_id = j.id
            WHERE j.id = $1`,
          [f.jobB],
        ),
      );
      expect(after.rows).toEqual([{ name: 'job B', status: 'running' }]);
    });

    it("cannot insert a run for tenant B's job, under either tenant id", async () => {
      await expect(
        withTenant(pool, f.tenantA, (client) =>
          client.query(
            `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, pod_id)
             VALUES ($1, $2, now(), 'pod-x')`,
            [f.jobB, f.tenantA],
          ),
        ),
      ).rejects.toMatchObject({ code: FK_VIOLATION });
      await expect(
        withTenant(pool, f.tenantA, (client) =>
          client.query(
            `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, pod_id)
             VALUES ($1, $2, now(), 'pod-x')`,
            [f.jobB, f.tenantB],
          ),
        ),
      ).rejects.toMatchObject({ code: RLS_VIOLATION });
    });

    it('can write its own rows', async () => {
      await withTenant(pool, f.tenantA, async (client) => {
        const { rows } = await client.query<{ id: string }>(
          `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt)
           VALUES ($1, 'own', '* * * * *', 'x') RETURNING id`,
          [f.tenantA],
        );
        const jobId = rows[0]!.id;
        const update = await client.query("UPDATE cron_jobs SET name = 'own2' WHERE id = $1", [
          jobId,
        ]);
        expect(update.rowCount).toBe(1);
        const remove = await client.query('DELETE FROM cron_jobs WHERE id = $1', [jobId]);
        expect(remove.rowCount).toBe(1);
      });
    });
  });

  describe('tenants and API keys', () => {
    it('a tenant sees only its own tenant row and its own keys', async () => {
      await withTenant(pool, f.tenantA, async (client) => {
        const tenants = await client.query<{ id: string }>('SELECT id FROM tenants');
        expect(tenants.rows.map((row) => row.id)).toEqual([f.tenantA]);
        const keys = await client.query<{ tenant_id: string }>('SELECT tenant_id FROM api_keys');
        expect(keys.rows.length).toBe(3);
        expect(new Set(keys.rows.map((row) => row.tenant_id))).toEqual(new Set([f.tenantA]));
      });
    });

    it("a tenant may create its own API keys, never another tenant's, nor tenants", async () => {
      const own = await withTenant(pool, f.tenantA, (client) =>
        insertApiKey(client, { tenantId: f.tenantA, name: 'self-made', scopes: ['jobs:read'] }),
      );
      expect(own.row).toMatchObject({ tenant_id: f.tenantA, scopes: ['jobs:read'] });
      // Away again: the test below counts tenant A's keys.
      await withOwner(url, (owner) =>
        owner.query('DELETE FROM api_keys WHERE id = $1', [own.row.id]),
      );
      await expect(
        withTenant(pool, f.tenantA, (client) =>
          insertApiKey(client, { tenantId: f.tenantB, name: 'theirs', scopes: ['jobs:read'] }),
        ),
      ).rejects.toMatchObject({ code: RLS_VIOLATION });
      await expect(
        withTenant(pool, f.tenantA, (client) =>
          client.query('UPDATE api_keys SET revoked_at = now() WHERE tenant_id = $1', [f.tenantB]),
        ),
      ).resolves.toMatchObject({ rowCount: 0 });
      await expect(
        withTenant(pool, f.tenantA, (client) =>
          client.query("INSERT INTO tenants (name) VALUES ('rogue')"),
        ),
      ).rejects.toMatchObject({ code: RLS_VIOLATION });
      await expect(
        withTenant(pool, f.tenantA, (client) =>
          client.query("UPDATE tenants SET name = 'renamed' WHERE id = $1", [f.tenantA]),
        ),
      ).resolves.toMatchObject({ rowCount: 0 });
    });

    it('withAdmin sees every tenant and may create a key', async () => {
      await withAdmin(pool, async (client) => {
        const { rows } = await client.query<{ id: string }>('SELECT id FROM tenants');
        expect(rows.map((row) => row.id).sort()).toEqual(
          [DEFAULT_TENANT, f.tenantA, f.tenantB, f.deletedTenant].sort(),
        );
        const { row, rawKey } = await insertApiKey(client, {
          tenantId: f.tenantB,
          name: 'admin',
          scopes: ['jobs:read'],
        });
        expect(row.tenant_id).toBe(f.tenantB);
        expect(rawKey.startsWith('hk_')).toBe(true);
        expect(row.key_prefix).toBe(rawKey.slice(0, 8));
      });
    });

    it('withAdmin does not open cron jobs', async () => {
      const { rows } = await withAdmin(pool, (client) => client.query('SELECT id FROM cron_jobs'));
      expect(rows).toEqual([]);
    });

    it('auth_find_api_key finds live keys only', async () => {
      expect(await findApiKey(pool, f.keys.live)).toEqual({
        key_id: expect.any(String),
        tenant_id: f.tenantA,
        name: expect.any(String),
        scopes: null,
      });
      expect(await findApiKey(pool, f.keys.liveB)).toMatchObject({ tenant_id: f.tenantB });
      expect(await findApiKey(pool, f.keys.revoked)).toBeUndefined();
      expect(await findApiKey(pool, f.keys.expired)).toBeUndefined();
      expect(await findApiKey(pool, f.keys.ofDeletedTenant)).toBeUndefined();
      expect(await findApiKey(pool, generateApiKey())).toBeUndefined();
    });
  });
});

describe('a plain (non-superuser) database owner, as on a managed database', () => {
  // PostgreSQL 16 gives a CREATEROLE user who creates a role only ADMIN OPTION on it (no SET, no
  // INHERIT): the state a managed-database owner is in after migration 001 created hermesx_app.
  const suffix = randomBytes(4).toString('hex');
  const ownerRole = `owner_${suffix}`;
  const database = `managed_${suffix}`;
  let superUrl: string;
  let url: string;
  let pool: Pool | undefined;

  beforeAll(async () => {
    superUrl = await createTestDatabase(); // also makes sure hermesx_app exists on the server
    await withOwner(superUrl, async (su) => {
      await su.query(`CREATE ROLE ${ownerRole} LOGIN CREATEROLE PASSWORD 'owner-pw'`);
      await su.query(
        `GRANT hermesx_app TO ${ownerRole} WITH ADMIN OPTION, INHERIT FALSE, SET FALSE`,
      );
      await su.query(`CREATE DATABASE ${database} OWNER ${ownerRole}`);
    });
    const managed = new URL(superUrl);
    managed.username = ownerRole;
    managed.password = 'owner-pw';
    managed.pathname = `/${database}`;
    url = managed.toString();
  });

  afterAll(async () => {
    await pool?.end();
    await withOwner(superUrl, async (su) => {
      await su.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await su.query(`DROP OWNED BY ${ownerRole}`);
      await su.query(`DROP ROLE IF EXISTS ${ownerRole}`);
    });
  });

  it('migrates, and the app pool runs as hermesx_app with the same isolation', async () => {
    await migrate(url, silentLogger());
    const { tenantA, tenantB, jobB } = await withOwner(url, async (owner) => {
      const { rows: roles } = await owner.query(
        'SELECT rolsuper FROM pg_roles WHERE rolname = current_user',
      );
      expect(roles).toEqual([{ rolsuper: false }]);
      const { rows } = await owner.query<{ id: string }>(
        "INSERT INTO tenants (name) VALUES ('A'), ('B') RETURNING id",
      );
      const [a, b] = rows.map((row) => row.id) as [string, string];
      const { rows: jobs } = await owner.query<{ id: string }>(
        `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt)
         VALUES ($1, 'b', '* * * * *', 'x') RETURNING id`,
        [b],
      );
      return { tenantA: a, tenantB: b, jobB: jobs[0]!.id };
    });

    pool = createAppPool(url);
    const { rows } = await pool.query('SELECT current_user AS role');
    expect(rows).toEqual([{ role: 'hermesx_app' }]);
    await withTenant(pool, tenantA, async (client) => {
      expect((await client.query('SELECT id FROM cron_jobs')).rowCount).toBe(0);
      expect(
        (await client.query("UPDATE cron_jobs SET name = 'x' WHERE id = $1", [jobB])).rowCount,
      ).toBe(0);
    });
    await expect(
      withTenant(pool, tenantA, (client) =>
        client.query(
          `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt) VALUES ($1, 'x', '* * * * *', 'x')`,
          [tenantB],
        ),
      ),
    ).rejects.toMatchObject({ code: RLS_VIOLATION });
    // The SECURITY DEFINER functions, owned by this owner, still see across tenants.
    const { rows: loaded } = await pool.query<{ id: string }>(
      'SELECT id FROM scheduler_load_schedules()',
    );
    expect(loaded.map((row) => row.id)).toEqual([jobB]);
    // A second run (every start migrates) applies nothing and still succeeds.
    expect(await migrate(url, silentLogger())).toEqual([]);
  });
});
