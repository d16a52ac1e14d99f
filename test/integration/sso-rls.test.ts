// Row-level security of migration 380 as hermesx_app: a tenant sees and changes only its own
// members, invitations and sessions, reads only the users who are its members, and never writes
// a user or a session itself (sign-in and the session lookup go through the definer functions).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenant, type Pool } from '../../src/db/pool.js';
import { signIn, findSession } from '../../src/db/sessions.js';
import { createAppPool, createTestDatabase, withOwner } from '../helpers/database.js';

const INSUFFICIENT_PRIVILEGE = '42501';

describe('users, members, invitations and sessions under RLS', () => {
  let url: string;
  let pool: Pool;
  let tenantA: string;
  let tenantB: string;
  let userA: string;
  let userB: string;

  const session = (subject: string, email: string, n: number) =>
    signIn(pool, {
      issuer: 'https://id.example.com',
      subject,
      email,
      emailVerified: true,
      name: subject,
      sessionHash: `hash-${subject}-${n}`,
      csrfHash: 'csrf',
      idleMs: 3_600_000,
      absoluteMs: 7_200_000,
      maxSessions: 5,
    });

  beforeAll(async () => {
    url = await createTestDatabase();
    pool = createAppPool(url);
    [tenantA, tenantB] = await withOwner(url, async (owner) => {
      const ids: string[] = [];
      for (const name of ['rls a', 'rls b']) {
        const { rows } = await owner.query<{ id: string }>(
          'INSERT INTO tenants (name) VALUES ($1) RETURNING id',
          [name],
        );
        ids.push(rows[0]!.id);
      }
      await owner.query(
        `INSERT INTO tenant_invitations (tenant_id, email, role, expires_at)
         VALUES ($1, 'a@example.com', 'admin', now() + interval '1 day'),
                ($2, 'b@example.com', 'viewer', now() + interval '1 day')`,
        ids,
      );
      return ids as [string, string];
    });
    userA = (await session('a', 'a@example.com', 1)).userId;
    userB = (await session('b', 'b@example.com', 1)).userId;
  });

  afterAll(async () => {
    await pool?.end();
  });

  it('joined each user to the tenant that invited its verified email, its session on it', async () => {
    expect((await findSession(pool, 'hash-a-1', 3_600_000))?.tenant_id).toBe(tenantA);
    expect((await findSession(pool, 'hash-b-1', 3_600_000))?.role).toBe('viewer');
  });

  it('shows a tenant only its own members, invitations, users and sessions', async () => {
    const seen = await withTenant(pool, tenantA, async (client) => ({
      members: (await client.query('SELECT user_id FROM tenant_members')).rows,
      users: (await client.query('SELECT id FROM users')).rows,
      sessions: (await client.query('SELECT user_id FROM user_sessions')).rows,
      invitations: (await client.query('SELECT email FROM tenant_invitations')).rows,
    }));
    expect(seen).toEqual({
      members: [{ user_id: userA }],
      users: [{ id: userA }],
      sessions: [{ user_id: userA }],
      invitations: [{ email: 'a@example.com' }],
    });
  });

  it("cannot change or revoke another tenant's members and sessions", async () => {
    const changed = await withTenant(pool, tenantA, async (client) => ({
      role: (
        await client.query("UPDATE tenant_members SET role = 'owner' WHERE user_id = $1", [userB])
      ).rowCount,
      removed: (await client.query('DELETE FROM tenant_members WHERE user_id = $1', [userB]))
        .rowCount,
      revoked: (
        await client.query('UPDATE user_sessions SET revoked_at = now() WHERE user_id = $1', [
          userB,
        ])
      ).rowCount,
    }));
    expect(changed).toEqual({ role: 0, removed: 0, revoked: 0 });
    expect((await findSession(pool, 'hash-b-1', 3_600_000))?.role).toBe('viewer');
  });

  it('cannot add itself a member of another tenant, nor write users or sessions', async () => {
    const attempt = (sql: string, params: unknown[]) =>
      withTenant(pool, tenantA, (client) => client.query(sql, params)).then(
        () => 'allowed',
        (err: { code?: string }) => err.code,
      );
    expect(
      await attempt(
        "INSERT INTO tenant_members (tenant_id, user_id, role) VALUES ($1, $2, 'owner')",
        [tenantB, userA],
      ),
    ).toBe(INSUFFICIENT_PRIVILEGE);
    expect(
      await attempt("UPDATE users SET platform_role = 'operator' WHERE id = $1", [userA]),
    ).toBe(INSUFFICIENT_PRIVILEGE);
    expect(
      await attempt(
        `INSERT INTO user_sessions (id_hash, user_id, tenant_id, csrf_hash, idle_expires_at, absolute_expires_at)
         VALUES ('forged', $1, $2, 'x', now() + interval '1 hour', now() + interval '1 hour')`,
        [userA, tenantA],
      ),
    ).toBe(INSUFFICIENT_PRIVILEGE);
  });
});
