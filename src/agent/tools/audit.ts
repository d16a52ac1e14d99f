// Every tool call of a run is measured and kept: name, arguments with secret values redacted,
// outcome, duration and bytes. The wrapper sits between the agent loop and each tool, so no tool
// can forget it; the record is written as the call ends, before the model sees the result. A call
// with side effects is written before it is made as well (`begin`): an identical call that already
// completed in an earlier attempt of the run is replayed from its record instead of made again,
// and a call whose pod dies mid-way leaves its row `started` (docs/agent.md, "At most once per
// occurrence"). Everything stored is NUL-safe: PostgreSQL text and jsonb cannot hold U+0000.
import type { Redactor } from '../../secrets/redact.js';
import { truncateText } from '../loop.js';
import { ToolLimitError, type AgentTool, type ToolCallDetail, type ToolContext } from '../tool.js';
import type { ToolMetrics, ToolOutcome } from '../tool-metrics.js';

const MAX_AUDIT_ARGUMENT_BYTES = 8 * 1024;
const MAX_AUDIT_ERROR_CHARS = 1000;
/** Bytes of a result kept for a replay: more than a run keeps of any result (40 KB). */
const MAX_AUDIT_RESULT_BYTES = 64 * 1024;

/**
 * A call's row: `started` before a call with side effects is made (until its outcome replaces
 * it), `replayed` for a call answered from an earlier attempt's record, else the outcome.
 */
export type ToolCallStatus = ToolOutcome | 'started' | 'replayed';

export interface ToolCallRecord {
  /**
   * The call's position in this attempt of the run, from 1 (ToolContext.position). The audit
   * table numbers a later attempt's calls after the earlier ones'.
   */
  seq: number;
  tool: string;
  /** The arguments as the model gave them, secret values redacted, long strings cut, NUL-safe. */
  arguments: unknown;
  status: ToolCallStatus;
  /**
   * Whether the call may have changed something outside the run: it ran (a refused call or one
   * stopped by a limit did not) and its tool's rule says so for these arguments.
   */
  sideEffects: boolean;
  error: string | null;
  httpStatus: number | null;
  durationMs: number;
  requestBytes: number;
  responseBytes: number;
  /**
   * What the model was shown, for a call with side effects that returned one (64 KB at most,
   * NUL-safe): what a later attempt replays. Null otherwise.
   */
  result: string | null;
}

/** A call with side effects about to be made, as it will be stored. */
export interface BegunCall {
  seq: number;
  tool: string;
  arguments: unknown;
}

/** The recorded outcome of an identical call of an earlier attempt. */
export interface RecordedResult {
  result: string;
  httpStatus: number | null;
}

export interface ToolAuditOptions {
  redactor: Redactor;
  /** Keeps the record (the run's audit table); a failure fails the call. */
  record?: (record: ToolCallRecord) => Promise<void>;
  /**
   * Before a call with side effects: the recorded result to replay, or null once the call's row
   * is written `started` (then `record` completes that row). A failure fails the call unmade.
   */
  begin?: (call: BegunCall) => Promise<RecordedResult | null>;
  metrics?: ToolMetrics | undefined;
  now?: () => number;
}

