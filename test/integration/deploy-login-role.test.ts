// The compose files' init script (deploy/postgres/init-login-role.sh), run as the postgres image
// runs it on a new data directory: against an empty database, before any migration. The service
// then migrates as the owner (DATABASE_URL), pools as the login role (APP_DATABASE_URL) without
// the start-up warning, and that role cannot leave hermesx_app.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { checkLoginRole } from '../../src/db/login-role.js';
import { startService } from '../../src/main.js';
import { createTestDatabase, withOwner } from '../helpers/database.js';
import { silentLogger } from '../helpers/log.js';

const SCRIPT = path.resolve(import.meta.dirname, '../../deploy/postgres/init-login-role.sh');

describe('the compose init script for the login role', () => {
  let databaseUrl: string;
  const login = `hermesx_login_${randomBytes(4).toString('hex')}`;
  const password = randomBytes(12).toString('hex');

  beforeAll(async () => {
    databaseUrl = await createTestDatabase({ migrate: false });
  });
  afterAll(async () => {
    await withOwner(databaseUrl, async (c) => {
      await c.query(
        `REVOKE ALL ON DATABASE ${new URL(databaseUrl).pathname.slice(1)} FROM ${login}`,
      );
      await c.query(`DROP ROLE IF EXISTS ${login}`);
    });
  });

  it('creates a login role the service pools as, with no warning and no way out of RLS', async () => {
    const owner = new URL(databaseUrl);
    await promisify(execFile)('sh', [SCRIPT], {
      env: {
        PATH: process.env.PATH,
        PGHOST: owner.hostname,
        PGPORT: owner.port,
        PGPASSWORD: decodeURIComponent(owner.password),
        POSTGRES_USER: decodeURIComponent(owner.username),
        POSTGRES_DB: owner.pathname.slice(1),
        HERMESX_LOGIN_USER: login,
        HERMESX_LOGIN_PASSWORD: password,
      },
    });
    const app = new URL(databaseUrl);
    app.username = login;
    app.password = password;
    const service = await startService(
      loadConfig({
        DATABASE_URL: databaseUrl,
        APP_DATABASE_URL: app.toString(),
        SAAS_API_PORT: '0',
        SAAS_API_HOST: '127.0.0.1',
        HERMES_POD_ID: 'login-role-test',
      }),
      silentLogger(),
    );
    try {
      expect((await fetch(`${service.url}/health/ready`)).status).toBe(200);
    } finally {
      await service.stop();
    }
    expect(await checkLoginRole(app.toString())).toBeUndefined();
    const client = new pg.Client({ connectionString: app.toString() });
    await client.connect();
    try {
      await expect(client.query('SELECT count(*) FROM cron_jobs')).rejects.toMatchObject({
        code: '42501',
      });
    } finally {
      await client.end();
    }
  });

  it('refuses to run without a password for the role', async () => {
    await expect(
      promisify(execFile)('sh', [SCRIPT], { env: { PATH: process.env.PATH, POSTGRES_USER: 'x' } }),
    ).rejects.toMatchObject({ stderr: expect.stringContaining('HERMESX_LOGIN_PASSWORD') });
  });
});
