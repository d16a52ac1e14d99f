// Every tool call of a run is measured and kept: name, arguments with secret values redacted,
// outcome, duration and bytes. The wrapper sits between the agent loop and each tool, so no tool
// can forget it; the record is written as the call ends, before the model sees the result.
import type { Redactor } from '../../secrets/redact.js';
import { truncateText } from '../loop.js';
import { ToolLimitError, type AgentTool, type ToolCallDetail, type ToolContext } from '../tool.js';
import type { ToolMetrics, ToolOutcome } from '../tool-metrics.js';

const MAX_AUDIT_ARGUMENT_BYTES = 8 * 1024;
const MAX_AUDIT_ERROR_CHARS = 1000;

export interface ToolCallRecord {
  seq: number;
  tool: string;
  /** The arguments as the model gave them, secret values redacted, long strings cut. */
  arguments: unknown;
  status: ToolOutcome;
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
}

export interface ToolAuditOptions {
  redactor: Redactor;
  /** Keeps the record (the run's audit table); a failure fails the call. */
  record?: (record: ToolCallRecord) => Promise<void>;
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
      let detail: ToolCallDetail = {};
      const reporting: ToolContext = {
        ...context,
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
      const name = tool.definition.function.name;
      options.metrics?.observe(name, status, durationMs);
      await options.record?.({
        seq: number,
        tool: name,
        arguments: boundArguments(options.redactor.value(args)),
        status,
        sideEffects: (status === 'ok' || status === 'error') && (tool.sideEffects?.(args) ?? true),
        error: error === null ? null : options.redactor.text(error).slice(0, MAX_AUDIT_ERROR_CHARS),
        httpStatus: detail.httpStatus ?? null,
        durationMs,
        requestBytes: detail.requestBytes ?? 0,
        responseBytes: detail.responseBytes ?? Buffer.byteLength(result ?? '', 'utf8'),
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
