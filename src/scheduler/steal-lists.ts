// Other pods' occurrences this pod may take over when it has room. At a tick each pod fires the
// jobs it owns (see owners.ts) and keeps every other owner's due occurrences in a list, which it
// tries only after STEAL_DELAY_MS and from the END of the owner's order (orderFairly): the owner
// works from the front, so once a try finds the owner's lock, the rest of the list is the owner's
// too. A live owner costs one failed try per list; a dead or full one loses its tail to pods with
// room.
import { orderFairly } from './fair-queue.js';
import type { LockHolder } from './ports.js';
import type { Occurrence } from './occurrence.js';
import type { Clock } from '../services/clock.js';

// How long the owner of a job has before the other pods try its lock. Owners take their jobs
// within milliseconds, so this only delays occurrences whose owner is dead, stopping or full.
export const STEAL_DELAY_MS = 50;
const MAX_WINDOW = 64;

interface StealList {
  owner: string;
  /** Set by the list's own timer: the owner's head start is over. */
  ready: boolean;
  createdMs: number;
  /** The reverse of the owner's order. */
  items: Occurrence[];
  next: number;
  inFlight: number;
  /** Tries allowed at once: one at first, doubling after each success. */
  window: number;
}

/** A try handed out by take(): report its end with done(). */
export interface StealTry {
  occurrence: Occurrence;
  done(result: { taken: boolean; holder: LockHolder | null }): void;
}

export class StealLists {
  private lists: StealList[] = [];

  constructor(
    private readonly clock: Clock,
    /** Lists older than this are dropped; their occurrences may have been missed. */
    private readonly maxAgeMs: number,
    /** A list's head start is over: there may be something to take. */
    private readonly onReady: () => void,
  ) {}

  get size(): number {
    return this.lists.reduce((sum, list) => sum + list.items.length - list.next, 0);
  }

  /** Adds one owner's occurrences of a tick; returns those of old lists dropped unfinished. */
  add(owner: string, items: readonly Occurrence[]): Occurrence[] {
    const createdMs = this.clock.now();
    // A pod that stays full never gets to old lists: drop them; the sync catches up what no pod ran.
    const dropped: Occurrence[] = [];
    this.lists = this.lists.filter((old) => {
      if (createdMs - old.createdMs <= this.maxAgeMs) return true;
      dropped.push(...old.items.slice(old.next));
      return false;
    });
    const list: StealList = {
      owner,
      ready: false,
      createdMs,
      items: orderFairly(items).reverse(),
      next: 0,
      inFlight: 0,
      window: 1,
    };
    this.lists.push(list);
    // The timer itself is the gate: timers and Date.now() run on different clocks, and a
    // comparison with the wall clock could find the delay not yet over when the timer fires.
    this.clock.setTimeout(() => {
      list.ready = true;
      this.onReady();
    }, STEAL_DELAY_MS);
    return dropped;
  }

  /**
   * The next occurrence to try, if any list is ready and has room in its window. Occurrences
   * overtaken by time are passed over (`onExpired`): most likely their owner ran them.
   */
  take(onExpired: (occurrence: Occurrence) => void): StealTry | undefined {
    const nowMs = this.clock.now();
    for (const list of this.lists) {
      while (list.ready && list.next < list.items.length && list.inFlight < list.window) {
        const occurrence = list.items[list.next++] as Occurrence;
        if (nowMs - occurrence.scheduledAtMs > this.maxAgeMs) {
          onExpired(occurrence);
          continue;
        }
        list.inFlight += 1;
        return { occurrence, done: (result) => this.settle(list, occurrence, result) };
      }
    }
    this.prune();
    return undefined;
  }

  clear(): void {
    this.lists = [];
  }

  private settle(
    list: StealList,
    occurrence: Occurrence,
    result: { taken: boolean; holder: LockHolder | null },
  ): void {
    list.inFlight -= 1;
    if (result.taken) list.window = Math.min(list.window * 2, MAX_WINDOW);
    else if (
      result.holder?.podId === list.owner &&
      result.holder.scheduledAtMs >= occurrence.scheduledAtMs
    ) {
      // The owner got this far: the rest of the list is its own.
      list.next = list.items.length;
    }
    this.prune();
  }

  private prune(): void {
    this.lists = this.lists.filter((list) => list.next < list.items.length || list.inFlight > 0);
  }
}
