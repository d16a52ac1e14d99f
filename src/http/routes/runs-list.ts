import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { CommandDeps } from '../../jobs/commands.js';
import { listTenantRuns } from '../../jobs/run-search.js';
import { tenantOf } from '../auth.js';
import { AUTHENTICATED, BEARER } from '../responses.js';
import { errorResponses } from '../responses.js';
import { RunListPage, RunListQuery } from '../schemas.js';

/** The tenant's runs across all its jobs, filtered, newest occurrence first. */
export function registerRunListRoutes(app: FastifyInstance, deps: CommandDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/v1/runs',
    {
      config: { access: 'tenant' as const },
      schema: {
        tags: ['cron jobs'],
        security: BEARER,
        summary: "The tenant's runs across jobs, newest first",
        description:
          'Filters combine (all must hold): `status`, `error_kind`, `job_id`, `label` (repeatable, as for jobs) and the occurrence time range `from` (inclusive) to `to` (exclusive). Follow `next_cursor` for the next page.',
        operationId: 'listRuns',
        querystring: RunListQuery,
        response: { 200: RunListPage, ...errorResponses(...AUTHENTICATED) },
      },
    },
    async (request) => listTenantRuns(deps, tenantOf(request), request.query),
  );
}
