import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type {
  ChatCompletion as ModelCompletion,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { z } from 'zod';
import { LlmError, type Llm } from '../../agent/llm.js';
import { MAX_MODEL_NAME_CHARS, type StreamingLlm } from '../../agent/llm-stream.js';
import type { ChatToolkit } from '../../agent/chat-tools.js';
import { createChatStep, createChatStreamStep } from '../../agent/chat-model.js';
import { resolveModels } from '../../agent/model-fallback.js';
import type { RunModelSettings } from '../../agent/run-model.js';
import { answerStructured, InvalidOutputError } from '../../agent/structured-answer.js';
import type { ToolAccess } from '../../agent/tool.js';
import { toolAccessOf } from '../audit-hook.js';
import {
  describeStop,
  runAgent,
  truncateText,
  type AgentAnswer,
  type CompleteStep,
} from '../../agent/loop.js';
import type { TriggerDeps } from '../../jobs/commands.js';
import { tenantOf } from '../auth.js';
import { checkChatParameters } from '../chat-parameters.js';
import { ResponseFormat, shapeOf } from '../chat-response-format.js';
import { ChatCompletion, ChatCompletionStream, Model, ModelList } from '../chat-schemas.js';
import { ChatStream } from '../chat-stream.js';
import type { ChatTurnLimiter } from '../chat-turns.js';
import { ApiError, ClientDisconnected } from '../errors.js';
import { claimIdempotencyKey, type StoredAnswer } from '../idempotency.js';
import type { RateLimiter } from '../rate-limit.js';
import { startChatTurn } from '../../tracing/chat-turn.js';
import type { Tracing } from '../../tracing/tracing.js';
import { AUTHENTICATED, BEARER, WITH_BODY, WITH_ID, errorResponses } from '../responses.js';
import { recordChatUsage } from '../../usage/ledger.js';
import {
  BudgetExhausted,
  meterStep,
  type MeteredStep,
  type UsageDeps,
} from '../../usage/metered-step.js';

const Part = z.object({ type: z.string(), text: z.string().optional() });
const Message = z.object({
  role: z.enum(['system', 'user', 'assistant', 'tool', 'developer']),
  content: z.union([z.string(), z.array(Part), z.null()]).optional(),
  name: z.string().optional(),
  tool_calls: z.array(z.any()).optional(),
  tool_call_id: z.string().optional(),
});

// Parameters the agent cannot honour are refused with a 400 before validation
// (chat-parameters.ts); harmless ones (top_p, user, ...) are accepted and ignored.
const ChatBody = z.object({
  model: z.string().max(200).optional(),
  messages: z.array(Message).min(1).max(500),
  stream: z.boolean().optional(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullish(),
  temperature: z.number().min(0).max(2).optional(),
  max_tokens: z.number().int().min(1).nullish(),
  max_completion_tokens: z.number().int().min(1).nullish(),
  response_format: ResponseFormat,
});
type ChatBody = z.infer<typeof ChatBody>;

// A tenant at its limit of turns in flight is asked to come back this much later.
const TURN_RETRY_AFTER_SECONDS = 2;

// An answer longer than this is cut before it reaches the tenant (or the idempotency store).
export const MAX_ANSWER_BYTES = 64 * 1024;

export interface ChatDeps extends TriggerDeps {
  llm: Llm;
  /** Model fallback and structured answers (LLM_FALLBACK_TIMEOUT, LLM_JSON_SCHEMA). */
  modelSettings: RunModelSettings;
  /** The tenants' requests-per-minute counter (shared with the auth hook). */
  rateLimiter: RateLimiter;
  streamingLlm: StreamingLlm;
  /** Ceiling of max_tokens / max_completion_tokens (CHAT_MAX_TOKENS). */
  maxTokens: number;
  /** Interval of the SSE keep-alive comment (CHAT_STREAM_HEARTBEAT). */
  heartbeatMs: number;
  /** The tenant's tools for a turn (src/agent/chat-tools.ts). */
  tools: (tenantId: string, access: ToolAccess) => Promise<ChatToolkit>;
  /** Turns in flight per tenant, across replicas. */
  turns: ChatTurnLimiter;
  maxTurnsPerTenant: number;
  /** A turn's deadline (CHAT_TURN_TIMEOUT). */
  turnTimeoutMs: number;
  /** The pending lease of an Idempotency-Key (default 10 min; tests shorten it). */
  idempotencyLeaseMs?: number | undefined;
  /** Each turn a `chat.turn` trace (src/tracing/); absent or off: none. */
  tracing?: Tracing | undefined;
  /** Each model call counted in the usage ledger and checked against the tenant's budgets. */
  usage?: UsageDeps | undefined;
}

/** OpenAI-compatible chat whose agent manages the caller's cron jobs with the cronjob tool. */
export function registerChatRoutes(app: FastifyInstance, deps: ChatDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['agent'];
  const security = BEARER;
  const modelEntry = () => ({
    id: deps.llm.model,
    object: 'model',
    created: 0,
    owned_by: 'hermesx',
  });

  r.get(
    '/v1/models',
    {
      config: { access: 'tenant', scope: 'chat' } as const,
      schema: {
        tags,
        security,
        summary: 'The model the agent uses',
        description: 'OpenAI-compatible: one entry, the configured LLM_MODEL.',
        operationId: 'listModels',
        response: { 200: ModelList, ...errorResponses(...AUTHENTICATED) },
      },
    },
    async () => ({ object: 'list', data: [modelEntry()] }),
  );

  r.get(
    '/v1/models/:id',
    {
      config: { access: 'tenant', scope: 'chat' } as const,
      schema: {
        tags,
        security,
        summary: 'One model (only the one the agent uses exists)',
        description: 'OpenAI-compatible; 404 for any other id.',
        operationId: 'getModel',
        params: z.object({ id: z.string().max(200) }),
        response: { 200: Model, ...errorResponses(...AUTHENTICATED, ...WITH_ID) },
      },
    },
    async (request) => {
      if (request.params.id !== deps.llm.model) {
        throw new ApiError(404, 'model_not_found', `no model ${request.params.id}`);
      }
      return modelEntry();
    },
  );

  r.post(
    '/v1/chat/completions',
    {
      config: { access: 'tenant', scope: 'chat', audit: false } as const,
      preValidation: async (request) => checkChatParameters(request.body, deps.maxTokens),
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
          ...errorResponses(...AUTHENTICATED, ...WITH_BODY, 409, 502, 504),
        },
      },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const body = request.body;
      // Before the key is claimed: a failure here leaves nothing to release.
      const toolkit = await deps.tools(tenantId, toolAccessOf(request, deps.pool));
      const system = [systemPrompt(deps.now()), toolkit.system].filter(Boolean).join('\n\n');
      const claim = await claimIdempotencyKey(
        deps.pool,
        request,
        tenantId,
        'chat.completions',
        deps.idempotencyLeaseMs,
      );
      if (claim.kind === 'replay') return replay(reply, claim.answer, body, deps.heartbeatMs);
      // The lease outlives the deadline a little, so a replica that dies frees the slot by itself.
      const leaseMs = deps.turnTimeoutMs + 60_000;
      const releaseTurn = await deps.turns.acquire(tenantId, deps.maxTurnsPerTenant, leaseMs);
      if (!releaseTurn) {
        if (claim.kind === 'first') await claim.release().catch(() => undefined);
        void reply.header('retry-after', TURN_RETRY_AFTER_SECONDS);
        throw new ApiError(
          429,
          'too_many_turns',
          `this tenant may have ${deps.maxTurnsPerTenant} chat turns in flight at once; retry in ${TURN_RETRY_AFTER_SECONDS}s`,
        );
      }
      const controller = new AbortController();
      const deadline = setTimeout(
        () =>
          controller.abort(
            new LlmError('the turn took longer than its deadline (CHAT_TURN_TIMEOUT)', 'timeout'),
          ),
        deps.turnTimeoutMs,
      );
      // The client going away cancels the model call and the tool calls still to come.
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) controller.abort(new ClientDisconnected());
      });
      const base = {
        id: `chatcmpl-${randomBytes(12).toString('hex')}`,
        created: Math.floor(Date.now() / 1000),
        // The model that answers, never the client's string (echoed into every chunk, it made a
        // 200-character name cost 200 bytes per delta): the configured name until the model
        // server names the one it used (an alias resolved, a dated snapshot).
        model: deps.llm.model,
      };
      const noteServedModel = (completion: ModelCompletion) => {
        if (isModelName(completion.model)) base.model = completion.model;
        return completion;
      };
      const stream = body.stream
        ? new ChatStream(reply, base, {
            heartbeatMs: deps.heartbeatMs,
            maxContentBytes: MAX_ANSWER_BYTES,
          })
        : undefined;
      const turnTrace = startChatTurn(
        deps.tracing,
        { tenantId, stream: body.stream === true, model: deps.llm.model, requestId: request.id },
        (text) => toolkit.redactor.text(text),
      );
      try {
        return await answerTurn();
      } finally {
        turnTrace?.end('failed');
        // Whatever happened, no timer outlives the request: the stream's heartbeat and merge
        // timers, the key's lease renewal.
        stream?.cancel();
        if (claim.kind === 'first') claim.stop();
        clearTimeout(deadline);
        await releaseTurn();
      }

      async function answerTurn() {
        const changes: string[] = [];
        let answer: AgentAnswer;
        // A structured answer is held back until it validates, then sent whole.
        const shape = shapeOf(body.response_format);
        // Each model's request, a fallback's included, is counted and checked against the
        // tenant's budgets at the price of the model it goes to.
        let metered: MeteredStep<Parameters<CompleteStep>[0], ModelCompletion> | undefined;
        const usage = deps.usage;
        const call = {
          models: resolveModels(null, null, toolkit.defaultModels, deps.llm.model),
          tenantId,
          settings: deps.modelSettings,
          onAnswer: noteServedModel,
          wrap:
            usage &&
            ((ask: CompleteStep) => {
              metered = meterStep(ask, usage, { tenantId, jobId: null });
              return metered.step;
            }),
        };
        // Each model call waits for a connection in this tenant's turn (model-gate.ts).
        const step: CompleteStep = stream
          ? createChatStreamStep(deps.streamingLlm, call, (text, model) => {
              // Before the delta: the chunk carrying it names the served model.
              if (isModelName(model)) base.model = model;
              if (!shape) stream.delta(text);
            })
          : createChatStep(deps.llm, call);
        try {
          const turn = {
            messages: [{ role: 'system' as const, content: system }, ...toMessages(body)],
            tools: toolkit.tools,
            context: { tenantId, signal: controller.signal, changes },
            temperature: body.temperature,
            maxTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
            beforeStep: () => chargeModelCall(deps.rateLimiter, tenantId, request),
            answerOnStop: true,
            trace: turnTrace?.scope,
            model: call.models[0],
          };
          answer = shape
            ? (await answerStructured(step, turn, shape, deps.modelSettings.jsonSchema)).answer
            : await runAgent(step, turn);
        } catch (err) {
          turnTrace?.end('failed', err instanceof LlmError ? err.kind : 'error');
          await recordTurnUsage(deps, tenantId, metered?.calls, request);
          if (claim.kind === 'first') {
            // A turn cut short after a change keeps its key, so a retry does not repeat the change.
            const kept = changes.length > 0 ? interruptedAnswer(base, changes) : undefined;
            await (kept ? claim.complete({ status: 200, body: kept }) : claim.release()).catch(
              () => undefined,
            );
          }
          const failure =
            err instanceof LlmError
              ? toApiError(err, request)
              : err instanceof InvalidOutputError
                ? invalidOutput(err, changes)
                : err instanceof BudgetExhausted
                  ? toBudgetError(err, reply, deps.now())
                  : undefined;
          if (!stream?.opened) {
            stream?.cancel();
            throw failure ?? err;
          }
          if (failure) stream.fail(failure.code, failure.message);
          else if (err instanceof ClientDisconnected) stream.cancel();
          else {
            request.log.error({ error: String(err), request_id: request.id }, 'chat: turn failed');
            stream.fail('internal', `internal error (request id ${request.id})`);
          }
          return reply;
        }
        turnTrace?.end(answer.stopped ? 'stopped' : 'answered', answer.stopped);
        await recordTurnUsage(deps, tenantId, metered?.calls, request);
        if (answer.failure)
          logModelFailure(request, answer.failure, 'after the turn changed state');
        const content = truncateText(toolkit.redactor.text(answer.content), MAX_ANSWER_BYTES);
        const completion = toCompletion(base, content, answer.usage);
        if (claim.kind === 'first') {
          // The turn is done (and may have changed state): its answer goes out even if storing
          // it fails; the key then stays pending until its lease runs out.
          await claim
            .complete({ status: 200, body: completion })
            .catch((err: unknown) =>
              request.log.error(
                { error: String(err), request_id: request.id },
                'chat: cannot store the answer for its Idempotency-Key',
              ),
            );
        }
        if (answer.stopped) void reply.header('x-hermesx-agent-stopped', answer.stopped);
        if (!stream) return completion;
        // A model-written answer was streamed as it came; one the agent wrote was not.
        const includeUsage = body.stream_options?.include_usage === true;
        stream.finish(
          answer.stopped || shape ? content : undefined,
          includeUsage ? answer.usage : undefined,
        );
        return reply;
      }
    },
  );
}

