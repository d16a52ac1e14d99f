import type { ParsedSchedule } from '../jobs/schedule.js';
import { fireOccurrence } from './fire.js';
import { ownerOf } from './owners.js';
import type { Occurrence, SchedulerContext } from './state.js';
import { addStealList } from './waiting.js';

/**
 * The timer went off: put each due job's next occurrence in the queue, fire the occurrences this
 * pod owns (in ascending job id) and keep the others for their owners, to take over only if those
 * leave them (see StealList). A late timer (a stalled process) fires the latest due occurrence of
 * a job once and counts the rest.
 */
export function fireDueOccurrences(ctx: SchedulerContext, nowMs: number): void {
  const self = ctx.settings.podId;
  const own: Occurrence[] = [];
  const others = new Map<string, Occurrence[]>();
  for (const occurrence of takeDue(ctx, nowMs)) {
    const owner = ownerOf(occurrence.jobId, ctx.peers, self);
    if (owner === self) own.push(occurrence);
    else {
      const items = others.get(owner);
      if (items) items.push(occurrence);
      else others.set(owner, [occurrence]);
    }
  }
  own.sort((a, b) => (a.jobId < b.jobId ? -1 : a.jobId > b.jobId ? 1 : 0));
  for (const occurrence of own) void fireOccurrence(ctx, occurrence);
  for (const [owner, items] of others) addStealList(ctx, owner, items);
}

/** Pops the due entries, re-queues each job's next occurrence, returns the occurrences to fire. */
function takeDue(ctx: SchedulerContext, nowMs: number): Occurrence[] {
  const occurrences: Occurrence[] = [];
  const nextAfter = memoizeNext();
  for (const entry of ctx.queue.popDue(nowMs)) {
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
    occurrences.push({ jobId: entry.jobId, scheduledAtMs: occurrenceMs, kind: 'scheduled' });
  }
  return occurrences;
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
