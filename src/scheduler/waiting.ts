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
  /** Set by the list's own timer: the owner's head start is over. */
  ready: boolean;
  createdMs: number;
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
  const createdMs = ctx.clock.now();
  // A pod that stays full never gets to old lists: drop them (see drainSteals for why that is safe).
  const before = ctx.steals.length;
  ctx.steals = ctx.steals.filter((old) => createdMs - old.createdMs <= ctx.settings.pollIntervalMs);
  if (ctx.steals.length < before) ctx.needsCatchUp = true;
  const list: StealList = {
    owner,
    ready: false,
    createdMs,
    items,
    next: 0,
    inFlight: 0,
    window: 1,
  };
  ctx.steals.push(list);
  // The timer itself is the gate: timers and Date.now() run on different clocks, and a
  // comparison with the wall clock could find the delay not yet over when the timer fires.
  ctx.clock.setTimeout(() => {
    list.ready = true;
    drainSteals(ctx);
  }, STEAL_DELAY_MS);
}

/** Fires set-aside occurrences while there is room; ones overtaken by time are dropped as missed. */
function drainPending(ctx: SchedulerContext): void {
  while (ctx.active && ctx.pending.length > 0 && ctx.busySlots < ctx.settings.maxConcurrentRuns) {
    const occurrence = ctx.pending.shift();
    if (!occurrence || !ctx.jobs.has(occurrence.jobId)) continue;
    if (ctx.clock.now() - occurrence.scheduledAtMs > ctx.settings.pollIntervalMs) {
      ctx.metrics.missed.inc();
      // Let the next sync catch it up from the database's record, if no pod ran it meanwhile.
      ctx.needsCatchUp = true;
      continue;
    }
    void fireOccurrence(ctx, occurrence);
  }
}

function drainSteals(ctx: SchedulerContext): void {
  for (const list of ctx.steals) {
    while (canSteal(ctx, list)) {
      const occurrence = list.items[list.next++] as Occurrence;
      // Overtaken by time while this pod was full: most likely the owner ran it. The next sync
      // compares with the database's record and catches it up if nobody did (counted there).
      if (ctx.clock.now() - occurrence.scheduledAtMs > ctx.settings.pollIntervalMs) {
        ctx.needsCatchUp = true;
        continue;
      }
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

function canSteal(ctx: SchedulerContext, list: StealList): boolean {
  return (
    ctx.active &&
    ctx.pending.length === 0 &&
    ctx.busySlots < ctx.settings.maxConcurrentRuns &&
    list.ready &&
    list.next < list.items.length &&
    list.inFlight < list.window
  );
}
