import { withTenant, type Pool } from '../db/pool.js';
import type { Logger } from '../log.js';
import type { AgentRunner, RunReply, RunRequest } from '../scheduler/ports.js';
import type { ErrorKind } from '../domain/vocabulary.js';
import type { BudgetLimits } from '../domain/run.js';
import { NO_SECRETS, type Redactor } from '../secrets/redact.js';
import type { SecretsVault } from '../secrets/vault.js';
import type { SkillLibrary } from '../skills/library.js';
import type { Tracing } from '../tracing/tracing.js';
import { LlmError, type Llm, type LlmErrorKind } from './llm.js';
import { AgentError, truncateText, type CompleteStep } from './loop.js';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { resolveModels } from './model-fallback.js';
import {
  answerRun,
  createRunStep,
  DEFAULT_RUN_MODEL_SETTINGS,
  type RunModelSettings,
} from './run-model.js';
import { InvalidOutputError } from './structured-answer.js';
import { deriveIdempotencyKey } from './idempotency-key.js';
import { loadRunMcpOffers, type McpToolkitDeps } from './mcp-offers.js';
import {
  createRunJournal,
  selectJobAnswerSettings,
  selectJobAgentSettings,
  selectPreviousResult,
  type JobAgentSettings,
  type JobAnswerSettings,
  type PreviousResult,
} from './run-audit.js';
import { createTenantContexts, type TenantContexts, type TenantRunContext } from './run-context.js';
import { ToolLimitError, type AgentTool } from './tool.js';
import type { ToolMetrics } from './tool-metrics.js';
import { auditTools, type ToolCallRecord } from './tools/audit.js';
import type { HttpSender } from './tools/http-request.js';
import { createTools } from './tools/index.js';
import {
  BudgetExhausted,
  meterStep,
  type MeteredStep,
  type UsageDeps,
} from '../usage/metered-step.js';
import { describeSkills, PRELOADED_SKILLS_BYTES } from './tools/skill.js';

/**
 * The tools a scheduled run has without the run's services (no database, no store): none. With
 * them (createCronRunner's deps), a run gets those the registry (tools/index.ts) offers in runs:
 * among them a cronjob tool restricted to its own job, which can never create, change or delete
 * jobs, so a job cannot multiply itself.
 */
export const SCHEDULED_RUN_TOOLS: readonly AgentTool[] = [];

/** Bytes of the previous result shown to a run that asks for it. */
export const PREVIOUS_RESULT_BYTES = 4096;
/** A tool result kept in a run's conversation: an http_request body (32 KB) and its envelope. */
const RUN_TOOL_RESULT_BYTES = 40 * 1024;

export interface CronRunnerDeps {
  pool: Pool;
  vault: SecretsVault;
  /** Absent without an object store: no skills. */
  skills?: SkillLibrary | undefined;
  /** src/outbound's sendOutbound; absent: no http_request tool. */
  sendHttp?: HttpSender | undefined;
  allowPrivateNetworks: boolean;
  toolMetrics?: ToolMetrics | undefined;
  /** The tenants' MCP servers (src/mcp); absent: no MCP tools. */
  mcp?: McpToolkitDeps | undefined;
  log?: Logger | undefined;
  /** Model fallback and structured answers (LLM_FALLBACK_TIMEOUT, LLM_JSON_SCHEMA). */
  models?: RunModelSettings | undefined;
  /** The pod's tenant contexts, shared with the scheduler's read-ahead (created if absent). */
  contexts?: TenantContexts | undefined;
  now?: () => Date;
  /** The run's model and tool calls as spans of its trace (src/tracing/); absent or off: none. */
  tracing?: Tracing | undefined;
  /** Prices and budgets: each model call is counted and checked (src/usage/); absent: neither. */
  usage?: UsageDeps | undefined;
}

/**
 * Scheduled runs: the job's prompt, with a system message that says which job this is, for which
 * tenant, and when the occurrence is in the job's time zone (so "reply with the current time" works).
 */
