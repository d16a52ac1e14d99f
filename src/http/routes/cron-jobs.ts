import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import * as jobs from '../../jobs/commands.js';
import type { JobView } from '../../jobs/view.js';
import { tenantOf } from '../auth.js';
import { describeJobChange } from '../../jobs/audit-change.js';
import { noteChange } from '../audit-hook.js';
import { claimIdempotencyKey } from '../idempotency.js';
import { AUTHENTICATED, BEARER, WITH_BODY, WITH_ID, errorResponses } from '../responses.js';
import {
  IdParams,
  Job,
  JobCreateBody,
  JobListQuery,
  JobPage,
  JobPatchBody,
  JobRunsQuery,
  NoContent,
  Preview,
  PreviewBody,
  RunPage,
  Trigger,
} from '../schemas.js';

export type CronJobRouteDeps = jobs.TriggerDeps;

const tags = ['cron jobs'];
const security = BEARER;

/** The tenant's cron jobs; every statement runs inside withTenant, so RLS guards it. */
export function registerCronJobRoutes(app: FastifyInstance, deps: CronJobRouteDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.post(
    '/v1/cron-jobs',
    {
      config: {
        access: 'tenant',
        scope: 'jobs:write',
        audit: { action: 'job.create', target: 'job' },
      } as const,
      schema: {
        tags,
        security,
        summary: 'Create a cron job',
        description: "Creates a job of the caller's tenant; it fires from its next occurrence on.",
        operationId: 'createCronJob',
        body: JobCreateBody,
        response: { 201: Job, ...errorResponses(...AUTHENTICATED, ...WITH_BODY, 409, 422) },
      },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      // A retried create (same Idempotency-Key and body) gets the first answer, not a second job.
      const claim = await claimIdempotencyKey(deps.pool, request, tenantId, 'cron-jobs.create');
      if (claim.kind === 'replay') {
        return (
          reply
            // Only a 201 is ever stored for this route (claim.complete below).
            .code(claim.answer.status as 201)
            .header('idempotent-replayed', 'true')
            .send(claim.answer.body as JobView)
        );
      }
      let job: JobView;
      try {
        // The key's answer commits with the job: a crash in between cannot let a retry make a
        // second job.
        job = await jobs.createJob(
          deps,
          tenantId,
          request.body,
          claim.kind === 'first'
            ? (client, created) => claim.completeIn(client, { status: 201, body: created })
            : undefined,
        );
      } catch (err) {
        if (claim.kind === 'first') await claim.release();
        throw err;
      } finally {
        if (claim.kind === 'first') claim.stop();
      }
      noteChange(request, { targetId: job.id, after: job as unknown as Record<string, unknown> });
      return reply.code(201).send(job);
    },
  );

  r.get(
    '/v1/cron-jobs',
    {
      config: { access: 'tenant', scope: 'jobs:read' } as const,
      schema: {
        tags,
        security,
        summary: 'List cron jobs, newest first',
        description:
          'One page of the tenant’s jobs; follow `next_cursor` for the next. `label=team=ops` keeps jobs with that label, `label=team` jobs with that key; repeated, all must hold.',
        operationId: 'listCronJobs',
        querystring: JobListQuery,
        response: { 200: JobPage, ...errorResponses(...AUTHENTICATED) },
      },
    },
    async (request) => jobs.listJobs(deps, tenantOf(request), request.query),
  );

  r.post(
    '/v1/cron-jobs/preview',
    {
      config: { access: 'tenant', scope: 'jobs:read', audit: false } as const,
      schema: {
        tags,
        security,
        summary: 'Validate a schedule and list its next fire times',
        description: 'Nothing is stored: a dry run of the schedule rules.',
        operationId: 'previewSchedule',
        body: PreviewBody,
        response: { 200: Preview, ...errorResponses(...AUTHENTICATED, ...WITH_BODY, 422) },
      },
    },
    async (request) => {
      const { from, ...rest } = request.body;
      return jobs.previewSchedule({ ...rest, from: from ? new Date(from) : undefined }, deps.now());
    },
  );

  r.get(
    '/v1/cron-jobs/:id',
    {
      config: { access: 'tenant', scope: 'jobs:read' } as const,
      schema: {
        tags,
        security,
        summary: 'Get a cron job',
        description: 'The job with its last run outcome and next fire time.',
        operationId: 'getCronJob',
        params: IdParams,
        response: { 200: Job, ...errorResponses(...AUTHENTICATED, ...WITH_ID) },
      },
    },
    async (request) => jobs.getJob(deps, tenantOf(request), request.params.id),
  );

  r.patch(
    '/v1/cron-jobs/:id',
    {
      config: {
        access: 'tenant',
        scope: 'jobs:write',
        audit: { action: 'job.update', target: 'job' },
      } as const,
      schema: {
        tags,
        security,
        summary: 'Change a cron job',
        description:
          'Changes only the given fields; a new schedule takes effect at once. Pausing or resuming (`enabled` changed) is bounded per job: JOB_TOGGLES_PER_MINUTE (default 6), then 429 `toggle_budget` with Retry-After.',
        operationId: 'updateCronJob',
        params: IdParams,
        body: JobPatchBody,
        response: {
          200: Job,
          ...errorResponses(...AUTHENTICATED, ...WITH_BODY, ...WITH_ID, 422),
        },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const before = await jobs.getJob(deps, tenantId, request.params.id);
      const after = await jobs.updateJob(deps, tenantId, request.params.id, request.body);
      const { action, change } = describeJobChange(before, after);
      noteChange(request, { action, before: change?.before ?? {}, after: change?.after ?? {} });
      return after;
    },
  );

  r.delete(
    '/v1/cron-jobs/:id',
    {
      config: {
        access: 'tenant',
        scope: 'jobs:write',
        audit: { action: 'job.delete', target: 'job' },
      } as const,
      schema: {
        tags,
        security,
        summary: 'Delete a cron job',
        description:
          'Nothing fires afterwards, and a run in progress is stopped (recorded `failed` with `error_kind` `cancelled`). The job leaves every list; its runs stay in `GET /v1/runs` and `GET /v1/runs/{id}`, with the job’s name, until the tenant’s run retention removes them.',
        operationId: 'deleteCronJob',
        params: IdParams,
        response: { 204: NoContent, ...errorResponses(...AUTHENTICATED, ...WITH_ID) },
      },
    },
    async (request, reply) => {
      await jobs.deleteJob(deps, tenantOf(request), request.params.id);
      return reply.code(204).send();
    },
  );

  r.post(
    '/v1/cron-jobs/:id/trigger',
    {
      config: {
        access: 'tenant',
        scope: 'runs:write',
        audit: { action: 'job.trigger', target: 'job' },
      } as const,
      schema: {
        tags,
        security,
        summary: 'Run a cron job once now',
        description: 'A pod picks the run up within moments; it is recorded like a scheduled one.',
        operationId: 'triggerCronJob',
        params: IdParams,
        response: {
          202: Trigger,
          ...errorResponses(...AUTHENTICATED, ...WITH_BODY, ...WITH_ID, 409, 503),
        },
      },
    },
    async (request, reply) => {
      return reply
        .code(202)
        .send(await jobs.triggerJob(deps, tenantOf(request), request.params.id));
    },
  );

  r.get(
    '/v1/cron-jobs/:id/runs',
    {
      config: { access: 'tenant', scope: 'runs:read' } as const,
      schema: {
        tags,
        security,
        summary: "A job's runs, newest first",
        description:
          'One page of runs, `status` only when given; follow `next_cursor` for the next.',
        operationId: 'listCronJobRuns',
        params: IdParams,
        querystring: JobRunsQuery,
        response: { 200: RunPage, ...errorResponses(...AUTHENTICATED, ...WITH_ID) },
      },
    },
    async (request) => jobs.listRuns(deps, tenantOf(request), request.params.id, request.query),
  );
}
