import type {
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
} from 'openai/resources/chat/completions';
import type { Llm } from './llm.js';
import type { AgentTool, ToolContext } from './tool.js';

export interface AgentRequest {
  messages: ChatCompletionMessageParam[];
  tools: readonly AgentTool[];
  context: ToolContext;
  maxSteps?: number;
  temperature?: number | undefined;
  maxTokens?: number | undefined;
}

export interface AgentAnswer {
  content: string;
  steps: number;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

export class AgentError extends Error {
  override name = 'AgentError';
  constructor(
    message: string,
    readonly code: 'step_limit',
  ) {
    super(message);
  }
}

export const DEFAULT_MAX_STEPS = 8;

/**
 * The agent loop: send the conversation and the tool definitions to the model, run the tool
 * calls it returns, feed the results back, and repeat until it answers (or the step limit).
 */
export async function runAgent(llm: Llm, request: AgentRequest): Promise<AgentAnswer> {
  const messages = [...request.messages];
  const maxSteps = request.maxSteps ?? DEFAULT_MAX_STEPS;
  const tools = new Map(request.tools.map((tool) => [tool.definition.function.name, tool]));
  const usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  for (let step = 1; step <= maxSteps; step++) {
    const completion = await llm.complete(
      {
        messages,
        ...(tools.size > 0 ? { tools: request.tools.map((tool) => tool.definition) } : {}),
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
        ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
      },
      request.context.signal,
    );
    usage.prompt_tokens += completion.usage?.prompt_tokens ?? 0;
    usage.completion_tokens += completion.usage?.completion_tokens ?? 0;
    usage.total_tokens += completion.usage?.total_tokens ?? 0;
    const message = completion.choices[0]?.message;
    const calls = (message?.tool_calls ?? []).filter(
      (call): call is Extract<ChatCompletionMessageToolCall, { type: 'function' }> =>
        call.type === 'function',
    );
    if (calls.length === 0) return { content: message?.content ?? '', steps: step, usage };
    messages.push({ role: 'assistant', content: message?.content ?? null, tool_calls: calls });
    for (const call of calls) {
      const content = await runToolCall(tools, call, request.context);
      messages.push({ role: 'tool', tool_call_id: call.id, content });
    }
  }
  throw new AgentError(`the agent did not finish within ${maxSteps} steps`, 'step_limit');
}

async function runToolCall(
  tools: Map<string, AgentTool>,
  call: Extract<ChatCompletionMessageToolCall, { type: 'function' }>,
  context: ToolContext,
): Promise<string> {
  const tool = tools.get(call.function.name);
  if (!tool) {
    return JSON.stringify({
      ok: false,
      error: { code: 'unknown_tool', message: `there is no tool named ${call.function.name}` },
    });
  }
  let args: unknown;
  try {
    args = call.function.arguments ? JSON.parse(call.function.arguments) : {};
  } catch {
    return JSON.stringify({
      ok: false,
      error: { code: 'invalid_arguments', message: 'the arguments are not valid JSON' },
    });
  }
  return tool.run(args, context);
}
