import type {
  ChatCompletion,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
} from 'openai/resources/chat/completions';
import { LlmError, type Llm } from './llm.js';
import { ToolLimitError, type AgentTool, type ToolContext } from './tool.js';
import { traceModelCall, traceToolCall } from '../tracing/agent-spans.js';
import type { TraceScope } from '../tracing/scope.js';

/** One model call; streaming callers pass a function that forwards content deltas as they come. */
export type CompleteStep = (
  params: Parameters<Llm['complete']>[0],
  signal: AbortSignal,
) => Promise<ChatCompletion>;

export interface AgentLimits {
  /** Model calls per turn. */
  maxSteps: number;
  /** Tool calls the model may ask for in one answer (300 parallel calls once took 4 GB). */
  maxToolCallsPerStep: number;
  /** Tool calls per turn, all steps together. */
  maxToolCallsPerTurn: number;
  /** Bytes of one tool result kept in the conversation (longer ones are cut, and say so). */
  maxToolResultBytes: number;
  /** Bytes of the whole conversation sent to the model. */
  maxConversationBytes: number;
}

export const DEFAULT_AGENT_LIMITS: AgentLimits = {
  maxSteps: 8,
  maxToolCallsPerStep: 16,
  maxToolCallsPerTurn: 32,
  maxToolResultBytes: 16 * 1024,
  maxConversationBytes: 512 * 1024,
};

export interface AgentRequest {
  messages: ChatCompletionMessageParam[];
  tools: readonly AgentTool[];
  context: ToolContext;
  limits?: Partial<AgentLimits>;
  temperature?: number | undefined;
  maxTokens?: number | undefined;
  /**
   * Asked before each model call after the first: a reason to stop (a tenant limit), or null.
   * Every model call then costs the tenant what a request does.
   */
  beforeStep?: (() => Promise<string | null>) | undefined;
  /**
   * Over a limit, answer (the chat: a client needs to know what was done) instead of throwing
   * AgentError (a scheduled run then fails with the reason).
   */
  answerOnStop?: boolean;
  /** Where the turn's `model.call` and `tool.call` spans go (src/tracing/); absent: none. */
  trace?: TraceScope | undefined;
  /** The model each call asks first (a fallback may answer instead), for the spans. */
  model?: string | undefined;
}

export class AgentError extends Error {
  override name = 'AgentError';
  constructor(
    message: string,
    readonly code: Exclude<AgentStop, undefined>,
  ) {
    super(message);
  }
}

/** Why a turn ended before the model gave its final answer. */
export type AgentStop =
  | 'step_limit'
  | 'tool_call_limit'
  | 'conversation_limit'
  | 'model_failed'
  | 'tenant_limit'
  | undefined;

