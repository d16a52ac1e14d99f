// The tracing pieces on their own: the settings as OpenTelemetry defines them, a run's spans in
// memory (its id the trace id, the record under it, the bound on open runs), the hooks' no-op
// when tracing is off, and what a failing model or tool call says.
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { traceModelCall, traceToolCall, toolFailureOf } from '../../src/tracing/agent-spans.js';
import type { JobStore } from '../../src/scheduler/ports.js';
import { startChatTurn } from '../../src/tracing/chat-turn.js';
import { traceJobStore } from '../../src/tracing/job-store.js';
import type { Logger } from '../../src/log.js';
import { ReportingExporter } from '../../src/tracing/reporting-exporter.js';
import { RunTraces } from '../../src/tracing/run-traces.js';
import { readTraceSettings, TRACING_OFF } from '../../src/tracing/settings.js';
import { ChosenTraceIds, traceIdOfRun } from '../../src/tracing/trace-ids.js';
import { Tracing } from '../../src/tracing/tracing.js';
import { notePricedAnswer } from '../../src/usage/priced-answers.js';

const RUN = '0b7c3f52-9d1e-4a8b-b6c2-5e4f3a2d1c0b';

function inMemory(maxOpen?: number) {
  const exporter = new InMemorySpanExporter();
  const ids = new ChosenTraceIds();
  const provider = new BasicTracerProvider({
    idGenerator: ids,
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const owner = { tracer: provider.getTracer('test'), ids, recordPrompts: false };
  return { exporter, owner, runs: new RunTraces(owner, maxOpen) };
}

describe('trace settings', () => {
  it('are off without an endpoint, whatever else is set', () => {
    expect(readTraceSettings({ OTEL_SERVICE_NAME: 'x' }).endpoint).toBeNull();
    expect(loadConfig({}).tracing.endpoint).toBeNull();
    const disabled = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' };
    expect(loadConfig(disabled).tracing.endpoint).toBeNull();
  });

  it('append /v1/traces to the general endpoint and take the traces one as is', () => {
    expect(readTraceSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' }).endpoint).toBe(
      'http://c:4318/v1/traces',
    );
    const both = readTraceSettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:9999/custom',
    });
    expect(both.endpoint).toBe('http://t:9999/custom');
  });

  it('read headers, resource attributes and the service name', () => {
    const settings = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'api-key=s%3Dcret, x-team=ops',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-attrs,deployment.environment=prod',
    }).tracing;
    expect(settings.headers).toEqual({ 'api-key': 's=cret', 'x-team': 'ops' });
    expect(settings.serviceName).toBe('from-attrs');
    expect(settings.resourceAttributes['deployment.environment']).toBe('prod');
    expect(settings.recordPrompts).toBe(false);
    const named = readTraceSettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_SERVICE_NAME: 'billing-pods',
    });
    expect(named.serviceName).toBe('billing-pods');
    expect(readTraceSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c' }).serviceName).toBe(
      'hermesx',
    );
  });

  it('refuse malformed values with one line that does not echo headers', () => {
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_HEADERS: 'Bearer abc123' })).toThrow(
      'invalid setting OTEL_EXPORTER_OTLP_HEADERS="***": expected key=value pairs',
    );
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(
      ConfigError,
    );
    expect(() => loadConfig({ OTEL_RECORD_PROMPTS: 'yes' })).toThrow(/OTEL_RECORD_PROMPTS/);
  });
});

describe('a run’s trace', () => {
  it('has the run id as trace id, the claim and the record under its root', async () => {
    const { exporter, runs } = inMemory();
    runs.claimed(RUN, 1000, 1004, { 'hermesx.job.id': 'job-1' });
    const scope = runs.scopeOf(RUN, { 'hermesx.tenant.id': 't-1' }, (text) => text);
    expect(scope).toBeDefined();
    expect(await runs.record(RUN, async () => 'recorded')).toBe('recorded');
    runs.finish(RUN, { status: 'failed', errorKind: 'timeout', modelRequests: 1 });
    const spans = exporter.getFinishedSpans();
    const root = spans.find((span) => span.name === 'run');
    expect(root?.spanContext().traceId).toBe(traceIdOfRun(RUN));
    expect(root?.parentSpanContext).toBeUndefined();
    expect(root?.attributes).toMatchObject({
      'hermesx.run.id': RUN,
      'hermesx.job.id': 'job-1',
      'hermesx.tenant.id': 't-1',
      'hermesx.run.status': 'failed',
      'hermesx.run.error_kind': 'timeout',
      'hermesx.run.model_requests': 1,
    });
    expect(root?.status.code).toBe(2);
    for (const name of ['claim', 'run.record']) {
      const child = spans.find((span) => span.name === name);
      expect(child?.parentSpanContext?.spanId).toBe(root?.spanContext().spanId);
      expect(child?.spanContext().traceId).toBe(root?.spanContext().traceId);
    }
    expect(runs.openCount).toBe(0);
  });

  it('closes the oldest open run as incomplete past its bound', () => {
    const { exporter, runs } = inMemory(2);
    const ids = ['a', 'b', 'c'].map((c) => RUN.slice(0, -1) + c);
    for (const id of ids) runs.claimed(id, 1, 2, {});
    expect(runs.openCount).toBe(2);
    const ended = exporter.getFinishedSpans().filter((span) => span.name === 'run');
    expect(ended.map((span) => span.attributes['hermesx.run.id'])).toEqual([ids[0]]);
    expect(ended[0]?.attributes['hermesx.run.status']).toBe('incomplete');
  });

  it('takes a random trace id for an id that is not a UUID', () => {
    expect(traceIdOfRun('not-a-uuid')).toBeUndefined();
    expect(traceIdOfRun('00000000-0000-0000-0000-000000000000')).toBeUndefined();
  });
});

