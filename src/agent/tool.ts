import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import type { AuditChange } from '../domain/audit.js';
import type { Scope } from '../domain/scopes.js';

/**
 * Who is chatting, for the tools that act on the tenant's state: the scopes of the request's
 * principal (the REST API's permission check, asked per action), and where a change goes in the
 * audit log (with the request's actor, address and id).
 */
export interface ToolAccess {
  scopes: readonly Scope[];
  audit(entry: {
    action: string;
    targetType: string;
    targetId: string | null;
    change: AuditChange | null;
  }): Promise<void>;
}

export interface ToolContext {
  tenantId: string;
  signal: AbortSignal;
  /**
   * What the turn has changed so far, in words ("created job ..."), appended by tools that change
   * state: after a change the turn must not fail with a 5xx, or a client's retry repeats it.
   */
  changes?: string[];
  /** Set for an audited call: what the tool wants kept beside its result (status, bytes). */
  report?: (detail: ToolCallDetail) => void;
  /**
   * Set for an audited call: its position among the tool calls of this attempt of the run (or
   * this chat turn), from 1; the run's idempotency keys are derived from it (tools/index.ts).
   */
  position?: number;
}

/** What a tool reports about one call, for the run's audit and the metrics. */
export interface ToolCallDetail {
  /** refused: the request was not allowed (host, address, secret); error: it failed. */
  status?: 'ok' | 'error' | 'refused';
  error?: string;
  httpStatus?: number;
  requestBytes?: number;
  responseBytes?: number;
}

/**
 * Thrown by a tool when the run has used up one of its bounds (calls, bytes): the turn ends and a
 * scheduled run fails with error_kind tool_limit.
 */
export class ToolLimitError extends Error {
  override name = 'ToolLimitError';
}

/** A tool the agent may call: its definition for the model, and what it does. */
export interface AgentTool {
  definition: ChatCompletionFunctionTool;
  /** The result text for the model (errors included: the model reads them and corrects itself). */
  run(args: unknown, context: ToolContext): Promise<string>;
  /**
   * Whether a call with these arguments may change anything outside the run, from the tool's
   * row in src/agent/tools/index.ts. Absent (a tool made outside the registry): it may.
   */
  sideEffects?: (args: unknown) => boolean;
}
