import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';

export interface ToolContext {
  tenantId: string;
  signal: AbortSignal;
}

/** A tool the agent may call: its definition for the model, and what it does. */
export interface AgentTool {
  definition: ChatCompletionFunctionTool;
  /** The result text for the model (errors included: the model reads them and corrects itself). */
  run(args: unknown, context: ToolContext): Promise<string>;
}
