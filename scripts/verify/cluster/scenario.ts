// What the fake model answers, the jobs the verification uses, and the counting both checks share.
import { randomUUID } from 'node:crypto';
import {
  cronCallOf,
  DEFAULT_TENANT,
  linesWithMessage,
  logField,
  runsOf,
  type Pod,
  type RunRow,
} from '../../../test/helpers/cluster.js';
import type { FakeReply } from '../../../test/helpers/fake-llm.js';
import type { Cluster } from './infra.js';
import { countFirstCall, effectReply } from './side-effects.js';

/** The guide's chat request (model name and message as written there). */
export const CHAT_REQUEST = {
  model: 'qwen3:30b',
  messages: [
    { role: 'user', content: 'Create a cron job that reports the current time every minute' },
  ],
};

/** What the scripted model asks the cronjob tool for: per-second-ish, so the check is quick. */
export const CHAT_JOB = {
  name: 'report the current time',
  schedule: '*/2 * * * * *',
  prompt: 'Report the current time.',
};

/** Added straight into cron_jobs (only the columns the design says suffice). */
export const DIRECT_JOBS = [1, 2, 3].map((i) => ({
  name: `per-second report ${i}`,
  schedule: '* * * * * *',
  prompt: `Report the current time (${i}).`,
}));

export const SLOW_JOB = {
  name: 'slow report',
  schedule: '* * * * * *',
  prompt: 'Report the current time, slowly.',
};
export const SLOW_CALL_MS = 20_000;

/** Mutable scenario state read by the model handler. */
export const scenario = {
  slowJobId: undefined as string | undefined,
  /** The job whose runs POST through http_request (side-effects.ts), and where to. */
  effectJobId: undefined as string | undefined,
  effectUrl: '',
  slowCallsLeft: 1,
  toolResults: [] as string[],
};

interface ChatBody {
  messages?: { role?: string; content?: unknown }[];
  tools?: { function?: { name?: string } }[];
}

/**
 * The fake model: a chat turn with the cronjob tool gets a tool call creating CHAT_JOB, then a
 * confirmation; a scheduled run gets the time it was told (the slow job's first run takes 20 s).
 */
export function modelHandler(raw: unknown): FakeReply {
  countFirstCall(raw);
  const effect = effectReply(raw);
  if (effect) return effect;
  const cron = cronCallOf(raw);
  if (cron) {
    if (cron.jobId === scenario.slowJobId && scenario.slowCallsLeft > 0) {
      scenario.slowCallsLeft -= 1;
      return { content: `It is ${cron.scheduledAt} (slowly).`, delayMs: SLOW_CALL_MS };
    }
    return { content: `It is ${cron.scheduledAt}.` };
  }
  const body = (raw ?? {}) as ChatBody;
  const hasCronTool = body.tools?.some((tool) => tool.function?.name === 'cronjob') ?? false;
  if (!hasCronTool) return { content: 'ok' };
  const toolMessage = body.messages?.find((message) => message.role === 'tool');
  if (!toolMessage) {
    const args = { action: 'create', ...CHAT_JOB };
    return { toolCalls: [{ name: 'cronjob', arguments: JSON.stringify(args) }] };
  }
  scenario.toolResults.push(String(toolMessage.content));
  return { content: `Created "${CHAT_JOB.name}" (${CHAT_JOB.schedule}).` };
}

/** Inserts a job with a known id (so the model handler knows it before its first run). */
export async function insertJobRow(
  c: Cluster,
  job: { name: string; schedule: string; prompt: string },
  id: string = randomUUID(),
): Promise<string> {
  await c.db.query(
    'INSERT INTO cron_jobs (id, tenant_id, name, schedule, prompt) VALUES ($1, $2, $3, $4, $5)',
    [id, DEFAULT_TENANT, job.name, job.schedule, job.prompt],
  );
  return id;
}

export const occurrenceKey = (jobId: string, scheduledAt: Date | string) =>
  `${jobId}|${typeof scheduledAt === 'string' ? scheduledAt : scheduledAt.toISOString()}`;

/**
 * Runs started at the model per "jobId|scheduledAt": the first model request of a run (the
 * requests after a tool result are the same run going on, not another).
 */
export function callsByOccurrence(c: Cluster): Map<string, number> {
  const counts = new Map<string, number>();
  for (const call of c.llm.calls) {
    const info = cronCallOf(call.body);
    if (!info || afterToolResult(call.body)) continue;
    const key = occurrenceKey(info.jobId, info.scheduledAt);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

function afterToolResult(body: unknown): boolean {
  const messages = (body as { messages?: { role?: string }[] } | undefined)?.messages ?? [];
  return messages.some((message) => message.role === 'tool');
}

/** `cron job executed` lines of a pod, optionally only for occurrences up to a time, of some jobs. */
export function executedLines(pod: Pod, upToMs = Infinity, jobIds?: readonly string[]): string[] {
  return linesWithMessage(pod, 'cron job executed').filter(
    (line) =>
      Date.parse(logField(line, 'scheduled_at') ?? '') <= upToMs &&
      (jobIds === undefined || jobIds.includes(logField(line, 'job_id') ?? '')),
  );
}

export async function allRuns(c: Cluster): Promise<RunRow[]> {
  const { rows } = await c.db.query<{ id: string }>('SELECT id FROM cron_jobs');
  return runsOf(
    c.db,
    rows.map((row) => row.id),
  );
}

/**
 * Checks that every run has exactly one model call (at most one for runs failed because their
 * pod died, which may die before calling), and that no call lacks a run. Returns a summary.
 */
export function modelCallsPerRun(
  c: Cluster,
  runs: RunRow[],
  crashError: string,
  upToMs = Infinity,
) {
  const calls = callsByOccurrence(c);
  const keys = new Set(runs.map((run) => occurrenceKey(run.cron_job_id, run.scheduled_at)));
  const bad: string[] = [];
  let max = 0;
  for (const run of runs) {
    const key = occurrenceKey(run.cron_job_id, run.scheduled_at);
    const count = calls.get(key) ?? 0;
    max = Math.max(max, count);
    const crashed = run.status === 'failed' && run.error === crashError;
    if (count !== 1 && !(crashed && count === 0)) bad.push(`${key}: ${count} calls`);
  }
  const jobIds = new Set(runs.map((run) => run.cron_job_id));
  const orphanCalls = [...calls.keys()].filter((key) => {
    const [jobId = '', at = ''] = key.split('|');
    return jobIds.has(jobId) && Date.parse(at) <= upToMs && !keys.has(key);
  });
  return { bad, max, orphanCalls, total: runs.length };
}

export function periodMsOf(schedule: string): number {
  return schedule.startsWith('*/2 ') ? 2000 : 1000;
}

/** Whole seconds since the epoch. */
export function floorSecond(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}
