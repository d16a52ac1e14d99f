// A webhook delivery attempt: a `webhook.deliver` span in the trace of the run it tells about
// (the run id is the trace id: src/tracing/trace-ids.ts), so a run's trace shows its deliveries,
// on whichever pod and however late they go; a job event's delivery is a trace of its own.
import { ROOT_CONTEXT, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { traceIdOfRun } from './trace-ids.js';
import type { Tracing } from './tracing.js';

export interface DeliveryFacts {
  deliveryId: string;
  endpointId: string;
  tenantId: string;
  eventType: string;
  runId: string | null;
}

/** What the sender's attempt answered: the receiver's status, or why there was none. */
export interface AttemptAnswer {
  kind: string;
  statusCode?: number;
}

/** `attempt`: this attempt's number (1 for the first). */
export async function traceDelivery<T extends AttemptAnswer>(
  tracing: Tracing | undefined,
  facts: DeliveryFacts,
  attempt: number,
  send: () => Promise<T>,
): Promise<T> {
  const tracer = tracing?.tracer;
  if (!tracing || !tracer) return send();
  const traceId = facts.runId === null ? undefined : traceIdOfRun(facts.runId);
  const span = tracing.ids.withTraceId(traceId, () =>
    tracer.startSpan(
      'webhook.deliver',
      {
        root: true,
        kind: SpanKind.CLIENT,
        attributes: {
          'hermesx.webhook.delivery_id': facts.deliveryId,
          'hermesx.webhook.endpoint_id': facts.endpointId,
          'hermesx.webhook.event_type': facts.eventType,
          'hermesx.webhook.attempt': attempt,
          'hermesx.tenant.id': facts.tenantId,
          ...(facts.runId ? { 'hermesx.run.id': facts.runId } : {}),
        },
      },
      ROOT_CONTEXT,
    ),
  );
  try {
    const result = await send();
    const status = result.kind === 'answered' ? result.statusCode : undefined;
    const outcome =
      status === undefined ? result.kind : status >= 200 && status < 300 ? 'delivered' : 'rejected';
    span.setAttribute('hermesx.webhook.outcome', outcome);
    if (status !== undefined) span.setAttribute('http.response.status_code', status);
    if (outcome !== 'delivered') span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
    return result;
  } catch (err) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'not sent' });
    throw err;
  } finally {
    span.end();
  }
}