export function createCronRunner(llm: Llm, deps?: CronRunnerDeps): AgentRunner {
  const contexts =
    deps && (deps.contexts ?? createTenantContexts(deps.pool, deps.vault, deps.skills));
  return async (request, context) => {
    let redactor: Redactor = NO_SECRETS;
    let metered: MeteredStep<Parameters<CompleteStep>[0], ChatCompletion> | undefined;
    try {
      const prepared =
        deps && contexts
          ? await prepareRun(deps, contexts, request, llm.model, context.signal)
          : {
              messages: [],
              tools: SCHEDULED_RUN_TOOLS,
              redactor,
              outputSchema: null,
              models: [request.model ?? llm.model],
            };
      redactor = prepared.redactor;
      const messages = [
        { role: 'system' as const, content: describeOccurrence(request) },
        ...prepared.messages,
        { role: 'user' as const, content: request.prompt },
      ];
      context.report?.({
        promptSent: messages.map((message) => ({
          ...message,
          content: redactor.text(message.content),
        })),
      });
      const settings = deps?.models ?? DEFAULT_RUN_MODEL_SETTINGS;
      // Each model's request, a fallback's included, is counted and checked against the
      // budgets at the price of the model it goes to.
      const usage = deps?.usage;
      const step = createRunStep(
        llm,
        context,
        prepared.models,
        request.tenantId,
        settings,
        usage &&
          ((ask) => {
            metered = meterStep<Parameters<CompleteStep>[0], ChatCompletion>(
              ask,
              withClaimedLimits(usage, request.agent?.limits),
              { tenantId: request.tenantId, jobId: request.jobId },
            );
            return metered.step;
          }),
      );
      const answer = await answerRun(
        step,
        {
          messages,
          tools: prepared.tools,
          context: { tenantId: request.tenantId, signal: context.signal },
          limits: { maxToolResultBytes: RUN_TOOL_RESULT_BYTES },
          model: prepared.models[0],
          trace: deps?.tracing?.runs.scopeOf(request.runId, runAttributes(request), (text) =>
            redactor.text(text),
          ),
        },
        prepared.outputSchema,
        request.jobId,
        settings,
      );
      context.report?.({
        calls: metered?.calls ?? [],
        usage: {
          promptTokens: answer.usage.prompt_tokens,
          completionTokens: answer.usage.completion_tokens,
        },
      });
      if (answer.output === undefined) return { ok: true, text: redactor.text(answer.content) };
      // A secret in the structured answer is redacted in its JSON text, which is then read back.
      const text = redactor.text(answer.content);
      return {
        ok: true,
        text,
        output: text === answer.content ? answer.output : parseOrNull(text),
      };
    } catch (err) {
      if (metered) context.report?.({ calls: metered.calls });
      if (err instanceof BudgetExhausted) {
        context.report?.({ budgetResetsAt: err.resetsAt?.toISOString() ?? null });
      }
      const failure = describeFailure(err);
      return failure.ok ? failure : { ...failure, error: redactor.text(failure.error) };
    }
  };
}

function runAttributes(request: RunRequest) {
  return { 'hermesx.tenant.id': request.tenantId, 'hermesx.job.id': request.jobId };
}

interface PreparedRun {
  messages: { role: 'system'; content: string }[];
  tools: readonly AgentTool[];
  redactor: Redactor;
  /** The job's output schema (null: free text). */
  outputSchema: Record<string, unknown> | null;
  /** The models of each call, primary first. */
  models: string[];
}

/**
 * The budgets the claim read, when it read them: a scheduled run then waits for no read of the
 * tenant's limits before its first model request (one read per tenant every few seconds, on the
 * shared pool, which a run of every tenant waited for).
 */
function withClaimedLimits(usage: UsageDeps, limits: BudgetLimits | undefined): UsageDeps {
  if (!limits) return usage;
  const claimed = Promise.resolve(limits);
  return { ...usage, limits: () => claimed };
}

