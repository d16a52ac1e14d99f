// A chat turn's trace: a root `chat.turn` span, its model and tool calls as children.
import { ROOT_CONTEXT, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { TraceScope } from './scope.js';
import type { Tracing } from './tracing.js';

export interface ChatTurnTrace {
  readonly scope: TraceScope;
  /** Ends the turn's span: `outcome` is answered, stopped (a limit) or failed. */
  end(outcome: 'answered' | 'stopped' | 'failed', detail?: string): void;
}

export function startChatTurn(
  tracing: Tracing | undefined,
  attributes: { tenantId: string; stream: boolean; model: string; requestId: string },
  redact: (text: string) => string,
): ChatTurnTrace | undefined {
  const tracer = tracing?.tracer;
  if (!tracing || !tracer) return undefined;
  const span: Span = tracer.startSpan(
    'chat.turn',
    {
      root: true,
      attributes: {
        'hermesx.tenant.id': attributes.tenantId,
        'hermesx.chat.stream': attributes.stream,
        'gen_ai.request.model': attributes.model,
        'hermesx.request.id': attributes.requestId,
      },
    },
    ROOT_CONTEXT,
  );
  const scope: TraceScope = {
    tracer,
    parent: trace.setSpan(ROOT_CONTEXT, span),
    recordPrompts: tracing.recordPrompts,
    redact,
  };
  let ended = false;
  return {
    scope,
    end(outcome, detail) {
      if (ended) return;
      ended = true;
      span.setAttribute('hermesx.chat.outcome', outcome);
      if (detail) span.setAttribute('hermesx.chat.stopped', detail);
      if (outcome === 'failed')
        span.setStatus({ code: SpanStatusCode.ERROR, message: detail ?? 'failed' });
      span.end();
    },
  };
}
