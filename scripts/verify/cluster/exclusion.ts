// Verification 1, the guide's "Multi-Pod Mutual Exclusion Verification" with short schedules: a job
// created by chatting through nginx plus three per-second jobs; every occurrence runs once, on
// some pod, with one model call, none missed, and each pod logs exactly the runs it recorded.
import {
  DEFAULT_TENANT,
  duplicateRuns,
  runsOf,
  type RunRow,
} from '../../../test/helpers/cluster.js';
import { jobIdsSpreadOver } from '../../../test/helpers/owned-job-id.js';
import { ADMIN_TOKEN, API_KEY, lbFetch, until, type Cluster } from './infra.js';
import type { Report } from './report.js';
import {
  CHAT_JOB,
  CHAT_REQUEST,
  DIRECT_JOBS,
  executedLines,
  floorSecond,
  insertJobRow,
  modelCallsPerRun,
  periodMsOf,
  scenario,
} from './scenario.js';

const SECTION = '1. Multi-pod mutual exclusion (guide: Multi-Pod Mutual Exclusion Verification)';
const WINDOW_MS = 16_000;
export const POD_CRASH_ERROR = 'pod crash or lock TTL exceeded';

/** Runs verification 1; returns the jobs (id → schedule), which keep running afterwards. */
export async function verifyMutualExclusion(
  c: Cluster,
  report: Report,
  say: (line: string) => void,
): Promise<Map<string, string>> {
  // The default tenant allows one run a minute at most: lower that through the admin API.
  const patch = await lbFetch(c, `/v1/tenants/${DEFAULT_TENANT}`, {
    method: 'PATCH',
    token: ADMIN_TOKEN,
    body: { min_schedule_interval_seconds: 1 },
  });
  const lowered = (patch.json as { min_schedule_interval_seconds?: number })
    ?.min_schedule_interval_seconds;
  say(`PATCH default tenant min_schedule_interval_seconds=1: HTTP ${patch.status} (${patch.pod})`);
  const chat = await lbFetch(c, '/v1/chat/completions', {
    method: 'POST',
    token: API_KEY,
    body: CHAT_REQUEST,
    timeoutMs: 60_000,
  });
  const answer = (chat.json as { choices?: { message?: { content?: string } }[] } | undefined)
    ?.choices?.[0]?.message?.content;
  say(`chat: HTTP ${chat.status} from ${chat.pod}: ${answer ?? chat.text.slice(0, 300)}`);
  const { rows } = await c.db.query<{ id: string; schedule: string }>(
    'SELECT id, schedule FROM cron_jobs WHERE name = $1',
    [CHAT_JOB.name],
  );
  const chatJob = rows[0];
  const toolOk = scenario.toolResults.some((result) => result.includes('"ok":true'));
  report.add(
    SECTION,
    'chatCreatesJob',
    `admin PATCH 200 (min interval 1 s); chat HTTP 200 through nginx; cronjob tool ok; one job "${CHAT_JOB.schedule}"`,
    `PATCH ${patch.status} (min interval ${lowered} s); chat ${chat.status} from ${chat.pod}; ` +
      `tool ${toolOk ? 'ok' : `not ok: ${scenario.toolResults.at(-1) ?? 'never called'}`}; ` +
      `${rows.length} job(s) "${CHAT_JOB.name}"${chatJob ? ` "${chatJob.schedule}" ${chatJob.id}` : ''}`,
    patch.status === 200 &&
      lowered === 1 &&
      chat.status === 200 &&
      toolOk &&
      rows.length === 1 &&
      chatJob?.schedule === CHAT_JOB.schedule,
  );

  const schedules = new Map<string, string>();
  if (chatJob) schedules.set(chatJob.id, chatJob.schedule);
  // One inserted job owned by each pod: the spread checked below is then not left to chance.
  const ownedIds = jobIdsSpreadOver(
    c.pods.map((pod) => pod.podId),
    DIRECT_JOBS.length,
  );
  for (const [i, job] of DIRECT_JOBS.entries())
    schedules.set(await insertJobRow(c, job, ownedIds[i]), job.schedule);
  const ids = [...schedules.keys()];
  say(
    `${ids.length} jobs (1 by chat, ${DIRECT_JOBS.length} inserted); running ~${WINDOW_MS / 1000} s`,
  );

  // The window: from each job's first run to T, ~16 s after the last job's first run.
  const firsts = await until(async () => {
    const runs = await runsOf(c.db, ids);
    const times = ids.map((id) => runs.find((run) => run.cron_job_id === id)?.scheduled_at);
    return times.every(Boolean) ? times.map((time) => time!.getTime()) : undefined;
  }, 20_000);
  const windowEnd = floorSecond(Math.max(...(firsts ?? [Date.now()])) + WINDOW_MS);
  // Every job has a run after T: each occurrence up to T has been fired (and claimed or skipped).
  await until(
    async () => {
      const runs = await runsOf(c.db, ids);
      return ids.every((id) =>
        runs.some((run) => run.cron_job_id === id && run.scheduled_at.getTime() > windowEnd),
      );
    },
    windowEnd + 15_000 - Date.now(),
  );
  const inWindow = (runs: RunRow[]) =>
    runs.filter((run) => run.scheduled_at.getTime() <= windowEnd);
  // ... and finished, and logged.
  await until(async () => {
    const runs = inWindow(await runsOf(c.db, ids));
    const lines = c.pods.reduce((sum, pod) => sum + executedLines(pod, windowEnd, ids).length, 0);
    return (
      runs.every((run) => run.status !== 'running' && run.status !== 'claimed') &&
      lines === runs.length
    );
  }, 15_000);
  const runs = inWindow(await runsOf(c.db, ids));
  const windowText = `${new Date(Math.min(...(firsts ?? [windowEnd]))).toISOString().slice(11, 19)}–${new Date(windowEnd).toISOString().slice(11, 19)} UTC`;

  const perPod = c.pods.map((pod) => ({
    pod: pod.podId,
    lines: executedLines(pod, windowEnd, ids).length,
    runs: runs.filter((run) => run.pod_id === pod.podId).length,
  }));
  const sum = perPod.reduce((total, entry) => total + entry.lines, 0);
  const working = perPod.filter((entry) => entry.lines > 0).length;
  report.add(
    SECTION,
    'executionsPerPod',
    '>1 pod executes; Σ lines = runs in cron_job_runs; each pod’s lines = its runs (pod_id)',
    `${perPod.map((entry) => `${entry.pod}=${entry.lines}`).join(' ')} Σ=${sum}; ` +
      `cron_job_runs=${runs.length} (by pod_id ${perPod.map((entry) => entry.runs).join('/')}); window ${windowText}`,
    working > 1 && sum === runs.length && perPod.every((entry) => entry.lines === entry.runs),
  );
  const succeeded = runs.filter((run) => run.status === 'success').length;
  report.add(
    SECTION,
    'runsSucceeded',
    'every run in the window: status success',
    `${succeeded} of ${runs.length} success`,
    runs.length > 0 && succeeded === runs.length,
  );
  const duplicates = await duplicateRuns(c.db);
  report.add(
    SECTION,
    'noDuplicates',
    'SELECT cron_job_id, scheduled_at, COUNT(*) FROM cron_job_runs GROUP BY 1,2 HAVING COUNT(*) > 1 → 0 rows',
    `${duplicates.length} rows${duplicates.length ? `: ${JSON.stringify(duplicates)}` : ''}`,
    duplicates.length === 0,
  );
  const calls = modelCallsPerRun(c, runs, POD_CRASH_ERROR, windowEnd);
  report.add(
    SECTION,
    'oneModelCall',
    'exactly 1 fake-model call per (job, occurrence), from the system message',
    `${calls.total} occurrences: ${calls.bad.length} with ≠1 call (max ${calls.max}), ` +
      `${calls.orphanCalls.length} calls without a run${describe([...calls.bad, ...calls.orphanCalls])}`,
    calls.total > 0 && calls.bad.length === 0 && calls.orphanCalls.length === 0,
  );
  const occurrences = checkOccurrences(runs, schedules);
  report.add(
    SECTION,
    'noMissed',
    'each job: every occurrence from its first to its last run has a run (or overlapped a run still going)',
    `${ids.length} jobs, ${occurrences.total} occurrences, ${occurrences.missed.length} missed, ` +
      `${occurrences.overlapped.length} skipped by overlap${describe([...occurrences.missed, ...occurrences.overlapped])}`,
    occurrences.total > 0 && occurrences.missed.length === 0,
  );
  return schedules;
}

