// The agent loop's spans: one `model.call` per request to the model server (its retries inside),
// one `tool.call` per tool call. Called with no scope (tracing off, or a caller that traces
// nothing) they only run the work. Attributes follow OpenTelemetry's GenAI conventions where
// they have a name; no prompt, answer or argument unless OTEL_RECORD_PROMPTS, and then redacted.
import { SpanStatusCode, type Span } from '@opentelemetry/api';
import { pricedCallOf } from '../usage/priced-answers.js';
import { recordedText, startChild, type TraceScope } from './scope.js';

/** What a model call's span reads of the request and the answer (an OpenAI chat completion). */
interface ModelRequest {
  model?: string | undefined;
  messages?: unknown;
  max_tokens?: number | null | undefined;
}
interface ModelAnswer {
  model?: string | undefined;
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null | undefined;
  choices?: readonly { message?: { content?: string | null } | undefined }[];
}

export async function traceModelCall<T extends ModelAnswer>(
  scope: TraceScope | undefined,
  request: ModelRequest,
  defaultModel: string | undefined,
  call: () => Promise<T>,
): Promise<T> {
  if (!scope) return call();
  const model = request.model ?? defaultModel;
  const span = startChild(scope, 'model.call', {
    'gen_ai.operation.name': 'chat',
    ...(model ? { 'gen_ai.request.model': model } : {}),
    ...(request.max_tokens ? { 'gen_ai.request.max_tokens': request.max_tokens } : {}),
  });
  if (scope.recordPrompts) {
    span.setAttribute('gen_ai.prompt', recordedText(scope, JSON.stringify(request.messages ?? [])));
  }
  try {
    const answer = await call();
    // Tokens only as the server reported them: a stream without a usage chunk says nothing.
    const usage = answer.usage;
    span.setAttributes({
      'http.response.status_code': 200,
      ...(answer.model ? { 'gen_ai.response.model': answer.model } : {}),
      ...(usage?.prompt_tokens === undefined
        ? {}
        : { 'gen_ai.usage.input_tokens': usage.prompt_tokens }),
      ...(usage?.completion_tokens === undefined
        ? {}
        : { 'gen_ai.usage.output_tokens': usage.completion_tokens }),
    });
    // The cost the usage ledger records for the call; none when the model has no price (a
    // cost is never guessed) or the call was not metered.
    const cost = pricedCallOf(answer)?.costMicros;
    if (typeof cost === 'number') span.setAttribute('hermesx.cost_micros', cost);
    // A server that answers with another model than the one asked for fell back to it.
    if (model && answer.model && answer.model !== model) {
      span.setAttribute('hermesx.model.fallback', answer.model);
    }
    const content = answer.choices?.[0]?.message?.content;
    if (scope.recordPrompts && content) {
      span.setAttribute('gen_ai.completion', recordedText(scope, content));
    }
    return answer;
  } catch (err) {
    endWithError(span, err);
    throw err;
  } finally {
    span.end();
  }
}

export async function traceToolCall(
  scope: TraceScope | undefined,
  tool: string,
  argumentsText: string,
  call: () => Promise<string>,
): Promise<string> {
  if (!scope) return call();
  const span = startChild(scope, 'tool.call', { 'gen_ai.tool.name': tool });
  if (scope.recordPrompts) {
    span.setAttribute('hermesx.tool.arguments', recordedText(scope, argumentsText));
  }
  try {
    const result = await call();
    const failure = toolFailureOf(result);
    span.setAttributes({
      'hermesx.tool.outcome': failure ?? 'ok',
      'hermesx.tool.result_bytes': Buffer.byteLength(result, 'utf8'),
    });
    if (failure) span.setStatus({ code: SpanStatusCode.ERROR, message: failure });
    return result;
  } catch (err) {
    span.setAttribute('hermesx.tool.outcome', 'thrown');
    endWithError(span, err);
    throw err;
  } finally {
    span.end();
  }
}

/** A tool's answer that says it failed (`{"ok":false,"error":{"code":…}}`): its code. */
export function toolFailureOf(result: string): string | null {
  if (!result.startsWith('{"ok":false')) return null;
  const code = /"code":"([a-z_]{1,64})"/.exec(result.slice(0, 512))?.[1];
  return code ?? 'error';
}

/** The HTTP status an LlmError's message names ("the model server answered 503…"), if any. */
export function httpStatusOf(message: string): number | undefined {
  const status = /answered (\d{3})\b/.exec(message)?.[1];
  return status === undefined ? undefined : Number(status);
}

function endWithError(span: Span, err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  const kind = (err as { kind?: unknown } | null)?.kind;
  const status = httpStatusOf(message);
  const type = typeof kind === 'string' ? kind : err instanceof Error ? err.name : 'error';
  span.setAttributes({
    'error.type': type,
    ...(status === undefined ? {} : { 'http.response.status_code': status }),
  });
  // The kind and status only: a server's error text may quote what it was sent.
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: status === undefined ? type : `${type} (HTTP ${status})`,
  });
}
