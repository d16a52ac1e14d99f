// A fake clock for the scheduler core's tests: time moves only when the test says so, and the
// core waits on nothing but promises and the Clock, so its behaviour is deterministic.
import type { Clock } from '../../src/services/clock.js';

/**
 * Lets every pending promise chain run: a macrotask turn starts only once the microtask queue is
 * empty, and the scheduler core waits on nothing but promises and the Clock.
 */
export async function flushAsync(rounds = 1): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

interface FakeTimer {
  id: number;
  dueMs: number;
  fn: () => void;
}

export interface FakeClockOptions {
  /**
   * Timers due at the same instant normally run in the order they were set. With a seed they run
   * in a (reproducible) random order, as separate processes would.
   */
  tieSeed?: number;
  /**
   * Timers longer than this fire this much early, as Node's may when compared with Date.now()
   * (timers count from the event loop's cached time, which lags the wall clock).
   */
  earlyMs?: number;
}

/** A Clock whose time only moves when the test says so; due timers run in time order. */
export class FakeClock implements Clock {
  private nowMs: number;
  private readonly timers = new Map<number, FakeTimer>();
  private nextId = 1;
  private readonly random: (() => number) | null;
  private readonly earlyMs: number;

  constructor(startMs: number, options: FakeClockOptions = {}) {
    this.nowMs = startMs;
    this.random = options.tieSeed === undefined ? null : mulberry32(options.tieSeed);
    this.earlyMs = options.earlyMs ?? 0;
  }

  now(): number {
    return this.nowMs;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    const delay = Number.isFinite(ms) ? Math.max(0, ms) : 0;
    const early = delay > this.earlyMs ? this.earlyMs : 0;
    this.timers.set(id, { id, dueMs: this.nowMs + delay - early, fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    if (typeof handle === 'number') this.timers.delete(handle);
  }

  /** Timers set and not yet run or cleared. */
  get pendingTimers(): number {
    return this.timers.size;
  }

  /** Due time of the earliest timer, if any. */
  nextTimerMs(): number | undefined {
    let earliest: number | undefined;
    for (const timer of this.timers.values()) {
      if (earliest === undefined || timer.dueMs < earliest) earliest = timer.dueMs;
    }
    return earliest;
  }

  async advance(ms: number): Promise<void> {
    await this.advanceTo(this.nowMs + ms);
  }

  /** Moves time forward to targetMs, running every timer due on the way, async work in between. */
  async advanceTo(targetMs: number): Promise<void> {
    await flushAsync();
    for (let fired = 0; ; fired++) {
      if (fired > 1_000_000) throw new Error('FakeClock: runaway timers');
      const timer = this.nextDue(targetMs);
      if (!timer) break;
      this.timers.delete(timer.id);
      this.nowMs = Math.max(this.nowMs, timer.dueMs);
      timer.fn();
      await flushAsync();
    }
    this.nowMs = Math.max(this.nowMs, targetMs);
    await flushAsync();
  }

  /**
   * Advances timer by timer until the condition holds; fails once `withinMs` of fake time passed
   * without it (a deadline, not a sleep). Returns the fake time at which it held.
   */
  async until(condition: () => boolean, withinMs: number, what = 'condition'): Promise<number> {
    const deadline = this.nowMs + withinMs;
    await flushAsync();
    for (;;) {
      if (condition()) return this.nowMs;
      const next = this.nextTimerMs();
      if (next === undefined || next > deadline) {
        await this.advanceTo(deadline);
        if (condition()) return this.nowMs;
        throw new Error(`FakeClock: ${what} did not hold within ${withinMs} ms`);
      }
      await this.advanceTo(next);
    }
  }

  private nextDue(limitMs: number): FakeTimer | undefined {
    let earliest: FakeTimer[] = [];
    for (const timer of this.timers.values()) {
      if (timer.dueMs > limitMs) continue;
      const first = earliest[0];
      if (!first || timer.dueMs < first.dueMs) earliest = [timer];
      else if (timer.dueMs === first.dueMs) earliest.push(timer);
    }
    if (earliest.length <= 1 || !this.random) return earliest[0];
    return earliest[Math.floor(this.random() * earliest.length)];
  }
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
