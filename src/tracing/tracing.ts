// The pod's tracer: an OTLP/HTTP exporter behind a batch processor when an endpoint is set, and
// nothing at all when it is not (every hook in the code then returns at its first test, and no
// OpenTelemetry object is created). The provider is handed down, never registered globally: two
// services in one process (the tests' pods) keep their own.
import type { Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { redactUrl, type Logger } from '../log.js';
import type { Service } from '../services/service.js';
import { readBuildInfo } from '../build-info.js';
import { ReportingExporter } from './reporting-exporter.js';
import { RunTraces } from './run-traces.js';
import type { TraceSettings } from './settings.js';
import { ChosenTraceIds } from './trace-ids.js';

/** How long stop() waits for the last spans to leave (a collector down must not hold a pod). */
const FLUSH_TIMEOUT_MS = 5000;

export class Tracing implements Service {
  readonly name = 'tracing';
  /** Null when no endpoint is set: tracing is off. */
  readonly tracer: Tracer | null;
  readonly ids = new ChosenTraceIds();
  readonly runs: RunTraces;
  readonly recordPrompts: boolean;
  private readonly provider: BasicTracerProvider | null;
  private readonly endpoint: string | null;

  constructor(
    settings: TraceSettings,
    private readonly log?: Logger,
  ) {
    this.recordPrompts = settings.recordPrompts;
    this.endpoint = settings.endpoint;
    this.provider = settings.endpoint === null ? null : createProvider(settings, this.ids, log);
    this.tracer = this.provider?.getTracer('hermesx', readBuildInfo().version) ?? null;
    this.runs = new RunTraces(this);
  }

  get enabled(): boolean {
    return this.tracer !== null;
  }

  start(): void {
    if (!this.provider || this.endpoint === null) return;
    const fields = {
      traces_endpoint: redactUrl(this.endpoint),
      record_prompts: this.recordPrompts,
    };
    this.log?.info(fields, 'tracing enabled');
  }

  /** Sends the spans still buffered, then closes the exporter. */
  async stop(): Promise<void> {
    if (!this.provider) return;
    this.runs.abandonAll();
    try {
      await withTimeout(this.provider.shutdown(), FLUSH_TIMEOUT_MS);
    } catch (err) {
      this.log?.warn(
        { error: err instanceof Error ? err.message : String(err) },
        'tracing: cannot flush the last spans',
      );
    }
  }

  /** Sends the spans buffered so far (tests, benchmarks). */
  async flush(): Promise<void> {
    await this.provider?.forceFlush();
  }
}

function createProvider(
  settings: TraceSettings,
  ids: ChosenTraceIds,
  log: Logger | undefined,
): BasicTracerProvider {
  const otlp = new OTLPTraceExporter({
    url: settings.endpoint ?? '',
    headers: { ...settings.headers },
  });
  const exporter = new ReportingExporter(otlp, log);
  const resource = defaultResource().merge(
    resourceFromAttributes({
      ...settings.resourceAttributes,
      'service.name': settings.serviceName,
      'service.version': readBuildInfo().version,
    }),
  );
  return new BasicTracerProvider({
    resource,
    idGenerator: ids,
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
}

function withTimeout(work: Promise<void>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
