// Occurrences that wait on this pod: its own, set aside while it was full, and other pods' that it
// may take over (see StealList). Both go out as slots free; its own first.
import { fireOccurrence } from './fire.js';
import type { Occurrence, SchedulerContext } from './state.js';

// How long the owner of a job has before the other pods try its lock. Owners take their jobs
// within milliseconds, so this only delays occurrences whose owner is dead, stopping or full.
export const STEAL_DELAY_MS = 50;
const MAX_WINDOW = 64;

/**
 * Occurrences of one tick owned by another pod, which this pod tries only when it has room, after
 * STEAL_DELAY_MS, from the end of the owner's order. The owner works from the front (ascending job
 * id), so once a try finds the owner's lock, the rest of the list is the owner's too: a live owner
 * costs one failed try per list, and a dead or overloaded one loses its tail to pods with room.
 */
export interface StealList {
  owner: string;
  notBeforeMs: number;
  /** Descending job id: the reverse of the owner's order. */
  items: Occurrence[];
  next: number;
  inFlight: number;
  /** Tries allowed at once: one at first, doubling after each success. */
  window: number;
}

/** Fires waiting occurrences while there is room: set-aside ones first, then stealable ones. */
export function drainWaiting(ctx: SchedulerContext): void {
  drainPending(ctx);
  drainSteals(ctx);
}

export function addStealList(ctx: SchedulerContext, owner: string, items: Occurrence[]): void {
  items.sort((a, b) => (a.jobId < b.jobId ? 1 : a.jobId > b.jobId ? -1 : 0));
  const notBeforeMs = ctx.clock.now() + STEAL_DELAY_MS;
  ctx.steals.push({ owner, notBeforeMs, items, next: 0, inFlight: 0, window: 1 });
  ctx.clock.setTimeout(() => drainSteals(ctx), STEAL_DELAY_MS);
}

/** Fires set-aside occurrences while there is room; ones overtaken by time are dropped as missed. */
function drainPending(ctx: SchedulerContext): void {
  while (ctx.active && ctx.pending.length > 0 && ctx.busySlots < ctx.settings.maxConcurrentRuns) {
    const occurrence = ctx.pending.shift();
    if (!occurrence || !ctx.jobs.has(occurrence.jobId) || isStale(ctx, occurrence)) continue;
    void fireOccurrence(ctx, occurrence);
  }
}

function drainSteals(ctx: SchedulerContext): void {
  const nowMs = ctx.clock.now();
  for (const list of ctx.steals) {
    while (canSteal(ctx, list, nowMs)) {
      const occurrence = list.items[list.next++] as Occurrence;
      if (isStale(ctx, occurrence)) continue;
      list.inFlight += 1;
      void fireOccurrence(ctx, occurrence).then((outcome) => {
        list.inFlight -= 1;
        if (outcome.acquired) {
          list.window = Math.min(list.window * 2, MAX_WINDOW);
          ctx.metrics.steals.inc();
        } else if (
          outcome.holder?.podId === list.owner &&
          outcome.holder.scheduledAtMs >= occurrence.scheduledAtMs
        ) {
          list.next = list.items.length;
        }
        drainSteals(ctx);
      });
    }
  }
  ctx.steals = ctx.steals.filter((list) => list.next < list.items.length || list.inFlight > 0);
}

function canSteal(ctx: SchedulerContext, list: StealList, nowMs: number): boolean {
  return (
    ctx.active &&
    ctx.pending.length === 0 &&
    ctx.busySlots < ctx.settings.maxConcurrentRuns &&
    nowMs >= list.notBeforeMs &&
    list.next < list.items.length &&
    list.inFlight < list.window
  );
}

/** Overtaken by time: counted as missed; the next sync catches it up if no pod ran it meanwhile. */
function isStale(ctx: SchedulerContext, occurrence: Occurrence): boolean {
  if (ctx.clock.now() - occurrence.scheduledAtMs <= ctx.settings.pollIntervalMs) return false;
  ctx.metrics.missed.inc();
  ctx.needsCatchUp = true;
  return true;
}
