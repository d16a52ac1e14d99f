import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { insertApiKey, listApiKeys, revokeApiKey, type ApiKeyRow } from '../../db/api-keys.js';
import { withAdmin, type Pool } from '../../db/pool.js';
import { selectTenant } from '../../db/tenants.js';
import { isUuid } from '../../jobs/commands.js';
import { ApiError } from '../errors.js';
import { AUTHENTICATED, BEARER, WITH_BODY, WITH_ID, errorResponses } from '../responses.js';
import {
  ApiKeyCreateBody,
  ApiKeyCreated,
  ApiKeyList,
  ApiKeyListQuery,
  IdParams,
  NoContent,
} from '../schemas.js';

const tags = ['api keys (admin)'];
const security = BEARER;

/** Admin: tenant API keys. Only a hash is stored; the raw key is in the creation response only. */
export function registerApiKeyRoutes(
  app: FastifyInstance,
  deps: { pool: Pool; now: () => Date },
): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const config = { access: 'admin' as const };

  r.post(
    '/v1/api-keys',
    {
      config,
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
      const { tenant_id: tenantId, name, expires_at: expiresAt } = request.body;
      const expires = expiresAt ? new Date(expiresAt) : null;
      if (expires && expires.getTime() <= deps.now().getTime()) {
        throw new ApiError(400, 'validation_error', 'expires_at must be in the future');
      }
      const created = await withAdmin(deps.pool, async (client) => {
        const tenant = await selectTenant(client, tenantId);
        if (!tenant || tenant.deleted_at)
          throw new ApiError(404, 'not_found', `no tenant with id ${tenantId}`);
        return insertApiKey(client, { tenantId, name, expiresAt: expires });
      });
      return reply.code(201).send({ ...toKeyView(created.row), key: created.rawKey });
    },
  );

  r.get(
    '/v1/api-keys',
    {
      config,
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
      config,
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
      const { id } = request.params;
      const revoked =
        isUuid(id) && (await withAdmin(deps.pool, (client) => revokeApiKey(client, id)));
      if (!revoked) throw new ApiError(404, 'not_found', `no active API key with id ${id}`);
      return reply.code(204).send();
    },
  );
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
  };
}