describe('model and tool calls', () => {
  it('say how a call failed without the server’s text', async () => {
    const { exporter, owner } = inMemory();
    const scope = {
      tracer: owner.tracer,
      parent: trace.setSpan(ROOT_CONTEXT, owner.tracer.startSpan('parent')),
      recordPrompts: false,
      redact: (text: string) => text,
    };
    const failure = Object.assign(new Error('the model server answered 503: secret prompt'), {
      kind: 'throttled',
    });
    await expect(
      traceModelCall(scope, { messages: [{ role: 'user', content: 'hello' }] }, 'm', () =>
        Promise.reject(failure),
      ),
    ).rejects.toBe(failure);
    await traceToolCall(scope, 'clock', '{"timezone":"Mars"}', async () =>
      JSON.stringify({ ok: false, error: { code: 'unknown_timezone', message: 'no' } }),
    );
    const [model, tool] = exporter.getFinishedSpans();
    expect(model?.attributes).toMatchObject({
      'gen_ai.request.model': 'm',
      'error.type': 'throttled',
      'http.response.status_code': 503,
    });
    expect(model?.status).toEqual({ code: 2, message: 'throttled (HTTP 503)' });
    expect(tool?.attributes).toMatchObject({
      'gen_ai.tool.name': 'clock',
      'hermesx.tool.outcome': 'unknown_timezone',
    });
    expect(JSON.stringify([model?.attributes, tool?.attributes])).not.toMatch(/hello|Mars|secret/);
  });

  it('carry the cost the metered step priced, and none when the price is unknown', async () => {
    const { exporter, owner } = inMemory();
    const scope = {
      tracer: owner.tracer,
      parent: trace.setSpan(ROOT_CONTEXT, owner.tracer.startSpan('parent')),
      recordPrompts: false,
      redact: (text: string) => text,
    };
    const tokens = { promptTokens: 10, cachedTokens: 0, completionTokens: 5 };
    const usage = { prompt_tokens: 10, completion_tokens: 5 };
    const answer = (model: string, costMicros: number | null | undefined) => {
      const completion = { model, usage };
      if (costMicros !== undefined) notePricedAnswer(completion, { model, ...tokens, costMicros });
      return completion;
    };
    const request = { messages: [] };
    await traceModelCall(scope, request, 'priced', async () => answer('priced', 61));
    await traceModelCall(scope, request, 'unpriced', async () => answer('unpriced', null));
    await traceModelCall(scope, request, 'unmetered', async () => answer('unmetered', undefined));
    const [priced, unpriced, unmetered] = exporter.getFinishedSpans();
    expect(priced?.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 10,
      'gen_ai.usage.output_tokens': 5,
      'hermesx.cost_micros': 61,
    });
    for (const span of [unpriced, unmetered]) {
      expect(span?.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 10 });
      expect(span?.attributes).not.toHaveProperty('hermesx.cost_micros');
    }
  });

  it('reads a tool answer’s failure code', () => {
    expect(toolFailureOf('{"ok":true,"now":"x"}')).toBeNull();
    expect(toolFailureOf('{"ok":false,"error":{"code":"blocked_address","message":"m"}}')).toBe(
      'blocked_address',
    );
    expect(toolFailureOf('plain text')).toBeNull();
  });
});