/**
 * Each model call after a turn's first counts against the tenant's requests per minute, as a
 * request would: a turn of eight model calls costs eight requests.
 */
async function chargeModelCall(
  limiter: RateLimiter,
  tenantId: string,
  request: FastifyRequest,
): Promise<string | null> {
  const rpm = request.tenantRateLimitRpm;
  if (rpm === undefined) return null;
  const decision = await limiter.hit(`tenant:${tenantId}`, rpm);
  return decision.allowed
    ? null
    : `this tenant's limit of ${rpm} requests per minute was reached (each model call counts); retry in ${decision.retryAfterSeconds}s`;
}

/** A turn's model calls into the usage ledger; a failure to write is logged, not the turn's. */
async function recordTurnUsage(
  deps: ChatDeps,
  tenantId: string,
  calls: Parameters<typeof recordChatUsage>[2] | undefined,
  request: FastifyRequest,
): Promise<void> {
  if (!calls || calls.length === 0) return;
  await recordChatUsage(deps.pool, tenantId, calls).catch((err: unknown) =>
    request.log.error(
      { error: String(err), request_id: request.id, tenant_id: tenantId },
      'chat: cannot record the turn’s usage',
    ),
  );
}

/** A spent budget: 429 with the time it resets (Retry-After and the message). */
function toBudgetError(err: BudgetExhausted, reply: FastifyReply, now: Date): ApiError {
  if (err.resetsAt) {
    const seconds = Math.max(1, Math.ceil((err.resetsAt.getTime() - now.getTime()) / 1000));
    void reply.header('retry-after', seconds);
  }
  return new ApiError(429, 'budget_exhausted', err.message);
}

