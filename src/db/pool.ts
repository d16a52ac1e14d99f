import pg from 'pg';
import type { Logger } from '../log.js';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

/** The role every pooled connection switches to, so row-level security applies to the app. */
export const APP_ROLE = 'hermesx_app';

export interface PoolOptions {
  max?: number;
  /** How long a query may wait for a connection before failing (so nothing hangs while PG is down). */
  connectionTimeoutMs?: number;
  /**
   * How long a query may take before it fails and its connection is dropped. A half-open
   * connection (after a failover) would otherwise hang its query, and a batch of claims, for ever.
   */
  queryTimeoutMs?: number;
  /** How long an idle connection stays open (0: until the pool ends). */
  idleTimeoutMs?: number;
}

/** A pool whose every connection runs as hermesx_app, never as the owner or a superuser. */
export function createPool(databaseUrl: string, log: Logger, options: PoolOptions = {}): Pool {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: options.max ?? 20,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 5000,
    query_timeout: options.queryTimeoutMs ?? 30_000,
    keepAlive: true,
    idleTimeoutMillis: options.idleTimeoutMs ?? 30_000,
    application_name: 'hermesx',
    // Awaited before the connection is handed out; a failure fails the checkout, so no statement
    // ever runs as the owner or a superuser.
    onConnect: async (client) => {
      await client.query(`SET ROLE ${APP_ROLE}`);
    },
  });
  pool.on('error', (err) => log.warn({ err }, 'database: idle connection failed'));
  // The pool hears a connection's 'error' only while it is idle. One PostgreSQL ends while it is
  // checked out (a restart ends them all), between two statements of a transaction, emits its
  // 'error' to nobody, and an unheard 'error' ends the process. Its statements fail (the caller
  // reports them) and the pool drops it on release: nothing more to do here.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/** Runs fn in a transaction whose RLS tenant is tenantId (transaction-local, so pooling is safe). */
export async function withTenant<T>(
  pool: Pool,
  tenantId: string,
  fn: (client: PoolClient) => Promise<T>,
): Promise<T> {
  return withTransaction(pool, fn, [['app.current_tenant', tenantId]]);
}

/** Runs fn in a transaction allowed to manage tenants and API keys (the admin routes). */
export async function withAdmin<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  return withTransaction(pool, fn, [['app.admin', 'on']]);
}

async function withTransaction<T>(
  pool: Pool,
  fn: (client: PoolClient) => Promise<T>,
  settings: [string, string][],
): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    // BEGIN and the transaction's settings go out as one simple-protocol query: one round trip
    // fewer for every tenant statement (a run-list page is three round trips, not four).
    const configs = settings.map(
      ([name, value]) =>
        `SELECT set_config(${client.escapeLiteral(name)}, ${client.escapeLiteral(value)}, true)`,
    );
    await client.query(['BEGIN', ...configs].join('; '));
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw err;
  } finally {
    client.release(broken);
  }
}
