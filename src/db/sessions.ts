import type { Role } from '../domain/scopes.js';
import type { Pool } from './pool.js';

// Sign-in sessions, through the SECURITY DEFINER functions of migration 380 (a session is found
// before any tenant is known). Each function is one statement: one round trip, its own
// transaction.

type Query = Pick<Pool, 'query'>;

export interface SignInInput {
  issuer: string;
  subject: string;
  email: string | undefined;
  emailVerified: boolean;
  name: string | undefined;
  sessionHash: string;
  csrfHash: string;
  idleMs: number;
  absoluteMs: number;
  maxSessions: number;
}

export async function signIn(
  db: Query,
  input: SignInInput,
): Promise<{ userId: string; tenantId: string | null; joined: number }> {
  const { rows } = await db.query<{ user_id: string; tenant_id: string | null; joined: number }>(
    `SELECT user_id, tenant_id, joined FROM auth_sign_in($1, $2, $3, $4, $5, $6, $7,
       make_interval(secs => $8::double precision / 1000),
       make_interval(secs => $9::double precision / 1000), $10)`,
    [
      input.issuer,
      input.subject,
      input.email?.slice(0, 320) ?? null,
      input.emailVerified,
      input.name?.slice(0, 200) ?? null,
      input.sessionHash,
      input.csrfHash,
      input.idleMs,
      input.absoluteMs,
      input.maxSessions,
    ],
  );
  const row = rows[0] as { user_id: string; tenant_id: string | null; joined: number };
  return { userId: row.user_id, tenantId: row.tenant_id, joined: row.joined };
}

export interface SessionRow {
  user_id: string;
  email: string | null;
  name: string | null;
  platform_role: 'operator' | null;
  tenant_id: string | null;
  /** The user's current role in the session's tenant; null once removed (or no tenant). */
  role: Role | null;
  csrf_hash: string;
}

export async function findSession(
  db: Query,
  sessionHash: string,
  idleMs: number,
): Promise<SessionRow | undefined> {
  const { rows } = await db.query<SessionRow>(
    `SELECT user_id, email, name, platform_role, tenant_id, role, csrf_hash
       FROM auth_session_find($1, make_interval(secs => $2::double precision / 1000))`,
    [sessionHash, idleMs],
  );
  return rows[0];
}

export async function revokeSession(db: Query, sessionHash: string): Promise<boolean> {
  const { rows } = await db.query<{ revoked: boolean }>(
    'SELECT auth_session_revoke($1) AS revoked',
    [sessionHash],
  );
  return rows[0]?.revoked === true;
}

export async function chooseSessionTenant(
  db: Query,
  sessionHash: string,
  tenantId: string,
): Promise<boolean> {
  const { rows } = await db.query<{ chosen: boolean }>(
    'SELECT auth_session_choose_tenant($1, $2) AS chosen',
    [sessionHash, tenantId],
  );
  return rows[0]?.chosen === true;
}

export interface UserTenantRow {
  tenant_id: string;
  name: string;
  role: Role;
}

export async function listUserTenants(db: Query, userId: string): Promise<UserTenantRow[]> {
  const { rows } = await db.query<UserTenantRow>(
    'SELECT tenant_id, name, role FROM auth_user_tenants($1)',
    [userId],
  );
  return rows;
}
