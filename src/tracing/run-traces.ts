// The open `run` spans of this pod, by run id: opened at the claim (or at the start of an adopted
// or queued run), given children by the runner and the record, ended when the run is recorded,
// failed or handed back. Bounded: a run that never ends here (its pod lost it) is closed as
// incomplete once MAX_OPEN_RUNS newer ones are open.
import {
  ROOT_CONTEXT,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { TraceScope } from './scope.js';
import { traceIdOfRun, type ChosenTraceIds } from './trace-ids.js';

const MAX_OPEN_RUNS = 20_000;

interface OpenRun {
  span: Span;
  context: Context;
}

/** What RunTraces needs of the pod's Tracing. */
export interface RunTracer {
  readonly tracer: Tracer | null;
  readonly ids: ChosenTraceIds;
  readonly recordPrompts: boolean;
}

/** How a run attempt ended, as the root span says it. */
export interface RunEnd {
  status: string;
  errorKind?: string | null | undefined;
  modelRequests?: number | undefined;
}

export class RunTraces {
  private readonly open = new Map<string, OpenRun>();

  constructor(
    private readonly owner: RunTracer,
    private readonly maxOpen = MAX_OPEN_RUNS,
  ) {}

  /** False when tracing is off: nothing here does anything. */
  get enabled(): boolean {
    return this.owner.tracer !== null;
  }

  /** The claim of runId, measured from startMs to endMs: opens the run's root span at startMs. */
  claimed(runId: string, startMs: number, endMs: number, attributes: Attributes): void {
    const tracer = this.owner.tracer;
    if (!tracer) return;
    const run = this.openRun(tracer, runId, startMs, attributes);
    tracer.startSpan('claim', { startTime: startMs }, run.context).end(endMs);
  }

  /** Adds what became known of the run (its origin, tenant, job). */
  note(runId: string, attributes: Attributes): void {
    this.open.get(runId)?.span.setAttributes(attributes);
  }

  /**
   * Where the runner's spans go: under the run's root (opened now if no claim opened it, as for
   * a runner called outside the scheduler's claim).
   */
  scopeOf(
    runId: string | undefined,
    attributes: Attributes,
    redact: (text: string) => string,
  ): TraceScope | undefined {
    const tracer = this.owner.tracer;
    if (!tracer || runId === undefined) return undefined;
    const run = this.open.get(runId) ?? this.openRun(tracer, runId, Date.now(), {});
    run.span.setAttributes(attributes);
    return { tracer, parent: run.context, recordPrompts: this.owner.recordPrompts, redact };
  }

  /** The result write: a `run.record` span around `write`. */
  async record<T>(runId: string, write: () => Promise<T>): Promise<T> {
    const tracer = this.owner.tracer;
    const run = this.open.get(runId);
    if (!tracer || !run) return write();
    const span = tracer.startSpan('run.record', {}, run.context);
    try {
      return await write();
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: errorText(err) });
      throw err;
    } finally {
      span.end();
    }
  }

  /** Ends the run's root span (no-op for a run this pod has no span of). */
  finish(runId: string, end: RunEnd): void {
    const run = this.open.get(runId);
    if (!run) return;
    this.open.delete(runId);
    run.span.setAttributes({
      'hermesx.run.status': end.status,
      ...(end.errorKind ? { 'hermesx.run.error_kind': end.errorKind } : {}),
      ...(end.modelRequests === undefined
        ? {}
        : { 'hermesx.run.model_requests': end.modelRequests }),
    });
    if (end.status === 'failed') {
      run.span.setStatus({ code: SpanStatusCode.ERROR, message: end.errorKind ?? 'failed' });
    }
    run.span.end();
  }

  /** At shutdown: the runs still open end as they are, so their spans are not lost. */
  abandonAll(): void {
    for (const runId of [...this.open.keys()]) this.finish(runId, { status: 'unfinished' });
  }

  get openCount(): number {
    return this.open.size;
  }

  private openRun(tracer: Tracer, runId: string, startMs: number, attributes: Attributes): OpenRun {
    this.open.get(runId)?.span.end();
    const span = this.owner.ids.withTraceId(traceIdOfRun(runId), () =>
      tracer.startSpan(
        'run',
        { root: true, startTime: startMs, attributes: { 'hermesx.run.id': runId, ...attributes } },
        ROOT_CONTEXT,
      ),
    );
    const run = { span, context: trace.setSpan(ROOT_CONTEXT, span) };
    this.open.set(runId, run);
    if (this.open.size > this.maxOpen) {
      const oldest = this.open.keys().next().value;
      if (oldest !== undefined) this.finish(oldest, { status: 'incomplete' });
    }
    return run;
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
