import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { insertApiKey, listApiKeys, revokeApiKey, type ApiKeyRow } from '../../db/api-keys.js';
import { withAdmin, withTenant, type Pool, type PoolClient } from '../../db/pool.js';
import { selectTenant } from '../../db/tenants.js';
import { SCOPES, type Scope } from '../../domain/scopes.js';
import { isUuid } from '../../jobs/commands.js';
import { noteChange } from '../audit-hook.js';
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
import {
  ApiKeyCreateBody,
  ApiKeyCreated,
  ApiKeyList,
  ApiKeyListQuery,
  IdParams,
  NoContent,
  TenantApiKeyCreateBody,
} from '../schemas.js';

const security = BEARER;
type Deps = { pool: Pool; now: () => Date };

/**
 * Tenant API keys. Only a hash is stored; the raw key is in the creation response only. The admin
 * manages every tenant's keys under /v1/api-keys; a tenant holding access:manage manages its own
 * under /v1/tenant/api-keys, and cannot give a key a scope it lacks itself.
 */
export function registerApiKeyRoutes(app: FastifyInstance, deps: Deps): void {
  registerAdminKeyRoutes(app, deps);
  registerTenantKeyRoutes(app, deps);
}

function registerAdminKeyRoutes(app: FastifyInstance, deps: Deps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['api keys (admin)'];
  r.post(
    '/v1/api-keys',
    {
      config: { access: 'admin', audit: { action: 'key.create', target: 'api_key' } } as const,
      schema: {
        tags,
        security,
        summary: 'Create a tenant API key',
        description: 'Admin token only. The raw key is in this answer only; keep it.',
        operationId: 'createApiKey',
        body: ApiKeyCreateBody,
        response: { 201: ApiKeyCreated, ...errorResponses(...AUTHENTICATED, ...WITH_BODY, 404) },
      },
    },
    async (request, reply) => {
      const { tenant_id: tenantId, name, expires_at: expiresAt, scopes } = request.body;
      const expires = futureDate(expiresAt, deps.now());
      const created = await withAdmin(deps.pool, async (client) => {
        const tenant = await selectTenant(client, tenantId);
        if (!tenant || tenant.deleted_at)
          throw new ApiError(404, 'not_found', `no tenant with id ${tenantId}`);
        return insertApiKey(client, {
          tenantId,
          name,
          expiresAt: expires,
          scopes: scopes ?? SCOPES,
        });
      });
      return reply.code(201).send(announceCreated(request, created.row, created.rawKey));
    },
  );

  r.get(
    '/v1/api-keys',
    {
      config: { access: 'admin' } as const,
      schema: {
        tags,
        security,
        summary: 'List API keys (without the keys)',
        description: 'Admin token only. Revoked and expired keys are listed too.',
        operationId: 'listApiKeys',
        querystring: ApiKeyListQuery,
        response: { 200: ApiKeyList, ...errorResponses(...AUTHENTICATED) },
      },
    },
    async (request) => {
      const rows = await withAdmin(deps.pool, (client) =>
        listApiKeys(client, request.query.tenant_id ?? null),
      );
      return { data: rows.map(toKeyView) };
    },
  );

  r.delete(
    '/v1/api-keys/:id',
    {
      config: { access: 'admin', audit: { action: 'key.revoke', target: 'api_key' } } as const,
      schema: {
        tags,
        security,
        summary: 'Revoke an API key',
        description: 'Admin token only. The key stops working at once.',
        operationId: 'revokeApiKey',
        params: IdParams,
        response: { 204: NoContent, ...errorResponses(...AUTHENTICATED, ...WITH_ID) },
      },
    },
    async (request, reply) => {
      await revoke(request, request.params.id, (fn) => withAdmin(deps.pool, fn));
      return reply.code(204).send();
    },
  );
}

