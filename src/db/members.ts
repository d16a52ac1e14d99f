import type { Role } from '../domain/scopes.js';
import type { PoolClient } from './pool.js';

// A tenant's members and invitations, inside withTenant (RLS: the tenant's rows only).

export interface MemberRow {
  user_id: string;
  email: string | null;
  name: string | null;
  role: Role;
  invited_by: string | null;
  created_at: Date;
}

export interface InvitationRow {
  id: string;
  email: string;
  role: Role;
  invited_by: string | null;
  created_at: Date;
  expires_at: Date;
}

const MEMBER_COLUMNS = 'm.user_id, u.email, u.name, m.role, m.invited_by, m.created_at';
const INVITATION_COLUMNS = 'id, email, role, invited_by, created_at, expires_at';

export async function listMembers(client: PoolClient): Promise<MemberRow[]> {
  const { rows } = await client.query<MemberRow>(
    `SELECT ${MEMBER_COLUMNS} FROM tenant_members m JOIN users u ON u.id = m.user_id
     ORDER BY m.created_at, m.user_id`,
  );
  return rows;
}

export async function selectMember(
  client: PoolClient,
  userId: string,
  lock = false,
): Promise<MemberRow | undefined> {
  const { rows } = await client.query<MemberRow>(
    `SELECT ${MEMBER_COLUMNS} FROM tenant_members m JOIN users u ON u.id = m.user_id
     WHERE m.user_id = $1 ${lock ? 'FOR UPDATE OF m' : ''}`,
    [userId],
  );
  return rows[0];
}

/** Owners of the tenant, locked: the last one may be neither removed nor demoted. */
export async function countOwnersLocked(client: PoolClient): Promise<number> {
  const { rows } = await client.query<{ user_id: string }>(
    "SELECT user_id FROM tenant_members WHERE role = 'owner' FOR UPDATE",
  );
  return rows.length;
}

export async function updateMemberRole(
  client: PoolClient,
  userId: string,
  role: Role,
): Promise<void> {
  await client.query('UPDATE tenant_members SET role = $2 WHERE user_id = $1', [userId, role]);
}

/** Removes the member and ends every session it has on this tenant, in one transaction. */
export async function deleteMember(client: PoolClient, userId: string): Promise<number> {
  await client.query('DELETE FROM tenant_members WHERE user_id = $1', [userId]);
  const { rowCount } = await client.query(
    'UPDATE user_sessions SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL',
    [userId],
  );
  return rowCount ?? 0;
}

/** Members plus open, unexpired invitations: what TENANT_MAX_MEMBERS bounds. */
export async function countSeats(client: PoolClient): Promise<number> {
  const { rows } = await client.query<{ seats: number }>(
    `SELECT (SELECT count(*) FROM tenant_members)::int
          + (SELECT count(*) FROM tenant_invitations
              WHERE accepted_at IS NULL AND expires_at > now())::int AS seats`,
  );
  return rows[0]?.seats ?? 0;
}

/**
 * Opens an invitation, or renews the open one to that address (new role, inviter and expiry).
 * The caller holds lockTenantSeats, so two invitations cannot both take the last seat.
 */
export async function upsertInvitation(
  client: PoolClient,
  input: { tenantId: string; email: string; role: Role; invitedBy: string | null; ttlMs: number },
): Promise<InvitationRow> {
  const { rows } = await client.query<InvitationRow>(
    `INSERT INTO tenant_invitations (tenant_id, email, role, invited_by, expires_at)
     VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5::double precision / 1000))
     ON CONFLICT (tenant_id, email) WHERE accepted_at IS NULL DO UPDATE
       SET role = EXCLUDED.role, invited_by = EXCLUDED.invited_by,
           created_at = now(), expires_at = EXCLUDED.expires_at
     RETURNING ${INVITATION_COLUMNS}`,
    [input.tenantId, input.email, input.role, input.invitedBy, input.ttlMs],
  );
  return rows[0] as InvitationRow;
}

/** Forgets the tenant's accepted and expired invitations (kept no longer than the next invite). */
export async function deleteClosedInvitations(client: PoolClient): Promise<void> {
  await client.query(
    'DELETE FROM tenant_invitations WHERE accepted_at IS NOT NULL OR expires_at <= now()',
  );
}

export async function hasOpenInvitation(client: PoolClient, email: string): Promise<boolean> {
  const { rows } = await client.query(
    'SELECT 1 FROM tenant_invitations WHERE email = $1 AND accepted_at IS NULL AND expires_at > now()',
    [email],
  );
  return rows.length > 0;
}

export async function listInvitations(client: PoolClient): Promise<InvitationRow[]> {
  const { rows } = await client.query<InvitationRow>(
    `SELECT ${INVITATION_COLUMNS} FROM tenant_invitations
     WHERE accepted_at IS NULL AND expires_at > now() ORDER BY created_at, id`,
  );
  return rows;
}

/** The role an open invitation offers, locked until the transaction ends; undefined: none. */
export async function selectOpenInvitationRole(
  client: PoolClient,
  id: string,
): Promise<Role | undefined> {
  const { rows } = await client.query<{ role: Role }>(
    'SELECT role FROM tenant_invitations WHERE id = $1 AND accepted_at IS NULL FOR UPDATE',
    [id],
  );
  return rows[0]?.role;
}

export async function deleteInvitation(client: PoolClient, id: string): Promise<boolean> {
  const { rowCount } = await client.query(
    'DELETE FROM tenant_invitations WHERE id = $1 AND accepted_at IS NULL',
    [id],
  );
  return (rowCount ?? 0) > 0;
}

/** Serializes the tenant's invitations (a transaction-scoped advisory lock on its id). */
export async function lockTenantSeats(client: PoolClient, tenantId: string): Promise<void> {
  await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1 || ':seats', 0))", [
    tenantId,
  ]);
}
