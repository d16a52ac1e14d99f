import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { isUuid } from '../../jobs/commands.js';
import { withAdmin, type Pool } from '../../db/pool.js';
import {
  insertTenant,
  listTenants,
  selectTenant,
  softDeleteTenant,
  updateTenant,
  type TenantRow,
} from '../../db/tenants.js';
import { ApiError } from '../errors.js';
import { ErrorBody, IdParams, Tenant, TenantCreateBody, TenantPatchBody } from '../schemas.js';

const tags = ['tenants (admin)'];
const security = [{ bearer: [] }];
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const DEFAULTS = {
  max_cron_jobs: 50,
  min_schedule_interval_seconds: 60,
  rate_limit_rpm: 600,
  max_concurrent_runs: null,
};

/** Admin: tenants and their quotas. Deleting is soft: keys stop working, jobs stop firing. */
export function registerTenantRoutes(app: FastifyInstance, deps: { pool: Pool }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const config = { access: 'admin' as const };

  r.post(
    '/v1/tenants',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Create a tenant',
        body: TenantCreateBody,
        response: { 201: Tenant, ...errors },
      },
    },
    async (request, reply) => {
      const row = await withAdmin(deps.pool, (client) =>
        insertTenant(client, { ...DEFAULTS, ...request.body }),
      );
      return reply.code(201).send(toTenantView(row));
    },
  );

  r.get(
    '/v1/tenants',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'List tenants',
        response: { 200: z.object({ data: z.array(Tenant) }) },
      },
    },
    async () => ({ data: (await withAdmin(deps.pool, listTenants)).map(toTenantView) }),
  );

  r.get(
    '/v1/tenants/:id',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Get a tenant',
        params: IdParams,
        response: { 200: Tenant, ...errors },
      },
    },
    async (request) => toTenantView(await requireTenant(deps.pool, request.params.id)),
  );

  r.patch(
    '/v1/tenants/:id',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Change a tenant',
        params: IdParams,
        body: TenantPatchBody,
        response: { 200: Tenant, ...errors },
      },
    },
    async (request) => {
      const { id } = request.params;
      const row = await withAdmin(deps.pool, async (client) => {
        const current = isUuid(id) ? await selectTenant(client, id) : undefined;
        if (!current || current.deleted_at) throw notFound(id);
        return updateTenant(client, id, { ...current, ...request.body });
      });
      if (!row) throw notFound(id);
      return toTenantView(row);
    },
  );

  r.delete(
    '/v1/tenants/:id',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Delete a tenant (soft)',
        params: IdParams,
        response: { 204: z.null(), ...errors },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const deleted =
        isUuid(id) && (await withAdmin(deps.pool, (client) => softDeleteTenant(client, id)));
      if (!deleted) throw notFound(id);
      return reply.code(204).send(null);
    },
  );
}

async function requireTenant(pool: Pool, id: string): Promise<TenantRow> {
  const row = isUuid(id) ? await withAdmin(pool, (client) => selectTenant(client, id)) : undefined;
  if (!row || row.deleted_at) throw notFound(id);
  return row;
}

const notFound = (id: string) => new ApiError(404, 'not_found', `no tenant with id ${id}`);

function toTenantView(row: TenantRow) {
  return {
    id: row.id,
    name: row.name,
    max_cron_jobs: row.max_cron_jobs,
    min_schedule_interval_seconds: row.min_schedule_interval_seconds,
    rate_limit_rpm: row.rate_limit_rpm,
    max_concurrent_runs: row.max_concurrent_runs,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
