// Where a span goes: the tracer and the parent, handed down explicitly (the service registers no
// async context manager, so OpenTelemetry's active context is always the root one).
import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';

export interface TraceScope {
  readonly tracer: Tracer;
  /** A context holding the parent span. */
  readonly parent: Context;
  /** OTEL_RECORD_PROMPTS: prompts, answers and tool arguments may be attributes (redacted). */
  readonly recordPrompts: boolean;
  /** Applied to every text attribute that comes from a conversation (the tenant's secrets). */
  readonly redact: (text: string) => string;
}

/** Bytes of one recorded conversation text (OTEL_RECORD_PROMPTS only); longer is cut. */
export const MAX_RECORDED_TEXT_CHARS = 8192;

export function startChild(
  scope: TraceScope,
  name: string,
  attributes: Attributes,
  startMs?: number,
): Span {
  return scope.tracer.startSpan(
    name,
    startMs === undefined ? { attributes } : { attributes, startTime: startMs },
    scope.parent,
  );
}

/** A conversation text as an attribute value: redacted, bounded. */
export function recordedText(scope: TraceScope, text: string): string {
  const redacted = scope.redact(text);
  return redacted.length <= MAX_RECORDED_TEXT_CHARS
    ? redacted
    : `${redacted.slice(0, MAX_RECORDED_TEXT_CHARS)}…[cut from ${redacted.length} chars]`;
}
