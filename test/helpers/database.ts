import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { createPool, type Pool } from '../../src/db/pool.js';
import { silentLogger } from './log.js';

/** A fresh, migrated database on the shared test server; the URL connects as its superuser. */
export async function createTestDatabase(options: { migrate?: boolean } = {}): Promise<string> {
  const adminUrl = inject('databaseUrl');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  if (options.migrate !== false) await migrate(databaseUrl, silentLogger());
  return databaseUrl;
}

/** The application pool (connections run as hermesx_app). */
export function createAppPool(databaseUrl: string): Pool {
  return createPool(databaseUrl, silentLogger(), { max: 5 });
}

/** A connection as the DATABASE_URL user itself (superuser in tests), for set-up and checks. */
export async function withOwner<T>(
  databaseUrl: string,
  fn: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
