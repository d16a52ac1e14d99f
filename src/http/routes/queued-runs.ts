import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Pool } from '../../db/pool.js';
import { backfillJob } from '../../jobs/backfill.js';
import type { QueuedRunLimits } from '../../jobs/queued-limits.js';
import { retryRun } from '../../jobs/run-retry.js';
import { tenantOf } from '../auth.js';
import { BackfillAnswer, BackfillBody } from '../queued-schemas.js';
import { AUTHENTICATED, BEARER, WITH_BODY, WITH_ID, errorResponses } from '../responses.js';
import { IdParams, Run } from '../schemas.js';

export interface QueuedRunRouteDeps {
  pool: Pool;
  now: () => Date;
  spendManualRun?: ((tenantId: string) => Promise<number | null>) | undefined;
  /** BACKFILL_RUNS_PER_DAY and MAX_QUEUED_RUNS_PER_TENANT; the defaults when absent. */
  limits?: QueuedRunLimits | undefined;
}

/**
 * Runs that wait in the database for any pod: a job's backfill and a failed run retried by hand.
 * RLS scopes every statement to the caller's tenant.
 */
export function registerQueuedRunRoutes(app: FastifyInstance, deps: QueuedRunRouteDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.post(
    '/v1/cron-jobs/:id/backfill',
    {
      config: {
        access: 'tenant',
        scope: 'runs:write',
        audit: { action: 'job.backfill', target: 'job' },
      } as const,
      schema: {
        tags: ['cron jobs'],
        security: BEARER,
        summary: 'Run the occurrences of a past range that have no run yet',
        description:
          'Each occurrence of the job’s schedule in [`from`, `to`) without a run becomes a queued run (origin `backfill`), run once, oldest first, one at a time, fairly against other tenants. At most 100 per request (`next_from` says where to go on), 1,000 waiting per tenant (429 `backfill_quota`), the tenant’s queued runs at most `MAX_QUEUED_RUNS_PER_TENANT` (429 `queue_full`), and `BACKFILL_RUNS_PER_DAY` occurrences per tenant per UTC day, which deleting the job does not give back (429 `backfill_budget`, `Retry-After` until the day ends). Repeating a request adds nothing: an occurrence with a run is skipped.',
        operationId: 'backfillCronJob',
        params: IdParams,
        body: BackfillBody,
        response: {
          200: BackfillAnswer,
          ...errorResponses(...AUTHENTICATED, ...WITH_BODY, ...WITH_ID, 409, 422),
        },
      },
    },
    async (request) => backfillJob(deps, tenantOf(request), request.params.id, request.body),
  );
  r.post(
    '/v1/runs/:id/retry',
    {
      config: {
        access: 'tenant',
        scope: 'runs:write',
        audit: { action: 'run.retry', target: 'run' },
      } as const,
      schema: {
        tags: ['runs'],
        security: BEARER,
        summary: 'Run a failed run’s occurrence again',
        description:
          'A new attempt of the same run (its id, occurrence and origin stay): it is queued, due at once, and a pod takes it within a second or so. The failed attempt joins `previous_attempts`. 409 `run_not_finished` while the run is queued or in flight, `run_succeeded` for a success. Counts against the tenant’s manual runs (429 `manual_run_budget`) and its queued runs (429 `queue_full`).',
        operationId: 'retryRun',
        params: IdParams,
        response: {
          202: Run,
          ...errorResponses(...AUTHENTICATED, ...WITH_BODY, ...WITH_ID, 409),
        },
      },
    },
    async (request, reply) =>
      reply.code(202).send(await retryRun(deps, tenantOf(request), request.params.id)),
  );
}
