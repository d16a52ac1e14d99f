// Span and trace ids. A run's trace id is its run id (a UUID is 128 bits, as a trace id is), so
// every span about a run — each attempt, each webhook delivery, on any pod, at any later time —
// joins the run's one trace without carrying anything in a database row, and an operator finds
// the trace by pasting the run id (without its dashes) into the tracing backend.
import { RandomIdGenerator, type IdGenerator } from '@opentelemetry/sdk-trace-base';

export class ChosenTraceIds implements IdGenerator {
  private chosen: string | undefined;
  private readonly random = new RandomIdGenerator();

  /** Runs `start` (a synchronous startSpan of a root span) so that its trace id is `traceId`. */
  withTraceId<T>(traceId: string | undefined, start: () => T): T {
    this.chosen = traceId;
    try {
      return start();
    } finally {
      this.chosen = undefined;
    }
  }

  generateTraceId = (): string => {
    const id = this.chosen ?? this.random.generateTraceId();
    this.chosen = undefined;
    return id;
  };

  generateSpanId = (): string => this.random.generateSpanId();
}

/** The trace id of a run: its UUID's 32 hex digits; undefined for anything else. */
export function traceIdOfRun(runId: string): string | undefined {
  const hex = runId.replace(/-/g, '').toLowerCase();
  return /^[0-9a-f]{32}$/.test(hex) && !/^0+$/.test(hex) ? hex : undefined;
}