export interface AgentAnswer {
  content: string;
  steps: number;
  /** Set when the agent, not the model, wrote the answer. */
  stopped: AgentStop;
  /** The error that ended the turn after changes were made (model_failed only). */
  failure?: LlmError | undefined;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

/**
 * The agent loop: send the conversation and the tool definitions to the model, run the tool
 * calls it returns, feed the results back, and repeat until it answers. Every cap ends the turn
 * with an answer that says which limit was hit and what was already done. A model failure before
 * any change is thrown (a retry is then safe); after a change it becomes such an answer too,
 * because clients retry 5xx and the retry would repeat the change.
 */
export async function runAgent(
  model: Pick<Llm, 'complete'> | CompleteStep,
  request: AgentRequest,
): Promise<AgentAnswer> {
  const step: CompleteStep =
    typeof model === 'function' ? model : (params, signal) => model.complete(params, signal);
  // The model a call asks for when its parameters name none (the span's request model).
  const defaultModel =
    request.model ?? (typeof model === 'function' ? undefined : (model as Partial<Llm>).model);
  const limits = { ...DEFAULT_AGENT_LIMITS, ...request.limits };
  const changes = request.context.changes ?? [];
  const context: ToolContext = { ...request.context, changes };
  const { signal } = context;
  const messages = [...request.messages];
  const tools = new Map(request.tools.map((tool) => [tool.definition.function.name, tool]));
  const usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  let toolCalls = 0;
  let steps = 0;
  const stop = (
    stopped: Exclude<AgentStop, undefined>,
    reason: string,
    failure?: LlmError,
  ): AgentAnswer => {
    if (!request.answerOnStop) throw failure ?? new AgentError(reason, stopped);
    return { content: describeStop(reason, changes), steps, stopped, failure, usage };
  };
  while (steps < limits.maxSteps) {
    signal.throwIfAborted();
    if (conversationBytes(messages) > limits.maxConversationBytes) {
      return stop(
        'conversation_limit',
        `the conversation grew past ${limits.maxConversationBytes} bytes`,
      );
    }
    const limited = steps > 0 && request.beforeStep ? await request.beforeStep() : null;
    if (limited) return stop('tenant_limit', limited);
    steps++;
    let completion: ChatCompletion;
    try {
      const params = {
        messages,
        ...(tools.size > 0 ? { tools: request.tools.map((tool) => tool.definition) } : {}),
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
        ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
      };
      completion = await traceModelCall(request.trace, params, defaultModel, () =>
        step(params, signal),
      );
    } catch (err) {
      if (err instanceof LlmError && changes.length > 0 && !signal.aborted) {
        return stop('model_failed', 'the model server then failed', err);
      }
      throw err;
    }
    usage.prompt_tokens += completion.usage?.prompt_tokens ?? 0;
    usage.completion_tokens += completion.usage?.completion_tokens ?? 0;
    usage.total_tokens += completion.usage?.total_tokens ?? 0;
    const message = completion.choices[0]?.message;
    const calls = (message?.tool_calls ?? []).filter(
      (call): call is Extract<ChatCompletionMessageToolCall, { type: 'function' }> =>
        call.type === 'function',
    );
    if (calls.length === 0) {
      return { content: message?.content ?? '', steps, stopped: undefined, usage };
    }
    if (calls.length > limits.maxToolCallsPerStep) {
      return stop(
        'tool_call_limit',
        `the model asked for ${calls.length} tool calls at once, more than the limit of ${limits.maxToolCallsPerStep}`,
      );
    }
    if (toolCalls + calls.length > limits.maxToolCallsPerTurn) {
      return stop(
        'tool_call_limit',
        `the model asked for more than ${limits.maxToolCallsPerTurn} tool calls in one turn`,
      );
    }
    toolCalls += calls.length;
    messages.push({ role: 'assistant', content: message?.content ?? null, tool_calls: calls });
    for (const call of calls) {
      // A client gone away stops the turn between tool calls, not only during model calls.
      signal.throwIfAborted();
      let content: string;
      try {
        content = await traceToolCall(
          request.trace,
          call.function.name,
          call.function.arguments,
          () => runToolCall(tools, call, context),
        );
      } catch (err) {
        // A tool's own bound (http_request's calls or bytes) ends the turn like the loop's.
        if (err instanceof ToolLimitError) return stop('tool_call_limit', err.message);
        throw err;
      }
      messages.push({
        role: 'tool',
        tool_call_id: call.id,
        content: truncateText(content, limits.maxToolResultBytes),
      });
    }
  }
  return stop('step_limit', `the agent did not finish within ${limits.maxSteps} steps`);
}

/** The answer the agent writes when it ends a turn itself. */
export function describeStop(reason: string, changes: readonly string[]): string {
  const done =
    changes.length > 0
      ? `Done so far: ${changes.join('; ')}. These changes are saved; do not repeat them.`
      : 'Nothing was changed.';
  return `I stopped before finishing: ${reason}. ${done}`;
}

function conversationBytes(messages: ChatCompletionMessageParam[]): number {
  let bytes = 0;
  for (const message of messages) bytes += Buffer.byteLength(JSON.stringify(message), 'utf8');
  return bytes;
}

/** Cuts text to at most maxBytes of UTF-8 (never inside a character), saying that it did. */
export function truncateText(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  const marker = ` …[truncated from ${Buffer.byteLength(text, 'utf8')} bytes]`;
  const keep = Buffer.from(text, 'utf8').subarray(
    0,
    Math.max(0, maxBytes - Buffer.byteLength(marker)),
  );
  // A cut inside a multi-byte character decodes to U+FFFD; drop it.
  return keep.toString('utf8').replace(/\uFFFD+$/, '') + marker;
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
      error: {
        code: 'unknown_tool',
        message: `there is no tool named ${truncateText(call.function.name, 100)}`,
      },
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