/** What the run may use and know: its tools, its skills, the previous result; all redacted. */
async function prepareRun(
  deps: CronRunnerDeps,
  contexts: TenantContexts,
  request: RunRequest,
  defaultModel: string,
  signal: AbortSignal,
): Promise<PreparedRun> {
  const { pool, vault } = deps;
  const { tenantId, jobId } = request;
  const { tenant, job } = await readRunContext(pool, contexts, request);
  const { redactor } = tenant;
  const listed = tenant.skills;
  const now = deps.now ?? (() => new Date());
  // A tenant without MCP servers (known from its context) costs its runs no read about them.
  const mcp =
    deps.mcp && tenant.hasMcpServers
      ? await loadRunMcpOffers(deps.mcp, pool, {
          tenantId,
          jobId,
          version: tenant.version,
          allowedHosts: tenant.httpAllowedHosts,
          signal,
        })
      : undefined;
  const tools = createTools({
    place: 'run',
    tenantId,
    redactor,
    vault,
    now,
    sendHttp: deps.sendHttp,
    allowPrivateNetworks: deps.allowPrivateNetworks,
    httpAllowedHosts: tenant.httpAllowedHosts,
    skills: deps.skills,
    listedSkills: listed,
    jobs: { pool, now },
    job: { id: jobId, timezone: request.timezone, scheduledAt: request.scheduledAt },
    notifyAgent: job.notifyAgent,
    idempotencyKey: (position) => deriveIdempotencyKey(jobId, request.scheduledAt, position),
    mcp,
  });
  const messages: { role: 'system'; content: string }[] = [];
  if (mcp?.note) messages.push({ role: 'system', content: redactor.text(mcp.note) });
  if (deps.skills && listed.length > 0) {
    messages.push({ role: 'system', content: redactor.text(describeSkills(listed)) });
    const preloaded = await preloadSkills(deps.skills, tenantId, job.skills, redactor);
    if (preloaded) messages.push({ role: 'system', content: redactor.text(preloaded) });
  }
  if (job.previous) {
    const text = truncateText(redactor.text(job.previous.result), PREVIOUS_RESULT_BYTES);
    messages.push({
      role: 'system',
      content: redactor.text(
        `The previous successful run of this job (the occurrence of ${job.previous.scheduledAt.toISOString()}) answered:\n${text}`,
      ),
    });
  }
  // The scheduler names the run it claimed; a runner called without one has nothing to audit under.
  const journal = request.runId
    ? createRunJournal(pool, tenantId, request.runId)
    : {
        record: async (call: ToolCallRecord) =>
          deps.log?.warn(
            { job_id: jobId, tool: call.tool },
            'tool call of an unnamed run: not audited',
          ),
      };
  return {
    messages,
    tools: auditTools(tools, { redactor, ...journal, metrics: deps.toolMetrics }),
    redactor,
    outputSchema: job.outputSchema,
    models: resolveModels(job.models, request.model, tenant.defaultModels, defaultModel),
  };
}

/**
 * The tenant's context and the job's agent settings. A claim carries the job's and names the
 * tenant's version: then only a job shown its previous result reads (that result). Otherwise
 * (an adopted or queued run) one tenant transaction reads all of it.
 */
async function readRunContext(
  pool: Pool,
  contexts: TenantContexts,
  request: RunRequest,
): Promise<{ tenant: TenantRunContext; job: RunJobSettings }> {
  const { tenantId, jobId, scheduledAt, agent } = request;
  if (agent) {
    const tenant = await contexts.get(tenantId, agent.tenantVersion);
    const claimed = agent.answer;
    // What the claim did not carry is read in one short tenant transaction; a scheduled run of a
    // job that is not shown its previous result reads nothing.
    const read =
      claimed && !agent.previousResult
        ? { answer: claimed, previous: null }
        : await withTenant(pool, tenantId, async (client) => ({
            answer: claimed ?? (await selectJobAnswerSettings(client, jobId)),
            previous: agent.previousResult
              ? await selectPreviousResult(client, jobId, scheduledAt)
              : null,
          }));
    return {
      tenant,
      job: {
        skills: [...agent.skills],
        previousResult: agent.previousResult,
        previous: read.previous,
        ...read.answer,
      },
    };
  }
  return withTenant(pool, tenantId, async (client) => {
    const found = await selectJobAgentSettings(client, jobId);
    const answer = await selectJobAnswerSettings(client, jobId);
    const previous = found.previousResult
      ? await selectPreviousResult(client, jobId, scheduledAt)
      : null;
    return {
      tenant: await contexts.load(client, tenantId),
      job: { ...found, ...answer, previous },
    };
  });
}

