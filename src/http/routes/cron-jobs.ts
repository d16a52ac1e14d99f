import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import * as jobs from '../../jobs/commands.js';
import type { JobView } from '../../jobs/view.js';
import { tenantOf } from '../auth.js';
import { claimIdempotencyKey } from '../idempotency.js';
import {
  ErrorBody,
  IdParams,
  Job,
  JobCreateBody,
  JobPatchBody,
  PageQuery,
  Preview,
  PreviewBody,
  Run,
  Trigger,
  pageOf,
} from '../schemas.js';

export type CronJobRouteDeps = jobs.TriggerDeps;

const tags = ['cron jobs'];
const security = [{ bearer: [] }];
const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };

/** The tenant's cron jobs; every statement runs inside withTenant, so RLS guards it. */
export function registerCronJobRoutes(app: FastifyInstance, deps: CronJobRouteDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const config = { access: 'tenant' as const };

  r.post(
    '/v1/cron-jobs',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Create a cron job',
        body: JobCreateBody,
        response: { 201: Job, ...errors },
      },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      // A retried create (same Idempotency-Key and body) gets the first answer, not a second job.
      const claim = await claimIdempotencyKey(deps.pool, request, tenantId, 'cron-jobs.create');
      if (claim.kind === 'replay') {
        return reply
          .code(claim.answer.status)
          .header('idempotent-replayed', 'true')
          .send(claim.answer.body as JobView);
      }
      let job: JobView;
      try {
        job = await jobs.createJob(deps, tenantId, request.body);
      } catch (err) {
        if (claim.kind === 'first') await claim.release();
        throw err;
      }
      if (claim.kind === 'first') await claim.complete({ status: 201, body: job });
      return reply.code(201).send(job);
    },
  );

  r.get(
    '/v1/cron-jobs',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'List cron jobs, newest first',
        querystring: PageQuery,
        response: { 200: pageOf(Job) },
      },
    },
    async (request) => jobs.listJobs(deps, tenantOf(request), request.query),
  );

  r.post(
    '/v1/cron-jobs/preview',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Validate a schedule and list its next fire times',
        body: PreviewBody,
        response: { 200: Preview, ...errors },
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
      config,
      schema: {
        tags,
        security,
        summary: 'Get a cron job',
        params: IdParams,
        response: { 200: Job, ...errors },
      },
    },
    async (request) => jobs.getJob(deps, tenantOf(request), request.params.id),
  );

  r.patch(
    '/v1/cron-jobs/:id',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Change a cron job',
        params: IdParams,
        body: JobPatchBody,
        response: { 200: Job, ...errors },
      },
    },
    async (request) => jobs.updateJob(deps, tenantOf(request), request.params.id, request.body),
  );

  r.delete(
    '/v1/cron-jobs/:id',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Delete a cron job and its runs',
        params: IdParams,
        response: { 204: z.null(), ...errors },
      },
    },
    async (request, reply) => {
      await jobs.deleteJob(deps, tenantOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  r.post(
    '/v1/cron-jobs/:id/trigger',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Run a cron job once now',
        params: IdParams,
        response: { 202: Trigger, ...errors },
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
      config,
      schema: {
        tags,
        security,
        summary: "A job's runs, newest first",
        params: IdParams,
        querystring: PageQuery,
        response: { 200: pageOf(Run), ...errors },
      },
    },
    async (request) => jobs.listRuns(deps, tenantOf(request), request.params.id, request.query),
  );
}
