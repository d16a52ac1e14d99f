import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { SessionSettings } from '../../config.js';
import {
  countOwnersLocked,
  countSeats,
  deleteClosedInvitations,
  deleteInvitation,
  selectOpenInvitationRole,
  deleteMember,
  hasOpenInvitation,
  listInvitations,
  listMembers,
  lockTenantSeats,
  selectMember,
  updateMemberRole,
  upsertInvitation,
  type InvitationRow,
  type MemberRow,
} from '../../db/members.js';
import { withAdmin, withTenant, type Pool, type PoolClient } from '../../db/pool.js';
import { selectTenant } from '../../db/tenants.js';
import { grants, ROLES, type Role } from '../../domain/scopes.js';
import { isUuid } from '../../jobs/commands.js';
import { mayManageRole } from '../../sso/role-grants.js';
import { tenantOf } from '../auth.js';
import { ApiError } from '../errors.js';
import {
  AUTHENTICATED,
  BEARER,
  NoQuery,
  WITH_BODY,
  WITH_ID,
  errorResponses,
} from '../responses.js';
import { IdParams, NoContent } from '../schemas.js';

const tags = ['members'];
const security = BEARER;
const manage = { access: 'tenant' as const, scope: 'access:manage' as const };
const timestamp = z.string().meta({ format: 'date-time', description: 'RFC 3339 timestamp (UTC)' });

const Member = z
  .object({
    user_id: z.string(),
    email: z.string().nullable(),
    name: z.string().nullable(),
    role: z.enum(ROLES),
    invited_by: z
      .string()
      .nullable()
      .describe('the user who invited (null: a key or the operator)'),
    created_at: timestamp,
  })
  .meta({ id: 'Member' });
const Invitation = z
  .object({
    id: z.string(),
    email: z.string(),
    role: z.enum(ROLES),
    invited_by: z.string().nullable(),
    created_at: timestamp,
    expires_at: timestamp,
  })
  .meta({
    id: 'Invitation',
    description: 'Joins the tenant at the first sign-in with this verified email',
  });
const InvitationBody = z
  .strictObject({
    email: z.email().max(320).describe('the address the provider must vouch for (verified)'),
    role: z.enum(ROLES),
  })
  .meta({ id: 'InvitationCreate' });
const RoleBody = z.strictObject({ role: z.enum(ROLES) }).meta({ id: 'MemberRoleUpdate' });
const UserParams = z.object({ userId: z.string().max(100).describe('the user id (a UUID)') });

/**
 * A tenant's members (users signed in through the provider) and its invitations by email. Every
 * route needs `access:manage`: the list of colleagues and their addresses is an admin's business
 * (docs/security.md). Nobody grants or takes away more than it holds (src/sso/role-grants.ts), and
 * a tenant keeps at least one owner.
 */
