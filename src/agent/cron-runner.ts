import type {
  AgentRunner,
  ErrorKind,
  RunContext,
  RunReply,
  RunRequest,
} from '../scheduler/ports.js';
import { LlmError, type Llm, type LlmErrorKind } from './llm.js';
import { runAgent } from './loop.js';
import type { AgentTool } from './tool.js';

/**
 * The tools a scheduled run may use. The cronjob tool is deliberately absent: a scheduled prompt
 * must not create, change or delete jobs (a job could otherwise multiply itself).
 */
export const SCHEDULED_RUN_TOOLS: readonly AgentTool[] = [];

/**
 * Scheduled runs: the job's prompt, with a system message that says which job this is, for which
 * tenant, and when the occurrence is in the job's time zone (so "reply with the current time" works).
 */
export function createCronRunner(llm: Llm): AgentRunner {
  return async (request, context) => {
    try {
      const messages = [
        { role: 'system' as const, content: describeOccurrence(request) },
        { role: 'user' as const, content: request.prompt },
      ];
      context.report?.({ promptSent: messages });
      const answer = await runAgent(withRunContext(llm, context, request.model), {
        messages,
        tools: SCHEDULED_RUN_TOOLS,
        context: { tenantId: request.tenantId, signal: context.signal },
      });
      context.report?.({
        usage: {
          promptTokens: answer.usage.prompt_tokens,
          completionTokens: answer.usage.completion_tokens,
        },
      });
      return { ok: true, text: answer.content };
    } catch (err) {
      return describeFailure(err);
    }
  };
}

/**
 * Every model request of the run goes through the scheduler's beforeSend, within its deadline,
 * to the job's model when it names one; its retries and the model that answered are reported
 * for the run detail.
 */
function withRunContext(llm: Llm, context: RunContext, model: string | undefined): Llm {
  const options = {
    beforeSend: context.beforeSend,
    deadlineMs: context.deadlineMs,
    onRetry: context.onRetry,
  };
  return {
    model: model ?? llm.model,
    complete: async (params, signal) => {
      const asked = model === undefined ? params : { ...params, model };
      const completion = await llm.complete(asked, signal, options);
      if (typeof completion.model === 'string' && completion.model !== '') {
        context.report?.({ model: completion.model.slice(0, 200) });
      }
      return completion;
    },
  };
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
  return {
    ok: false,
    errorKind: err instanceof LlmError ? KIND_OF[err.kind] : 'agent_error',
    error,
  };
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
