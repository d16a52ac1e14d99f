import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { isUuid } from '../../jobs/commands.js';
import type { Config } from '../../config.js';
import { withAdmin, type Pool, type PoolClient } from '../../db/pool.js';
import {
  insertTenant,
  listTenants,
  selectTenant,
  softDeleteTenant,
  updateTenant,
  type TenantRow,
} from '../../db/tenants.js';
import { readResultUsage, type ResultUsage } from '../../storage/result-quota.js';
import { ApiError } from '../errors.js';
import { AUTHENTICATED, BEARER, WITH_BODY, WITH_ID, errorResponses } from '../responses.js';
import {
  IdParams,
  NoContent,
  Tenant,
  TenantCreateBody,
  TenantList,
  TenantPatchBody,
} from '../schemas.js';

const tags = ['tenants (admin)'];
const security = BEARER;
const DEFAULTS = {
  max_cron_jobs: 50,
  min_schedule_interval_seconds: 60,
  rate_limit_rpm: 600,
  max_concurrent_runs: 10,
  run_retention_days: 30,
  audit_retention_days: 365,
  result_bytes_quota: null,
};

interface TenantDeps {
  pool: Pool;
  config: Pick<Config, 'tenantResultBytesQuota'>;
}

/** Admin: tenants and their quotas. Deleting is soft: keys stop working, jobs stop firing. */
export function registerTenantRoutes(app: FastifyInstance, deps: TenantDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  // Each tenant with its stored result bytes and the quota in force, read in the same transaction.
  const viewsOf = async (client: PoolClient, rows: TenantRow[]) => {
    const usage = await readResultUsage(
      client,
      rows.map((row) => row.id),
      deps.config.tenantResultBytesQuota,
    );
    const byTenant = new Map(usage.map((u) => [u.tenantId, u]));
    return rows.map((row) => toTenantView(row, byTenant.get(row.id)));
  };
  const viewOf = async (client: PoolClient, row: TenantRow) => {
    const [usage] = await readResultUsage(client, [row.id], deps.config.tenantResultBytesQuota);
    return toTenantView(row, usage);
  };

  r.post(
    '/v1/tenants',
    {
      config: { access: 'admin', audit: { action: 'tenant.create', target: 'tenant' } } as const,
      schema: {
        tags,
        security,
        summary: 'Create a tenant',
        description: 'Admin token only. Quotas left out take their defaults.',
        operationId: 'createTenant',
        body: TenantCreateBody,
        response: { 201: Tenant, ...errorResponses(...AUTHENTICATED, ...WITH_BODY) },
      },
    },
    async (request, reply) => {
      const view = await withAdmin(deps.pool, async (client) =>
        viewOf(client, await insertTenant(client, { ...DEFAULTS, ...request.body })),
      );
      return reply.code(201).send(view);
    },
  );

  r.get(
    '/v1/tenants',
    {
      config: { access: 'admin' } as const,
      schema: {
        tags,
        security,
        summary: 'List tenants',
        description: 'Admin token only. Deleted tenants are not listed.',
        operationId: 'listTenants',
        response: { 200: TenantList, ...errorResponses(...AUTHENTICATED) },
      },
    },
    async () => ({
      data: await withAdmin(deps.pool, async (client) =>
        viewsOf(client, await listTenants(client)),
      ),
    }),
  );

  r.get(
    '/v1/tenants/:id',
    {
      config: { access: 'admin' } as const,
      schema: {
        tags,
        security,
        summary: 'Get a tenant',
        description: 'Admin token only.',
        operationId: 'getTenant',
        params: IdParams,
        response: { 200: Tenant, ...errorResponses(...AUTHENTICATED, ...WITH_ID) },
      },
    },
    async (request) => {
      const { id } = request.params;
      return withAdmin(deps.pool, async (client) => {
        const row = isUuid(id) ? await selectTenant(client, id) : undefined;
        if (!row || row.deleted_at) throw notFound(id);
        return viewOf(client, row);
      });
    },
  );

  r.patch(
    '/v1/tenants/:id',
    {
      config: { access: 'admin', audit: { action: 'tenant.update', target: 'tenant' } } as const,
      schema: {
        tags,
        security,
        summary: 'Change a tenant',
        description: 'Admin token only. Changes only the given fields.',
        operationId: 'updateTenant',
        params: IdParams,
        body: TenantPatchBody,
        response: { 200: Tenant, ...errorResponses(...AUTHENTICATED, ...WITH_BODY, ...WITH_ID) },
      },
    },
    async (request) => {
      const { id } = request.params;
      return withAdmin(deps.pool, async (client) => {
        const current = isUuid(id) ? await selectTenant(client, id) : undefined;
        if (!current || current.deleted_at) throw notFound(id);
        const row = await updateTenant(client, id, { ...current, ...request.body });
        if (!row) throw notFound(id);
        return viewOf(client, row);
      });
    },
  );

  r.delete(
    '/v1/tenants/:id',
    {
      config: { access: 'admin', audit: { action: 'tenant.delete', target: 'tenant' } } as const,
      schema: {
        tags,
        security,
        summary: 'Delete a tenant (soft)',
        description: 'Admin token only. Its keys stop working and its jobs stop firing.',
        operationId: 'deleteTenant',
        params: IdParams,
        response: { 204: NoContent, ...errorResponses(...AUTHENTICATED, ...WITH_ID) },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const deleted =
        isUuid(id) && (await withAdmin(deps.pool, (client) => softDeleteTenant(client, id)));
      if (!deleted) throw notFound(id);
      return reply.code(204).send();
    },
  );
}

const notFound = (id: string) => new ApiError(404, 'not_found', `no tenant with id ${id}`);

function toTenantView(row: TenantRow, usage: ResultUsage | undefined) {
  return {
    id: row.id,
    name: row.name,
    max_cron_jobs: row.max_cron_jobs,
    min_schedule_interval_seconds: row.min_schedule_interval_seconds,
    rate_limit_rpm: row.rate_limit_rpm,
    max_concurrent_runs: row.max_concurrent_runs,
    run_retention_days: row.run_retention_days,
    audit_retention_days: row.audit_retention_days,
    result_bytes_quota: row.result_bytes_quota,
    result_bytes_stored: usage?.usedBytes ?? 0,
    result_bytes_quota_in_force: usage?.quotaBytes ?? 0,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