function registerTenantKeyRoutes(app: FastifyInstance, deps: Deps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['api keys'];
  r.post(
    '/v1/tenant/api-keys',
    {
      config: {
        access: 'tenant',
        scope: 'access:manage',
        audit: { action: 'key.create', target: 'api_key' },
      } as const,
      schema: {
        tags,
        security,
        summary: 'Create one of the tenant’s API keys',
        description:
          'Needs access:manage. The key holds the scopes asked for (default: every scope of the caller); ' +
          'asking for a scope the caller lacks answers 403 insufficient_scope. The raw key is in this answer only.',
        operationId: 'createTenantApiKey',
        body: TenantApiKeyCreateBody,
        response: { 201: ApiKeyCreated, ...errorResponses(...AUTHENTICATED, ...WITH_BODY) },
      },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const held = request.principal?.kind === 'tenant' ? request.principal.scopes : SCOPES;
      const { name, expires_at: expiresAt, scopes } = request.body;
      const lacking = (scopes ?? []).find((scope) => !held.includes(scope));
      if (lacking) {
        throw new ApiError(
          403,
          'insufficient_scope',
          `a key cannot grant the scope ${lacking}, which the caller does not hold`,
        );
      }
      const expires = futureDate(expiresAt, deps.now());
      const created = await withTenant(deps.pool, tenantId, (client) =>
        insertApiKey(client, { tenantId, name, expiresAt: expires, scopes: scopes ?? held }),
      );
      return reply.code(201).send(announceCreated(request, created.row, created.rawKey));
    },
  );

  r.get(
    '/v1/tenant/api-keys',
    {
      config: { access: 'tenant', scope: 'access:manage' } as const,
      schema: {
        tags,
        security,
        summary: 'List the tenant’s API keys (without the keys)',
        description: 'Needs access:manage. Revoked and expired keys are listed too.',
        operationId: 'listTenantApiKeys',
        querystring: NoQuery,
        response: { 200: ApiKeyList, ...errorResponses(...AUTHENTICATED) },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const rows = await withTenant(deps.pool, tenantId, (client) => listApiKeys(client, tenantId));
      return { data: rows.map(toKeyView) };
    },
  );

  r.delete(
    '/v1/tenant/api-keys/:id',
    {
      config: {
        access: 'tenant',
        scope: 'access:manage',
        audit: { action: 'key.revoke', target: 'api_key' },
      } as const,
      schema: {
        tags,
        security,
        summary: 'Revoke one of the tenant’s API keys',
        description: 'Needs access:manage. The key stops working at once (the caller’s own too).',
        operationId: 'revokeTenantApiKey',
        params: IdParams,
        response: { 204: NoContent, ...errorResponses(...AUTHENTICATED, ...WITH_ID) },
      },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      await revoke(request, request.params.id, (fn) => withTenant(deps.pool, tenantId, fn));
      return reply.code(204).send();
    },
  );
}

type InTransaction = <T>(fn: (client: PoolClient) => Promise<T>) => Promise<T>;

async function revoke(request: FastifyRequest, id: string, inTransaction: InTransaction) {
  const revoked = isUuid(id)
    ? await inTransaction((client) => revokeApiKey(client, id))
    : undefined;
  if (!revoked) throw new ApiError(404, 'not_found', `no active API key with id ${id}`);
  noteChange(request, {
    tenantId: revoked.tenant_id,
    targetId: revoked.id,
    before: { name: revoked.name, revoked_at: null },
    after: { name: revoked.name, revoked_at: revoked.revoked_at?.toISOString() ?? null },
  });
}

function futureDate(iso: string | undefined, now: Date): Date | null {
  const date = iso ? new Date(iso) : null;
  if (date && date.getTime() <= now.getTime()) {
    throw new ApiError(400, 'validation_error', 'expires_at must be in the future');
  }
  return date;
}

function announceCreated(request: FastifyRequest, row: ApiKeyRow, rawKey: string) {
  const view = toKeyView(row);
  const { id, tenant_id: tenantId, ...after } = view;
  noteChange(request, { tenantId, targetId: id, after });
  return { ...view, key: rawKey };
}

function toKeyView(row: ApiKeyRow) {
  const iso = (date: Date | null) => (date ? date.toISOString() : null);
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    name: row.name,
    key_prefix: row.key_prefix,
    expires_at: iso(row.expires_at),
    revoked_at: iso(row.revoked_at),
    created_at: row.created_at.toISOString(),
    scopes: (row.scopes ?? [...SCOPES]) as Scope[],
    last_used_at: iso(row.last_used_at),
  };
}
