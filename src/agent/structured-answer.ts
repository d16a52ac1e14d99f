// Structured answers (docs/agent.md): a turn whose answer must be JSON of a given shape. The
// model is told the shape (a system message), and asked for it through response_format where the
// server takes it (LLM_JSON_SCHEMA); the final answer is parsed and validated, one repair turn
// names what failed, and an answer still wrong is an InvalidOutputError.
import type { ValidateFunction } from 'ajv/dist/2020.js';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import {
  checkAnswer,
  describeOutputSchema,
  describeRepair,
  parseAnswer,
  type CheckedAnswer,
} from '../jobs/output-schema.js';
import { LlmError } from './llm.js';
import {
  AgentError,
  describeStop,
  runAgent,
  type AgentAnswer,
  type AgentRequest,
  type CompleteStep,
} from './loop.js';

/** LLM_JSON_SCHEMA: on/auto send response_format; auto drops it after a 400 naming it. */
export type JsonSchemaMode = 'auto' | 'on' | 'off';

/** What the answer must be: JSON of a schema's shape, or any JSON object (chat's json_object). */
export type AnswerShape =
  | { kind: 'json_schema'; name: string; schema: object; validate: ValidateFunction }
  | { kind: 'json_object' };

export class InvalidOutputError extends Error {
  override name = 'InvalidOutputError';
  constructor(readonly errors: string) {
    super(
      `the answer does not validate against the output schema, even after a repair turn:\n${errors}`,
    );
  }
}

export interface StructuredAnswer {
  answer: AgentAnswer;
  /** The parsed answer (undefined when the agent stopped and wrote the answer itself). */
  output: unknown;
  /** Whether the repair turn was needed. */
  repaired: boolean;
}

/**
 * Runs the turn for an answer of this shape. The repair turn is one more model call, without
 * tools, that sees the failed answer and the validation errors.
 */
export async function answerStructured(
  step: CompleteStep,
  request: AgentRequest,
  shape: AnswerShape,
  mode: JsonSchemaMode,
): Promise<StructuredAnswer> {
  const asking = withResponseFormat(step, shape, mode);
  const messages = withInstruction(request.messages, shape);
  const answer = await runAgent(asking, { ...request, messages });
  if (answer.stopped) return { answer, output: undefined, repaired: false };
  const first = checkShape(shape, answer.content);
  if (first.ok) return { answer, output: first.value, repaired: false };
  const { signal } = request.context;
  signal.throwIfAborted();
  // The repair turn is a model call like any other: it counts against the tenant's limit.
  const limited = request.beforeStep ? await request.beforeStep() : null;
  if (limited) {
    if (!request.answerOnStop) throw new AgentError(limited, 'tenant_limit');
    const content = describeStop(limited, request.context.changes ?? []);
    return {
      answer: { ...answer, content, stopped: 'tenant_limit' },
      output: undefined,
      repaired: false,
    };
  }
  const repair = await asking(
    {
      messages: [
        ...messages,
        { role: 'assistant', content: answer.content },
        { role: 'user', content: describeRepair(first.errors) },
      ],
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
    },
    signal,
  );
  const content = repair.choices[0]?.message?.content ?? '';
  const usage = {
    prompt_tokens: answer.usage.prompt_tokens + (repair.usage?.prompt_tokens ?? 0),
    completion_tokens: answer.usage.completion_tokens + (repair.usage?.completion_tokens ?? 0),
    total_tokens: answer.usage.total_tokens + (repair.usage?.total_tokens ?? 0),
  };
  const repaired = { ...answer, content, steps: answer.steps + 1, usage };
  const second = checkShape(shape, content);
  if (!second.ok) throw Object.assign(new InvalidOutputError(second.errors), { answer: repaired });
  return { answer: repaired, output: second.value, repaired: true };
}

/** The answer against its shape: valid JSON of the schema, or (json_object) a JSON object. */
export function checkShape(shape: AnswerShape, text: string): CheckedAnswer {
  if (shape.kind === 'json_schema') return checkAnswer(shape.validate, text);
  const parsed = parseAnswer(text);
  if (!parsed.ok) return parsed;
  const value = parsed.value;
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? parsed
    : { ok: false, errors: 'the answer is JSON but not an object' };
}

/** The conversation with the shape's instruction just before the user's last message. */
function withInstruction(
  messages: readonly ChatCompletionMessageParam[],
  shape: AnswerShape,
): ChatCompletionMessageParam[] {
  const instruction: ChatCompletionMessageParam = {
    role: 'system',
    content:
      shape.kind === 'json_schema'
        ? describeOutputSchema(shape.schema)
        : 'Your final answer must be a single JSON object. Reply with the JSON only: no prose, no code fence.',
  };
  const last = messages.at(-1);
  return last?.role === 'user'
    ? [...messages.slice(0, -1), instruction, last]
    : [...messages, instruction];
}

/**
 * Each call asks for the shape through response_format (mode on or auto). In auto mode a 400
 * that names response_format (a server without structured outputs) sends the call again
 * without it, and the rest of the turn goes without it: the instruction still asks for the shape.
 */
export function withResponseFormat(
  step: CompleteStep,
  shape: AnswerShape,
  mode: JsonSchemaMode,
): CompleteStep {
  if (mode === 'off') return step;
  const format =
    shape.kind === 'json_schema'
      ? {
          type: 'json_schema' as const,
          // strict: false: our own validation decides; OpenAI's strict subset would refuse many
          // valid 2020-12 schemas (optional properties, formats, patterns).
          json_schema: {
            name: shape.name,
            schema: shape.schema as Record<string, unknown>,
            strict: false,
          },
        }
      : { type: 'json_object' as const };
  let refused = false;
  return async (params, signal) => {
    if (refused) return step(params, signal);
    try {
      return await step({ ...params, response_format: format }, signal);
    } catch (err) {
      if (mode === 'on' || !refusesResponseFormat(err)) throw err;
      refused = true;
      return step(params, signal);
    }
  };
}

/** A 400 whose message names response_format (or json_schema): the server does not take it. */
export function refusesResponseFormat(err: unknown): boolean {
  return (
    err instanceof LlmError &&
    err.status === 400 &&
    /response_format|json_schema|json_object|structured output/i.test(err.message)
  );
}
