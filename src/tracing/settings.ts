// The standard OpenTelemetry settings this service honours for traces, read once with the rest of
// the configuration (src/config.ts), so tests and `hermesx help settings` see them like any other.

/** What src/tracing/provider.ts needs to export traces; `endpoint` null: tracing is off. */
export interface TraceSettings {
  /** The full URL spans are POSTed to (…/v1/traces), or null: nothing is set up or sent. */
  readonly endpoint: string | null;
  /** Sent with every export (OTEL_EXPORTER_OTLP_HEADERS): a collector's key, say. */
  readonly headers: Readonly<Record<string, string>>;
  readonly serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES, on every span's resource. */
  readonly resourceAttributes: Readonly<Record<string, string>>;
  /** OTEL_RECORD_PROMPTS=true: prompts, answers and tool arguments, redacted, as attributes. */
  readonly recordPrompts: boolean;
}

export const DEFAULT_SERVICE_NAME = 'hermesx';

export const TRACING_OFF: TraceSettings = Object.freeze({
  endpoint: null,
  headers: Object.freeze({}),
  serviceName: DEFAULT_SERVICE_NAME,
  resourceAttributes: Object.freeze({}),
  recordPrompts: false,
});

export interface TraceEnv {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string | undefined;
  OTEL_EXPORTER_OTLP_HEADERS?: string | undefined;
  OTEL_SERVICE_NAME?: string | undefined;
  OTEL_RESOURCE_ATTRIBUTES?: string | undefined;
  OTEL_RECORD_PROMPTS?: string | undefined;
  OTEL_SDK_DISABLED?: string | undefined;
}

/**
 * The settings as the OpenTelemetry specification reads them: the per-signal endpoint is used as
 * is, the general one gets `/v1/traces` appended (neither counts with OTEL_SDK_DISABLED=true); the service name comes from OTEL_SERVICE_NAME,
 * else OTEL_RESOURCE_ATTRIBUTES' service.name, else `hermesx`.
 */
export function readTraceSettings(env: TraceEnv): TraceSettings {
  // OTEL_SDK_DISABLED=true turns tracing off whatever the endpoint says (the specification's switch).
  const endpoint = env.OTEL_SDK_DISABLED === 'true' ? null : tracesEndpointOf(env);
  if (endpoint === null)
    return { ...TRACING_OFF, recordPrompts: env.OTEL_RECORD_PROMPTS === 'true' };
  const resourceAttributes = parseKeyValues(env.OTEL_RESOURCE_ATTRIBUTES) ?? {};
  return Object.freeze({
    endpoint,
    headers: Object.freeze(parseKeyValues(env.OTEL_EXPORTER_OTLP_HEADERS) ?? {}),
    serviceName:
      nonEmpty(env.OTEL_SERVICE_NAME) ?? resourceAttributes['service.name'] ?? DEFAULT_SERVICE_NAME,
    resourceAttributes: Object.freeze(resourceAttributes),
    recordPrompts: env.OTEL_RECORD_PROMPTS === 'true',
  });
}

function tracesEndpointOf(env: TraceEnv): string | null {
  const traces = nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  if (traces) return traces;
  const base = nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (!base) return null;
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

/**
 * `key1=value1,key2=value2` with percent-encoded keys and values (the W3C Baggage form the
 * specification uses for headers and resource attributes); null when a pair is malformed.
 */
export function parseKeyValues(text: string | undefined): Record<string, string> | null {
  const pairs: Record<string, string> = {};
  if (text === undefined || text.trim() === '') return pairs;
  for (const part of text.split(',')) {
    const at = part.indexOf('=');
    if (at <= 0) return null;
    try {
      const key = decodeURIComponent(part.slice(0, at).trim());
      const value = decodeURIComponent(part.slice(at + 1).trim());
      if (key === '') return null;
      pairs[key] = value;
    } catch {
      return null;
    }
  }
  return pairs;
}

function nonEmpty(text: string | undefined): string | undefined {
  const trimmed = text?.trim();
  return trimmed === '' ? undefined : trimmed;
}