describe('tracing off', () => {
  it('creates no tracer and every hook only runs the work', async () => {
    const tracing = new Tracing(TRACING_OFF);
    expect(tracing.enabled).toBe(false);
    expect(tracing.runs.scopeOf(RUN, {}, (text) => text)).toBeUndefined();
    tracing.runs.claimed(RUN, 1, 2, {});
    expect(tracing.runs.openCount).toBe(0);
    expect(
      startChatTurn(
        tracing,
        { tenantId: 't', stream: false, model: 'm', requestId: 'r' },
        (t) => t,
      ),
    ).toBeUndefined();
    expect(await traceToolCall(undefined, 'clock', '{}', async () => 'ok')).toBe('ok');
    await tracing.stop();
  });
});

describe('the traced job store', () => {
  const RUN2 = RUN.slice(0, -1) + 'd';
  const RUN3 = RUN.slice(0, -1) + 'e';
  const claimed = (runId: string) => ({ runId, name: 'n', prompt: 'p' });
  const taken = (runId: string) => ({
    ...claimed(runId),
    jobId: 'job-q',
    tenantId: 't-q',
    scheduledAt: new Date(0),
  });
  const store = {
    claimRun: async () => ({ kind: 'claimed', run: claimed(RUN) }),
    claimWaiting: async () => ({ kind: 'overlap' }),
    takeQueuedRuns: async () => [taken(RUN2)],
    adoptRuns: async () => [taken(RUN3)],
    markSent: async () => true,
    finishRun: async () => 'requeued',
    failRuns: async () => [{ runId: RUN2, jobId: 'job-q', requeued: false }],
    requeueRuns: async (ids: readonly string[]) => [...ids],
  } as unknown as JobStore;

  it('opens a trace at each kind of claim and ends it as the run ended', async () => {
    const { exporter, runs } = inMemory();
    const traced = traceJobStore(store, runs);
    await traced.claimRun('job-1', new Date(0), 'pod', null);
    await traced.markSent(RUN, 'pod', 'catch_up');
    await traced.takeQueuedRuns('pod', 10);
    await traced.adoptRuns([{ runId: RUN3, fromPodId: 'gone' }], 'pod');
    expect(runs.openCount).toBe(3);
    const outcome = { success: false, result: null, error: 'e', errorKind: 'timeout' as const };
    expect(await traced.finishRun(RUN, { ...outcome, attempts: 1 }, 'pod')).toBe('requeued');
    await traced.failRuns([RUN2], 'pod crash', 'pod_lost');
    await traced.requeueRuns([RUN3], 'pod', 0);
    expect(runs.openCount).toBe(0);
    const roots = new Map(
      exporter
        .getFinishedSpans()
        .filter((span) => span.name === 'run')
        .map((span) => [span.attributes['hermesx.run.id'], span.attributes]),
    );
    expect(roots.get(RUN)).toMatchObject({
      'hermesx.run.origin': 'catch_up',
      'hermesx.run.status': 'retrying',
      'hermesx.run.error_kind': 'timeout',
    });
    expect(roots.get(RUN2)).toMatchObject({
      'hermesx.run.claimed_from': 'queue',
      'hermesx.tenant.id': 't-q',
      'hermesx.run.status': 'failed',
      'hermesx.run.error_kind': 'pod_lost',
    });
    expect(roots.get(RUN3)).toMatchObject({
      'hermesx.run.claimed_from': 'vanished_pod',
      'hermesx.run.status': 'handed_back',
    });
    const names = exporter.getFinishedSpans().map((span) => span.name);
    expect(names.filter((name) => name === 'claim')).toHaveLength(3);
    expect(names.filter((name) => name === 'run.record')).toHaveLength(1);
  });

  it('is the store itself when tracing is off', () => {
    expect(traceJobStore(store, new Tracing(TRACING_OFF).runs)).toBe(store);
  });
});

describe('a collector that does not take the spans', () => {
  it('is said once a minute at most, with the spans lost meanwhile', () => {
    const warnings: unknown[] = [];
    const log = { warn: (fields: unknown) => warnings.push(fields) } as unknown as Logger;
    let nowMs = 0;
    const failing = {
      export: (_spans: unknown[], done: (result: { code: number; error?: Error }) => void) =>
        done({ code: 1, error: new Error('connect ECONNREFUSED') }),
      shutdown: async () => undefined,
    };
    const exporter = new ReportingExporter(failing as never, log, () => nowMs);
    const results: number[] = [];
    const batch = (size: number) =>
      exporter.export(new Array(size) as never, (result) => results.push(result.code));
    batch(3);
    nowMs = 30_000;
    batch(4);
    nowMs = 61_000;
    batch(5);
    expect(results).toEqual([1, 1, 1]);
    expect(warnings).toEqual([
      { lost_spans: 3, error: 'connect ECONNREFUSED' },
      { lost_spans: 9, error: 'connect ECONNREFUSED' },
    ]);
  });
});
