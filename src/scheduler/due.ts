import type { ParsedSchedule } from '../jobs/schedule.js';
import { fireOccurrence } from './fire.js';
import type { SchedulerContext } from './state.js';

/**
 * The timer went off: fire every occurrence due by now and put each job's next one in the queue.
 * A late timer (a stalled process) fires the latest due occurrence of a job once and counts the rest.
 */
export function fireDueOccurrences(ctx: SchedulerContext, nowMs: number): void {
  const due = shuffle(ctx.queue.popDue(nowMs));
  const nextAfter = memoizeNext();
  for (const entry of due) {
    const loaded = ctx.jobs.get(entry.jobId);
    if (!loaded) continue;
    let occurrenceMs = entry.dueMs;
    let next = nextAfter(loaded.schedule, occurrenceMs);
    let skipped = 0;
    while (next !== null && next <= nowMs && skipped < 1000) {
      occurrenceMs = next;
      next = nextAfter(loaded.schedule, next);
      skipped += 1;
    }
    if (skipped > 0) ctx.metrics.missed.inc(skipped);
    if (next !== null) ctx.queue.schedule(entry.jobId, next);
    fireOccurrence(ctx, { jobId: entry.jobId, scheduledAtMs: occurrenceMs, kind: 'scheduled' });
  }
}

/**
 * Jobs due together often share a schedule (10,000 jobs "at second 0"): compute each distinct
 * schedule's next occurrence once per timer tick.
 */
function memoizeNext(): (schedule: ParsedSchedule, afterMs: number) => number | null {
  const cache = new Map<string, number | null>();
  return (schedule, afterMs) => {
    const key = `${afterMs}|${schedule.timezone}|${schedule.source}`;
    let next = cache.get(key);
    if (next === undefined) {
      next = schedule.nextAfter(new Date(afterMs))?.getTime() ?? null;
      cache.set(key, next);
    }
    return next;
  };
}

/** Each pod takes a burst in its own random order, so pods contend less for the same locks. */
function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}