/**
 * Every occurrence between a job's first and last run must have a run, unless the job's previous
 * run was still going when it came due (skipped by design: "Run longer than its interval").
 */
function checkOccurrences(runs: RunRow[], schedules: Map<string, string>) {
  let total = 0;
  const missed: string[] = [];
  const overlapped: string[] = [];
  for (const [id, schedule] of schedules) {
    const period = periodMsOf(schedule);
    const mine = runs.filter((run) => run.cron_job_id === id);
    const byTime = new Map(mine.map((run) => [run.scheduled_at.getTime(), run]));
    const first = mine[0]?.scheduled_at.getTime() ?? 0;
    const last = mine.at(-1)?.scheduled_at.getTime() ?? -1;
    for (let at = first; at <= last; at += period) {
      total += 1;
      if (byTime.has(at)) continue;
      const previous = mine.filter((run) => run.scheduled_at.getTime() < at).at(-1);
      // Finished in PostgreSQL just before its lock was released: allow the release's few ms.
      const stillRunning = (previous?.finished_at?.getTime() ?? 0) > at - 100;
      const label = `${id.slice(0, 8)}@${new Date(at).toISOString().slice(11, 19)}`;
      (stillRunning ? overlapped : missed).push(label);
    }
  }
  return { total, missed, overlapped };
}

function describe(items: string[]): string {
  if (items.length === 0) return '';
  return ` [${items.slice(0, 5).join(', ')}${items.length > 5 ? ', …' : ''}]`;
}
