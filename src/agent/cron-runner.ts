import type { AgentRunner, RunRequest } from '../scheduler/ports.js';
import type { Llm } from './llm.js';
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
  return async (request, signal) => {
    const answer = await runAgent(llm, {
      messages: [
        { role: 'system', content: describeOccurrence(request) },
        { role: 'user', content: request.prompt },
      ],
      tools: SCHEDULED_RUN_TOOLS,
      context: { tenantId: request.tenantId, signal },
    });
    return answer.content;
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
