// What the application's login role may do beyond hermesx_app: a superuser (the postgres image's
// POSTGRES_USER) or the tables' owner can leave the role (RESET ROLE) and bypass row-level
// security, so a bug or an injection would reach every tenant. Said once at start.
import pg from 'pg';

/** A warning about the pool's login role, or undefined when it is a plain login role. */
export async function checkLoginRole(databaseUrl: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ user: string; superuser: boolean; owned: number }>(
      `SELECT session_user AS user,
              (SELECT rolsuper FROM pg_roles WHERE rolname = session_user) AS superuser,
              (SELECT count(*)::int FROM pg_tables
                WHERE schemaname = 'public' AND tableowner = session_user) AS owned`,
    );
    const row = rows[0];
    if (!row || (!row.superuser && row.owned === 0)) return undefined;
    const what = row.superuser ? 'a superuser' : `the owner of ${row.owned} tables`;
    return (
      `the app pool logs in as ${row.user}, ${what}: it could leave hermesx_app and bypass ` +
      'row-level security; set APP_DATABASE_URL to a login role granted only hermesx_app (docs/security.md)'
    );
  } finally {
    await client.end();
  }
}
