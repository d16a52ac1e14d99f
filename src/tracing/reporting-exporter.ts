// The exporter, saying when the collector does not take the spans: the SDK drops a failed batch
// silently (it logs through a global diagnostics logger nobody set), so an operator would only
// notice the missing traces. One warning a minute at most, with how many spans were lost.
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Logger } from '../log.js';

type ExportResult = Parameters<Parameters<SpanExporter['export']>[1]>[0];

/** The SDK's ExportResultCode.SUCCESS. */
const SUCCESS = 0;
const WARN_EVERY_MS = 60_000;

export class ReportingExporter implements SpanExporter {
  private lostSpans = 0;
  private lastWarnMs = -Infinity;

  constructor(
    private readonly inner: SpanExporter,
    private readonly log: Logger | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code !== SUCCESS) this.noteLost(spans.length, result.error);
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }

  private noteLost(count: number, error: Error | undefined): void {
    this.lostSpans += count;
    const nowMs = this.now();
    if (nowMs - this.lastWarnMs < WARN_EVERY_MS) return;
    this.lastWarnMs = nowMs;
    this.log?.warn(
      { lost_spans: this.lostSpans, error: error?.message ?? 'export failed' },
      'tracing: the collector did not take spans',
    );
    this.lostSpans = 0;
  }
}
