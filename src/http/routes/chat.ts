import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { z } from 'zod';
import { LlmError, type Llm } from '../../agent/llm.js';
import { AgentError, runAgent, type AgentAnswer } from '../../agent/loop.js';
import { createCronjobTool } from '../../agent/tools/cronjob.js';
import type { CommandDeps } from '../../jobs/commands.js';
import { tenantOf } from '../auth.js';
import { ChatCompletion, ChatCompletionStream, ModelList } from '../chat-schemas.js';
import { ApiError } from '../errors.js';
import { AUTHENTICATED, BEARER, WITH_BODY, errorResponses } from '../responses.js';

const Part = z.object({ type: z.string(), text: z.string().optional() });
const Message = z.object({
  role: z.enum(['system', 'user', 'assistant', 'tool', 'developer']),
  content: z.union([z.string(), z.array(Part), z.null()]).optional(),
  name: z.string().optional(),
  tool_calls: z.array(z.any()).optional(),
  tool_call_id: z.string().optional(),
});

// OpenAI clients send more fields than these (top_p, user, ...): they are accepted and ignored.
const ChatBody = z.object({
  model: z.string().max(200).optional(),
  messages: z.array(Message).min(1).max(500),
  stream: z.boolean().optional(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullish(),
  temperature: z.number().min(0).max(2).optional(),
  max_tokens: z.number().int().min(1).optional(),
});
type ChatBody = z.infer<typeof ChatBody>;

export interface ChatDeps extends CommandDeps {
  llm: Llm;
}

/** OpenAI-compatible chat whose agent manages the caller's cron jobs with the cronjob tool. */
export function registerChatRoutes(app: FastifyInstance, deps: ChatDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const cronjob = createCronjobTool(deps);
  const tags = ['agent'];
  const security = BEARER;

  r.get(
    '/v1/models',
    {
      config: { access: 'tenant' },
      schema: {
        tags,
        security,
        summary: 'The model the agent uses',
        description: 'OpenAI-compatible: one entry, the configured LLM_MODEL.',
        operationId: 'listModels',
        response: { 200: ModelList, ...errorResponses(...AUTHENTICATED) },
      },
    },
    async () => ({
      object: 'list',
      data: [{ id: deps.llm.model, object: 'model', created: 0, owned_by: 'hermesx' }],
    }),
  );

  r.post(
    '/v1/chat/completions',
    {
      config: { access: 'tenant' },
      schema: {
        tags,
        security,
        summary: 'Chat with the agent (OpenAI-compatible, stream or not)',
        description:
          'The agent may create, change or list the tenant’s cron jobs with its cronjob tool before it answers.',
        operationId: 'createChatCompletion',
        body: ChatBody,
        response: {
          200: {
            description: 'The answer: JSON, or server-sent events when `stream` is true',
            content: {
              'application/json': { schema: ChatCompletion },
              'text/event-stream': { schema: ChatCompletionStream },
            },
          },
          ...errorResponses(...AUTHENTICATED, ...WITH_BODY, 502, 504),
        },
      },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const controller = new AbortController();
      // The client going away cancels the model call instead of leaving it running.
      const onClose = () => {
        if (!reply.raw.writableFinished) controller.abort(new Error('client disconnected'));
      };
      reply.raw.once('close', onClose);
      const body = request.body;
      let answer: AgentAnswer;
      try {
        answer = await runAgent(deps.llm, {
          messages: [{ role: 'system', content: systemPrompt(deps.now()) }, ...toMessages(body)],
          tools: [cronjob],
          context: { tenantId, signal: controller.signal },
          temperature: body.temperature,
          maxTokens: body.max_tokens,
        });
      } catch (err) {
        throw toApiError(err);
      }
      const model = body.model ?? deps.llm.model;
      const id = `chatcmpl-${randomBytes(12).toString('hex')}`;
      const created = Math.floor(Date.now() / 1000);
      if (body.stream)
        return streamAnswer(reply, {
          id,
          created,
          model,
          answer,
          includeUsage: body.stream_options?.include_usage === true,
        });
      return {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: answer.content },
            finish_reason: 'stop',
            logprobs: null,
          },
        ],
        usage: answer.usage,
      };
    },
  );
}

function systemPrompt(now: Date): string {
  return [
    'You are HermesX, an assistant that manages scheduled jobs for the user with the cronjob tool.',
    `The current time is ${now.toISOString()} (UTC).`,
    'When the user asks for something to happen on a schedule, create a job with a clear name, a schedule and a prompt that says what to do at each run. Confirm what you created, with its schedule.',
  ].join('\n');
}

function toMessages(body: ChatBody): ChatCompletionMessageParam[] {
  return body.messages.map((message) => {
    const content = Array.isArray(message.content)
      ? message.content.map((part) => part.text ?? '').join('')
      : (message.content ?? '');
    switch (message.role) {
      case 'tool':
        return { role: 'tool', content, tool_call_id: message.tool_call_id ?? '' };
      case 'assistant':
        return message.tool_calls?.length
          ? { role: 'assistant', content, tool_calls: message.tool_calls }
          : { role: 'assistant', content };
      case 'developer':
      case 'system':
        return { role: 'system', content };
      default:
        return { role: 'user', content };
    }
  });
}

function streamAnswer(
  reply: FastifyReply,
  chunk: { id: string; created: number; model: string; answer: AgentAnswer; includeUsage: boolean },
): FastifyReply {
  const base = {
    id: chunk.id,
    object: 'chat.completion.chunk',
    created: chunk.created,
    model: chunk.model,
  };
  const event = (delta: object, finish: string | null, extra: object = {}) =>
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }], ...extra })}\n\n`;
  const pieces = chunk.answer.content.match(/[\s\S]{1,48}/g) ?? [];
  let body = event({ role: 'assistant', content: '' }, null);
  for (const piece of pieces) body += event({ content: piece }, null);
  body += event({}, 'stop');
  if (chunk.includeUsage) {
    body += `data: ${JSON.stringify({ ...base, choices: [], usage: chunk.answer.usage })}\n\n`;
  }
  body += 'data: [DONE]\n\n';
  return reply
    .header('content-type', 'text/event-stream; charset=utf-8')
    .header('cache-control', 'no-cache')
    .send(body);
}

function toApiError(err: unknown): unknown {
  if (err instanceof LlmError) {
    const status = err.kind === 'timeout' ? 504 : 502;
    return new ApiError(
      status,
      err.kind === 'timeout' ? 'llm_timeout' : 'llm_unavailable',
      err.message,
    );
  }
  if (err instanceof AgentError) return new ApiError(502, 'agent_step_limit', err.message);
  return err;
}