/** The job's preloaded skills, as one message, bounded; a missing skill is named, not fatal. */
async function preloadSkills(
  skills: SkillLibrary,
  tenantId: string,
  names: readonly string[],
  redactor: Redactor,
): Promise<string | null> {
  if (names.length === 0) return null;
  const parts: string[] = [];
  let room = PRELOADED_SKILLS_BYTES;
  for (const name of names) {
    const found = await skills.get(tenantId, name);
    const text = found
      ? `## Skill ${name}\n${found.content}`
      : `## Skill ${name}\n(no such skill: it was deleted or renamed)`;
    const cut = truncateText(redactor.text(text), Math.max(0, room));
    room -= Buffer.byteLength(cut);
    parts.push(cut);
    if (room <= 0) break;
  }
  return `This job preloads these skills; follow them:\n\n${parts.join('\n\n')}`;
}

type RunJobSettings = JobAgentSettings & JobAnswerSettings & { previous: PreviousResult };

/** A redacted structured answer read back (null if redaction broke its JSON). */
function parseOrNull(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

const KIND_OF: Record<LlmErrorKind, ErrorKind> = {
  throttled: 'model_throttled',
  upstream: 'model_error',
  unreachable: 'model_unreachable',
  timeout: 'timeout',
  bad_response: 'bad_response',
};

function describeFailure(err: unknown): RunReply {
  const error = err instanceof Error ? err.message : String(err);
  const kind: ErrorKind =
    err instanceof BudgetExhausted
      ? 'budget_exhausted'
      : err instanceof LlmError
        ? KIND_OF[err.kind]
        : err instanceof InvalidOutputError
          ? 'invalid_output'
          : err instanceof ToolLimitError || err instanceof AgentError
            ? 'tool_limit'
            : 'agent_error';
  return { ok: false, errorKind: kind, error };
}

export function describeOccurrence(request: RunRequest): string {
  return [
    `You are HermesX, running the scheduled job "${request.name}" (id ${request.jobId}) for tenant ${request.tenantId}.`,
    `This run is the occurrence scheduled for ${formatInZone(request.scheduledAt, request.timezone)} (${request.timezone}), which is ${request.scheduledAt.toISOString()} UTC.`,
    'Treat that as the current time. Do what the job asks and reply with the result only.',
  ].join('\n');
}
/** "2026-11-30 09:15:00 GMT+1"-style wall time in the given zone. */
// Building an Intl.DateTimeFormat costs more than the rest of a run's preparation: one per zone.
// Runs of a burst share their instant, so each zone also keeps its last answer.
const zoneFormats = new Map<string, { format: Intl.DateTimeFormat; ms: number; text: string }>();

export function formatInZone(instant: Date, timeZone: string): string {
  let zone = zoneFormats.get(timeZone);
  if (!zone) {
    const format = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'short',
    });
    zone = { format, ms: NaN, text: '' };
    zoneFormats.set(timeZone, zone);
  }
  const ms = instant.getTime();
  if (zone.ms !== ms) {
    const parts = zone.format.formatToParts(instant);
    const get = (type: string) => parts.find((part) => part.type === type)?.value ?? '';
    zone.text = `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')}:${get('second')} ${get('timeZoneName')}`;
    zone.ms = ms;
  }
  return zone.text;
}
