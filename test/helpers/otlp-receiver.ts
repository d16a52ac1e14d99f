// An OTLP/HTTP trace receiver on loopback, as a collector would run one: it accepts
// POST /v1/traces with an OTLP JSON body (what @opentelemetry/exporter-trace-otlp-http sends) and
// decodes each span with its attributes, its resource's attributes and the request's headers.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type AttributeValue = string | number | boolean | null;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  startMs: number;
  endMs: number;
  attributes: Record<string, AttributeValue>;
  statusCode: number;
  resource: Record<string, AttributeValue>;
}

export interface OtlpReceiver {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  requests: { path: string; contentType: string; headers: http.IncomingHttpHeaders }[];
  close(): Promise<void>;
}

interface OtlpKeyValue {
  key: string;
  value?: Record<string, unknown>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: OtlpReceiver['requests'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const contentType = String(req.headers['content-type'] ?? '');
      requests.push({ path: req.url ?? '', contentType, headers: req.headers });
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !contentType.includes('json')) {
        res.writeHead(415).end();
        return;
      }
      spans.push(...decodeSpans(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function decodeSpans(body: string): ReceivedSpan[] {
  const request = JSON.parse(body) as {
    resourceSpans?: {
      resource?: { attributes?: OtlpKeyValue[] };
      scopeSpans?: { spans?: Record<string, unknown>[] }[];
    }[];
  };
  const out: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        out.push({
          traceId: idOf(span.traceId),
          spanId: idOf(span.spanId),
          parentSpanId: idOf(span.parentSpanId),
          name: String(span.name),
          startMs: Number(BigInt(String(span.startTimeUnixNano)) / 1_000_000n),
          endMs: Number(BigInt(String(span.endTimeUnixNano)) / 1_000_000n),
          attributes: attributesOf(span.attributes as OtlpKeyValue[] | undefined),
          statusCode: Number((span.status as { code?: number } | undefined)?.code ?? 0),
          resource,
        });
      }
    }
  }
  return out;
}

/** OTLP JSON ids are hex (the specification); base64 is accepted too. */
function idOf(id: unknown): string {
  if (typeof id !== 'string' || id === '') return '';
  return /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');
}

function attributesOf(list: OtlpKeyValue[] | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const { key, value } of list ?? []) {
    if (!value) out[key] = null;
    else if ('stringValue' in value) out[key] = String(value.stringValue);
    else if ('intValue' in value) out[key] = Number(value.intValue);
    else if ('doubleValue' in value) out[key] = Number(value.doubleValue);
    else if ('boolValue' in value) out[key] = Boolean(value.boolValue);
    else out[key] = JSON.stringify(value);
  }
  return out;
}
