// The ticker: one timer armed at the timeline's earliest due instant. When it goes off, this
// pod's own due occurrences go to the dispatcher and the other owners' to its take-over lists.
import type { Dispatcher } from '../dispatcher.js';
import type { Occurrence } from '../occurrence.js';
import { ownerOf } from '../owners.js';
import type { Clock } from '../../services/clock.js';
import type { Timeline } from '../timeline.js';
import type { Service } from '../../services/service.js';
import type { Lifecycle } from './lifecycle.js';

// setTimeout cannot wait longer than 2^31-1 ms; far-away jobs are simply re-checked.
const MAX_TIMER_MS = 3_600_000;

export interface TickerDeps {
  clock: Clock;
  podId: string;
  lifecycle: Lifecycle;
  timeline: Timeline;
  dispatcher: Dispatcher;
  /** Live scheduling pods, this one included. */
  peers(): readonly string[];
}

export class Ticker implements Service {
  readonly name = 'ticker';
  private timer: unknown;

  constructor(private readonly deps: TickerDeps) {}

  /** Arms the timer at the timeline's earliest instant (again: the timeline changed). */
  start(): void {
    const { clock } = this.deps;
    this.disarm();
    if (this.deps.lifecycle.state !== 'running') return;
    const dueMs = this.deps.timeline.peekDueMs();
    if (dueMs === undefined) return;
    const delayMs = Math.min(Math.max(0, dueMs - clock.now()), MAX_TIMER_MS);
    this.timer = clock.setTimeout(() => this.onTimer(), delayMs);
  }

  stop(): Promise<void> {
    this.disarm();
    return Promise.resolve();
  }

  private disarm(): void {
    if (this.timer !== undefined) this.deps.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The timer went off: this pod's own due occurrences go to the dispatcher, the others wait. */
  private onTimer(): void {
    this.timer = undefined;
    const { podId: self, dispatcher } = this.deps;
    const peers = this.deps.peers();
    const own: Occurrence[] = [];
    const others = new Map<string, Occurrence[]>();
    for (const occurrence of this.deps.timeline.takeDue(this.deps.clock.now())) {
      const owner = ownerOf(occurrence.jobId, peers, self);
      if (owner === self) own.push(occurrence);
      else {
        const items = others.get(owner);
        if (items) items.push(occurrence);
        else others.set(owner, [occurrence]);
      }
    }
    dispatcher.offer(own);
    for (const [owner, items] of others) dispatcher.offerStealable(owner, items);
    this.start();
  }
}
