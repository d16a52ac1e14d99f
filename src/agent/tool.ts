import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';

export interface ToolContext {
  tenantId: string;
  signal: AbortSignal;
  /**
   * What the turn has changed so far, in words ("created job ..."), appended by tools that change
   * state: after a change the turn must not fail with a 5xx, or a client's retry repeats it.
   */
  changes?: string[];
}

/** A tool the agent may call: its definition for the model, and what it does. */
export interface AgentTool {
  definition: ChatCompletionFunctionTool;
  /** The result text for the model (errors included: the model reads them and corrects itself). */
  run(args: unknown, context: ToolContext): Promise<string>;
}