type Usage = AgentAnswer['usage'];

/** A model name as a model server may give it: a string of sensible length (chunks repeat it). */
function isModelName(name: unknown): name is string {
  return typeof name === 'string' && name !== '' && name.length <= MAX_MODEL_NAME_CHARS;
}

function toCompletion(
  base: { id: string; created: number; model: string },
  content: string,
  usage: Usage,
) {
  return {
    ...base,
    object: 'chat.completion',
    choices: [
      { index: 0, message: { role: 'assistant', content }, finish_reason: 'stop', logprobs: null },
    ],
    usage,
  };
}

function interruptedAnswer(
  base: { id: string; created: number; model: string },
  changes: string[],
) {
  const content = describeStop('the request was interrupted', changes);
  return toCompletion(base, content, { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
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

/** The stored answer of an earlier request with the same Idempotency-Key, in the asked form. */
function replay(reply: FastifyReply, answer: StoredAnswer, body: ChatBody, heartbeatMs: number) {
  void reply.header('idempotent-replayed', 'true');
  const completion = answer.body as {
    id: string;
    created: number;
    model: string;
    choices: { message: { content: string } }[];
    usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  };
  if (!body.stream) return reply.code(answer.status).send(completion);
  const stream = new ChatStream(reply, completion, {
    heartbeatMs,
    maxContentBytes: MAX_ANSWER_BYTES,
  });
  const includeUsage = body.stream_options?.include_usage === true;
  stream.finish(
    completion.choices[0]?.message.content ?? '',
    includeUsage ? completion.usage : undefined,
  );
  return reply;
}

/**
 * What a tenant sees of a failure: a generic message with the request id. The model server's own
 * words (which may quote its configuration) go to the log only.
 */
function toApiError(err: LlmError, request: FastifyRequest): ApiError {
  logModelFailure(request, err, 'before the turn changed anything');
  const timeout = err.kind === 'timeout';
  return new ApiError(
    timeout ? 504 : 502,
    timeout ? 'llm_timeout' : 'llm_unavailable',
    `${timeout ? 'the model server did not answer in time' : 'the model server failed'}; nothing was changed, so retrying is safe (request id ${request.id})`,
  );
}

/** A structured answer that still did not validate: 422, the errors named (a retry may pass). */
function invalidOutput(err: InvalidOutputError, changes: readonly string[]): ApiError {
  const done = changes.length > 0 ? ` ${describeStop('the answer was invalid', changes)}` : '';
  return new ApiError(
    422,
    'invalid_output',
    `the model's answer does not match response_format, even after a repair turn: ${err.errors}${done}`,
  );
}

function logModelFailure(request: FastifyRequest, err: LlmError, when: string): void {
  request.log.warn(
    { request_id: request.id, kind: err.kind, error: err.message, when },
    'chat: model call failed',
  );
}