export function registerMemberRoutes(
  app: FastifyInstance,
  deps: { pool: Pool; sessions: SessionSettings },
): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { pool } = deps;

  r.get(
    '/v1/members',
    {
      config: manage,
      schema: {
        tags,
        security,
        summary: "List the tenant's members",
        operationId: 'listMembers',
        querystring: NoQuery,
        response: {
          200: z.object({ data: z.array(Member) }).meta({ id: 'MemberList' }),
          ...errorResponses(...AUTHENTICATED),
        },
      },
    },
    async (request) => {
      const rows = await withTenant(pool, tenantOf(request), listMembers);
      return { data: rows.map(toMemberView) };
    },
  );

  r.patch(
    '/v1/members/:userId',
    {
      config: manage,
      schema: {
        tags,
        security,
        summary: "Change a member's role",
        description: 'Granting owner, or changing an owner, needs an owner. The last owner stays.',
        operationId: 'updateMemberRole',
        params: UserParams,
        body: RoleBody,
        response: {
          200: Member,
          ...errorResponses(...AUTHENTICATED, ...WITH_BODY, ...WITH_ID, 409),
        },
      },
    },
    async (request) => {
      const { userId } = request.params;
      const role = request.body.role;
      const row = await withTenant(pool, tenantOf(request), async (client) => {
        const member = await requireMember(client, userId);
        requireMayManage(request, member.role);
        requireMayManage(request, role);
        if (member.role === 'owner' && role !== 'owner') await requireAnotherOwner(client);
        await updateMemberRole(client, userId, role);
        return { ...member, role };
      });
      return toMemberView(row);
    },
  );

  r.delete(
    '/v1/members/:userId',
    {
      config: manage,
      schema: {
        tags,
        security,
        summary: 'Remove a member',
        description: "Ends the member's sessions on this tenant at once. The last owner stays.",
        operationId: 'removeMember',
        params: UserParams,
        response: { 204: NoContent, ...errorResponses(...AUTHENTICATED, ...WITH_ID, 409) },
      },
    },
    async (request, reply) => {
      const { userId } = request.params;
      await withTenant(pool, tenantOf(request), async (client) => {
        const member = await requireMember(client, userId);
        requireMayManage(request, member.role);
        if (member.role === 'owner') await requireAnotherOwner(client);
        await deleteMember(client, userId);
      });
      return reply.code(204).send();
    },
  );

  r.get(
    '/v1/invitations',
    {
      config: manage,
      schema: {
        tags,
        security,
        summary: 'List open invitations',
        operationId: 'listInvitations',
        querystring: NoQuery,
        response: {
          200: z.object({ data: z.array(Invitation) }).meta({ id: 'InvitationList' }),
          ...errorResponses(...AUTHENTICATED),
        },
      },
    },
    async (request) => {
      const rows = await withTenant(pool, tenantOf(request), listInvitations);
      return { data: rows.map(toInvitationView) };
    },
  );

  r.post(
    '/v1/invitations',
    {
      config: manage,
      schema: {
        tags,
        security,
        summary: 'Invite someone by email',
        description:
          'The person joins with this role at their next sign-in whose email the provider has verified. Inviting the same address again renews the invitation.',
        operationId: 'createInvitation',
        body: InvitationBody,
        response: { 201: Invitation, ...errorResponses(...AUTHENTICATED, ...WITH_BODY, 409) },
      },
    },
    async (request, reply) => {
      requireMayManage(request, request.body.role);
      const actor = request.principal?.actor;
      const row = await invite(pool, deps.sessions, {
        tenantId: tenantOf(request),
        email: request.body.email.toLowerCase(),
        role: request.body.role,
        invitedBy: actor?.type === 'user' ? actor.id : null,
      });
      return reply.code(201).send(toInvitationView(row));
    },
  );

  r.delete(
    '/v1/invitations/:id',
    {
      config: manage,
      schema: {
        tags,
        security,
        summary: 'Withdraw an open invitation',
        operationId: 'deleteInvitation',
        params: IdParams,
        response: { 204: NoContent, ...errorResponses(...AUTHENTICATED, ...WITH_ID) },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      // Withdrawing an invitation is touching the role it offers (requireMayManage).
      const deleted =
        isUuid(id) &&
        (await withTenant(pool, tenantOf(request), async (c) => {
          const role = await selectOpenInvitationRole(c, id);
          if (role === undefined) return false;
          requireMayManage(request, role);
          return deleteInvitation(c, id);
        }));
      if (!deleted) throw new ApiError(404, 'not_found', `no open invitation with id ${id}`);
      return reply.code(204).send();
    },
  );

  r.post(
    '/v1/tenants/:id/invitations',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['tenants (admin)'],
        security,
        summary: "Invite someone to a tenant (the operator's way to its first owner)",
        operationId: 'createTenantInvitation',
        params: IdParams,
        body: InvitationBody,
        response: {
          201: Invitation,
          ...errorResponses(...AUTHENTICATED, ...WITH_BODY, ...WITH_ID, 409),
        },
      },
    },
    async (request, reply) => {
      const tenantId = request.params.id;
      const tenant = isUuid(tenantId)
        ? await withAdmin(pool, (client) => selectTenant(client, tenantId))
        : undefined;
      if (!tenant || tenant.deleted_at) {
        throw new ApiError(404, 'not_found', `no tenant with id ${tenantId}`);
      }
      const actor = request.principal?.actor;
      const row = await invite(pool, deps.sessions, {
        tenantId,
        email: request.body.email.toLowerCase(),
        role: request.body.role,
        invitedBy: actor?.type === 'user' ? actor.id : null,
      });
      return reply.code(201).send(toInvitationView(row));
    },
  );
}

async function invite(
  pool: Pool,
  sessions: SessionSettings,
  input: { tenantId: string; email: string; role: Role; invitedBy: string | null },
): Promise<InvitationRow> {
  return withTenant(pool, input.tenantId, async (client) => {
    await lockTenantSeats(client, input.tenantId);
    await deleteClosedInvitations(client);
    const members = await listMembers(client);
    if (members.some((member) => member.email === input.email)) {
      throw new ApiError(409, 'already_member', `${input.email} is already a member`);
    }
    const renewing = await hasOpenInvitation(client, input.email);
    if (!renewing && (await countSeats(client)) >= sessions.maxMembersPerTenant) {
      throw new ApiError(
        409,
        'member_limit',
        `this tenant has ${sessions.maxMembersPerTenant} members and open invitations, its limit (TENANT_MAX_MEMBERS)`,
      );
    }
    return upsertInvitation(client, { ...input, ttlMs: sessions.invitationTtlMs });
  });
}

async function requireMember(client: PoolClient, userId: string): Promise<MemberRow> {
  const member = isUuid(userId) ? await selectMember(client, userId, true) : undefined;
  if (!member) throw new ApiError(404, 'not_found', `no member with user id ${userId}`);
  return member;
}

async function requireAnotherOwner(client: PoolClient): Promise<void> {
  if ((await countOwnersLocked(client)) <= 1) {
    throw new ApiError(409, 'last_owner', 'a tenant keeps at least one owner');
  }
}

function requireMayManage(request: FastifyRequest, role: Role): void {
  const principal = request.principal;
  // The operator (admin token) invites through /v1/tenants/{id}/invitations, any role.
  if (principal?.kind === 'admin') return;
  const scopes = principal?.kind === 'tenant' ? principal.scopes : [];
  if (!grants(scopes, 'access:manage')) {
    throw new ApiError(403, 'insufficient_scope', 'this needs the access:manage scope');
  }
  if (!mayManageRole(scopes, role)) {
    throw new ApiError(
      403,
      'insufficient_role',
      `only an owner may grant, change or remove the ${role} role`,
    );
  }
}

function toMemberView(row: MemberRow) {
  return { ...row, created_at: row.created_at.toISOString() };
}

function toInvitationView(row: InvitationRow) {
  return {
    ...row,
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
  };
}