export function auditTools(tools: readonly AgentTool[], options: ToolAuditOptions): AgentTool[] {
  const now = options.now ?? (() => performance.now());
  let seq = 0;
  return tools.map((tool) => ({
    ...tool,
    async run(args, context) {
      const startedMs = now();
      const number = ++seq;
      const name = tool.definition.function.name;
      const stored = storableValue(boundArguments(options.redactor.value(args)));
      const effects = tool.sideEffects?.(args) ?? true;
      if (effects && options.begin) {
        const recorded = await options.begin({ seq: number, tool: name, arguments: stored });
        if (recorded) {
          await options.record?.({
            seq: number,
            tool: name,
            arguments: stored,
            status: 'replayed',
            // This attempt changed nothing: the call it stands for has its own row.
            sideEffects: false,
            error: null,
            httpStatus: recorded.httpStatus,
            durationMs: Math.max(0, Math.round(now() - startedMs)),
            requestBytes: 0,
            responseBytes: Buffer.byteLength(recorded.result, 'utf8'),
            result: null,
          });
          return recorded.result;
        }
      }
      let detail: ToolCallDetail = {};
      const reporting: ToolContext = {
        ...context,
        position: number,
        report: (reported) => (detail = { ...detail, ...reported }),
      };
      let result: string | undefined;
      let failure: unknown;
      try {
        // Whatever a tool returns reaches the model only redacted.
        result = options.redactor.text(await tool.run(args, reporting));
      } catch (err) {
        failure = err;
      }
      const status: ToolOutcome =
        failure instanceof ToolLimitError
          ? 'limit'
          : failure !== undefined
            ? 'error'
            : (detail.status ?? (isFailure(result) ? 'error' : 'ok'));
      const error =
        failure !== undefined
          ? failure instanceof Error
            ? failure.message
            : String(failure)
          : (detail.error ?? (status === 'ok' ? null : failureMessage(result)));
      const durationMs = Math.max(0, Math.round(now() - startedMs));
      options.metrics?.observe(name, status, durationMs);
      const ran = status === 'ok' || status === 'error';
      await options.record?.({
        seq: number,
        tool: name,
        arguments: stored,
        status,
        sideEffects: ran && effects,
        error:
          error === null
            ? null
            : storableText(options.redactor.text(error)).slice(0, MAX_AUDIT_ERROR_CHARS),
        httpStatus: detail.httpStatus ?? null,
        durationMs,
        requestBytes: detail.requestBytes ?? 0,
        responseBytes: detail.responseBytes ?? Buffer.byteLength(result ?? '', 'utf8'),
        // A call that threw (the run aborted, a failure of its own) has no result to replay:
        // its outcome is unknown, and a later attempt makes it again (with the same key).
        result:
          ran && effects && result !== undefined
            ? storableText(truncateText(result, MAX_AUDIT_RESULT_BYTES))
            : null,
      });
      if (failure !== undefined) throw failure;
      return result as string;
    },
  }));
}

function isFailure(result: string | undefined): boolean {
  return result !== undefined && result.startsWith('{"ok":false');
}

function failureMessage(result: string | undefined): string | null {
  try {
    const parsed = JSON.parse(result ?? '') as { error?: { message?: unknown } };
    return typeof parsed.error?.message === 'string' ? parsed.error.message : null;
  } catch {
    return null;
  }
}

/** The arguments as JSON of at most 8 KB: long strings are cut (a body, a prompt). */
function boundArguments(args: unknown): unknown {
  if (Buffer.byteLength(JSON.stringify(args ?? null), 'utf8') <= MAX_AUDIT_ARGUMENT_BYTES) {
    return args ?? null;
  }
  const cut = (value: unknown): unknown =>
    typeof value === 'string'
      ? truncateText(value, 512)
      : Array.isArray(value)
        ? value.slice(0, 20).map(cut)
        : value !== null && typeof value === 'object'
          ? Object.fromEntries(
              Object.entries(value)
                .slice(0, 40)
                .map(([k, v]) => [k, cut(v)]),
            )
          : value;
  const smaller = cut(args);
  if (Buffer.byteLength(JSON.stringify(smaller), 'utf8') <= MAX_AUDIT_ARGUMENT_BYTES)
    return smaller;
  return { truncated: truncateText(JSON.stringify(smaller), MAX_AUDIT_ARGUMENT_BYTES - 100) };
}

/** U+0000, which PostgreSQL text and jsonb refuse, is stored as U+FFFD. */
export function storableText(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', '\uFFFD') : text;
}

/** A JSON value with U+0000 in its strings and keys stored as U+FFFD. */
function storableValue(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) return value.map(storableValue);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [storableText(key), storableValue(item)]),
    );
  }
  return value;
}
