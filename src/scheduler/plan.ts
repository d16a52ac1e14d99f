import { latestOccurrenceBetween, type ParsedSchedule } from '../schedule/schedule.js';

export interface OccurrencePlan {
  /** The latest missed occurrence, to run once now; null when nothing was missed. */
  catchUp: Date | null;
  /** Older missed occurrences that are skipped (a lower bound when the outage was long). */
  missed: number;
  /** The next occurrence after now, for the queue. */
  next: Date | null;
}

export interface PlanInput {
  dueFrom: Date;
  lastScheduledAt: Date | null;
}

// Counting skipped occurrences is for metrics only; a per-second job down for a day must not
// cost 86,400 schedule steps.
const MAX_COUNTED = 1000;

/**
 * Decides, when a pod (re)loads a job, which missed occurrence to catch up: the latest one that
 * was due (at or after dueFrom, after the last claimed one) within the catch-up window. Pure.
 */
export function planJob(
  schedule: ParsedSchedule,
  job: PlanInput,
  nowMs: number,
  catchupWindowMs: number,
): OccurrencePlan {
  const now = new Date(nowMs);
  const next = schedule.nextAfter(now);
  // Exclusive lower bound: an occurrence exactly at dueFrom was due; the last claimed one was run.
  const afterMs = Math.max(job.dueFrom.getTime() - 1, job.lastScheduledAt?.getTime() ?? -Infinity);
  const windowAfterMs = Math.max(afterMs, nowMs - catchupWindowMs);
  if (catchupWindowMs <= 0 || windowAfterMs >= nowMs) return { catchUp: null, missed: 0, next };

  const firstMissed = schedule.nextAfter(new Date(afterMs));
  // Occurrences before the window are not searched: that there was one is counted, once.
  const missedBeforeWindow =
    windowAfterMs > afterMs && firstMissed !== null && firstMissed.getTime() <= windowAfterMs
      ? 1
      : 0;
  // Most jobs missed nothing in the window: one step from its start says so, without a search.
  const firstInWindow =
    windowAfterMs === afterMs ? firstMissed : schedule.nextAfter(new Date(windowAfterMs));
  if (!firstInWindow || firstInWindow.getTime() > nowMs) {
    return { catchUp: null, missed: missedBeforeWindow, next };
  }
  const catchUp = latestOccurrenceBetween(schedule, new Date(windowAfterMs), now) ?? firstInWindow;
  const missed = countBetween(schedule, windowAfterMs, catchUp.getTime()) + missedBeforeWindow;
  return { catchUp, missed, next };
}

/** Occurrences strictly between afterMs and beforeMs, up to MAX_COUNTED. */
function countBetween(schedule: ParsedSchedule, afterMs: number, beforeMs: number): number {
  let count = 0;
  let cursor = schedule.nextAfter(new Date(afterMs));
  while (cursor && cursor.getTime() < beforeMs && count < MAX_COUNTED) {
    count += 1;
    cursor = schedule.nextAfter(cursor);
  }
  return count;
}

export interface DueInput {
  /** The database's next occurrence to run (may be past: overdue). */
  nextRunAt: Date;
  dueFrom: Date;
}

/**
 * Plans a job read from the due window. Occurrences up to the later of next_run_at (exclusive)
 * and the last one this pod fired itself (`lastFiredMs`) are settled. When the first unsettled
 * occurrence is still ahead it is the next one; when it has passed (an outage, a pod that could
 * not claim), the latest one within the catch-up window runs once, exactly as planJob decides
 * on a reload. Pure.
 */
export function planDueJob(
  schedule: ParsedSchedule,
  job: DueInput,
  lastFiredMs: number | undefined,
  nowMs: number,
  catchupWindowMs: number,
): OccurrencePlan {
  const cursorMs = Math.max(job.nextRunAt.getTime() - 1, lastFiredMs ?? -Infinity);
  const first = schedule.nextAfter(new Date(Math.max(cursorMs, nowMs)));
  if (cursorMs >= nowMs) return { catchUp: null, missed: 0, next: first };
  const settled = { dueFrom: job.dueFrom, lastScheduledAt: new Date(cursorMs) };
  return planJob(schedule, settled, nowMs, catchupWindowMs);
}

/**
 * What the planning sweep writes as a job's next_run_at: its occurrence to catch up, if it
 * missed one within the window, else its next one; with how many older ones it skipped. Pure.
 */
export function planNextRunAt(
  schedule: ParsedSchedule,
  job: PlanInput,
  nowMs: number,
  catchupWindowMs: number,
): { nextRunAt: Date | null; missed: number } {
  const plan = planJob(schedule, job, nowMs, catchupWindowMs);
  return { nextRunAt: plan.catchUp ?? plan.next, missed: plan.missed };
}
