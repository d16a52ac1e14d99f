import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { withTenant, type Pool } from '../../db/pool.js';
import { selectRunDetail, type RunDetailRow } from '../../db/run-detail.js';
import { cancelRun } from '../../jobs/run-cancel.js';
import { listTenantRuns } from '../../jobs/run-search.js';
import { measureAttemptTimings } from '../../jobs/run-timings.js';
import { toRunView } from '../../jobs/view.js';
import type { Logger } from '../../log.js';
import type { ObjectStore } from '../../storage/object-store.js';
import { readWholeResult } from '../../storage/run-results.js';
import { listDeliveries } from '../../webhooks/endpoints.js';
import type { DeliveryView } from '../../webhooks/views.js';
import { tenantOf } from '../auth.js';
import { ApiError } from '../errors.js';
import { AUTHENTICATED, BEARER, WITH_BODY, WITH_ID, errorResponses } from '../responses.js';
import { RunDetail } from '../run-schemas.js';
import { CancelAccepted, IdParams, RunListPage, RunListQuery } from '../schemas.js';

export interface RunRouteDeps {
  pool: Pool;
  log: Logger;
  objects?: ObjectStore | undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The tenant's runs across its jobs, filtered (GET /v1/runs); one run, whole (GET /v1/runs/{id}).
 * RLS scopes every read.
 */
export function registerRunRoutes(app: FastifyInstance, deps: RunRouteDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/v1/runs',
    {
      config: { access: 'tenant', scope: 'runs:read' } as const,
      schema: {
        tags: ['runs'],
        security: BEARER,
        summary: "The tenant's runs across jobs, newest first",
        description:
          'Filters combine (all must hold): `status`, `error_kind`, `origin`, `job_id`, `label` (repeatable, as for jobs) and the occurrence time range `from` (inclusive) to `to` (exclusive). Follow `next_cursor` for the next page.',
        operationId: 'listRuns',
        querystring: RunListQuery,
        response: { 200: RunListPage, ...errorResponses(...AUTHENTICATED) },
      },
    },
    async (request) => listTenantRuns(deps.pool, tenantOf(request), request.query),
  );
  r.post(
    '/v1/runs/:id/cancel',
    {
      config: {
        access: 'tenant',
        scope: 'runs:write',
        audit: { action: 'run.cancel', target: 'run' },
      } as const,
      schema: {
        tags: ['runs'],
        security: BEARER,
        summary: 'Cancel a run in flight',
        description:
          'The pod holding the run stops it within a second (a notification every pod hears); it is recorded `failed` with `error_kind` `cancelled`. A run already finished answers 409 `run_not_active`.',
        operationId: 'cancelRun',
        params: IdParams,
        response: {
          202: CancelAccepted,
          ...errorResponses(...AUTHENTICATED, ...WITH_BODY, ...WITH_ID, 409),
        },
      },
    },
    async (request, reply) =>
      reply.code(202).send(await cancelRun(deps.pool, tenantOf(request), request.params.id)),
  );
  r.get(
    '/v1/runs/:id',
    {
      config: { access: 'tenant', scope: 'runs:read' } as const,
      schema: {
        tags: ['cron jobs'],
        security: BEARER,
        summary: 'A run, whole: its answer, the prompt as sent, the model, usage and attempts',
        description:
          'The run detail. `result` is the whole answer (lists show its first 4,096 characters). `attempt` counts the executions of the occurrence (the earlier ones are in `previous_attempts`); `model_requests` (also `attempts`) the requests the current attempt sent to the model server, which grow, with `attempt_log`, while it retries a throttled call. `timings.start_lag_ms` is how late the first attempt started, `timings.retry_wait_ms` the time spent waiting between attempts.',
        operationId: 'getRun',
        params: IdParams,
        response: { 200: RunDetail, ...errorResponses(...AUTHENTICATED, ...WITH_ID) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const tenantId = tenantOf(request);
      const row = UUID.test(id)
        ? await withTenant(deps.pool, tenantId, (client) => selectRunDetail(client, id))
        : null;
      if (!row) throw new ApiError(404, 'not_found', `no run with id ${id}`);
      // Defence in depth beside RLS: a row only ever points into its own tenant's prefix.
      if (row.result_object_key !== null && !row.result_object_key.startsWith(`${tenantId}/`)) {
        deps.log.error(
          { run_id: row.id, tenant_id: tenantId },
          'run result key outside its tenant',
        );
        throw new ApiError(404, 'not_found', `no run with id ${id}`);
      }
      const deliveries = await listDeliveries(
        { pool: deps.pool, now: () => new Date() },
        tenantId,
        { runId: id },
        { limit: 100 },
      );
      return toRunDetailView(row, await wholeResult(deps, row), deliveries.data);
    },
  );
}

async function wholeResult(deps: RunRouteDeps, row: RunDetailRow): Promise<string | null> {
  if (row.result_object_key === null) return row.full_result;
  const source = { result: row.full_result, result_object_key: row.result_object_key };
  try {
    const whole = await readWholeResult(deps.objects, source);
    if (whole !== null) return whole;
    deps.log.error({ run_id: row.id, key: row.result_object_key }, 'run result object missing');
  } catch (err) {
    deps.log.error(
      { run_id: row.id, key: row.result_object_key, error: (err as Error).message },
      'cannot read run result',
    );
  }
  throw new ApiError(
    503,
    'result_unavailable',
    'the whole result of this run cannot be read from the object store now; try again later',
  );
}

/** A time jsonb kept as PostgreSQL wrote it, in the API's RFC 3339 form. */
function isoText(text: string | null): string | null {
  return text === null ? null : new Date(text).toISOString();
}

function toRunDetailView(
  row: RunDetailRow,
  result: string | null,
  deliveries: DeliveryView[],
): z.infer<typeof RunDetail> {
  const detail = row.detail ?? {};
  const iso = (date: Date | null) => (date ? date.toISOString() : null);
  const previous = row.previous_attempts.map((a) => ({
    ...a,
    started_at: isoText(a.started_at),
    finished_at: isoText(a.finished_at),
  }));
  return {
    ...toRunView(row),
    job_name: row.job_name,
    result,
    result_truncated: row.result_truncated,
    output: row.output ?? null,
    prompt_sent: detail.prompt_sent ?? null,
    model: detail.model ?? null,
    usage: detail.usage ?? null,
    model_requests: row.attempts,
    max_attempts: row.max_attempts,
    attempt_log: (detail.attempt_log ?? []).map((entry) => ({
      ...entry,
      model: entry.model ?? null,
    })),
    calls: detail.calls ?? [],
    previous_attempts: previous,
    timings: {
      scheduled_at: row.scheduled_at.toISOString(),
      started_at: row.started_at.toISOString(),
      model_called_at: iso(row.model_called_at),
      finished_at: iso(row.finished_at),
      ...attemptTimings(row),
    },
    deliveries,
  };
}

/** The detail's lag and back-off, apart (run-timings.ts); a queued first attempt's lag counts to now's claim. */
function attemptTimings(row: RunDetailRow): {
  first_started_at: string;
  start_lag_ms: number;
  retry_wait_ms: number;
} {
  const timings = measureAttemptTimings({
    scheduledAt: row.scheduled_at,
    startedAt: row.started_at,
    status: row.status,
    previousSpans: row.previous_spans,
  });
  // While the first attempt waits in the queue, started_at (its creation) stands in.
  const first = timings.firstStartedAt ?? row.started_at;
  return {
    first_started_at: first.toISOString(),
    start_lag_ms: Math.round(first.getTime() - row.scheduled_at.getTime()),
    retry_wait_ms: timings.retryWaitMs,
  };
}
