// The one owner of a pod's run slots. Occurrences are offered to it; it runs each through
// runOccurrence while it has a free slot (slots.ts: SCHEDULER_MAX_CONCURRENT_RUNS model slots and
// SCHEDULER_CLAIM_AHEAD claims ahead of them), sets the rest aside in a FairQueue (round-robin
// across tenants), holds back tenants at their max_concurrent_runs, and takes over other owners'
// occurrences (StealLists) when it has room. What became of each occurrence goes back to its owner
// through `settled` (the one return channel), and is then announced on the scheduler's events for
// observers.
import type { SchedulerEvents, SkipReason } from './events.js';
import { FairQueue, orderFairly } from './fair-queue.js';
import { dropOccurrence, type DropReason, type WaitingStage } from './life-cycle.js';
import type { SchedulerMetrics } from './metrics.js';
import type { Occurrence } from './occurrence.js';
import { decideHere, lifeInputOf, policyOf } from './overlap.js';
import type { Clock } from '../services/clock.js';
import type { LockHolder } from './ports.js';
import type { RunResult, Slot } from './pipeline.js';
import { RunsInFlight, type InFlight } from './runs-in-flight.js';
import type { SchedulerSettings } from './settings.js';
import { PodSlots } from './slots.js';
import { StealLists } from './steal-lists.js';
import { TenantHolds } from './tenant-holds.js';

export { CAP_RETRY_MS } from './tenant-holds.js';

export interface DispatcherDeps {
  settings: Pick<
    SchedulerSettings,
    'maxConcurrentRuns' | 'claimAheadRuns' | 'pollIntervalMs' | 'catchupWindowMs'
  >;
  clock: Clock;
  metrics: SchedulerMetrics;
  events: SchedulerEvents;
  run(occurrence: Occurrence, controller: AbortController, slot: Slot): Promise<RunResult>;
  /**
   * What became of an occurrence: its run's result, or why the dispatcher skipped it itself
   * (overlap, expired, passed_over). Called before the `skipped` event goes out.
   */
  settled?(occurrence: Occurrence, result: RunResult): void;
}

export interface DispatcherSnapshot {
  /** More occurrences the pod may admit now (slots.ts). */
  freeSlots: number;
  inFlight: number;
  waiting: number;
  stealable: number;
  cappedTenants: number;
}

export class Dispatcher {
  private readonly slots: PodSlots;
  private readonly inFlight = new RunsInFlight();
  private readonly waiting = new FairQueue();
  private readonly steals: StealLists;
  /** Tenants at their cap, held back for a moment. */
  private readonly capped: TenantHolds;
  private active = false;

  constructor(private readonly deps: DispatcherDeps) {
    this.slots = new PodSlots(deps.settings, deps.clock, deps.metrics.modelSlot, () =>
      this.drain(),
    );
    this.steals = new StealLists(deps.clock, deps.settings.pollIntervalMs, () => this.drain());
    this.capped = new TenantHolds(deps.clock, () => this.drain());
  }

  /** Starts handing out occurrences (the scheduler is running). */
  activate(): void {
    this.active = true;
    this.drain();
  }

  /** Stops handing out occurrences and forgets the waiting ones; runs in flight go on. */
  deactivate(): void {
    this.active = false;
    this.waiting.clear();
    this.steals.clear();
    this.capped.clear();
  }

  /**
   * The pod stops: claimed runs waiting for a model slot get none (they hand their claims back,
   * for another pod to adopt), and none is granted any more.
   */
  stopSending(): void {
    this.slots.stop();
  }

  /** This pod's own occurrences (its jobs at a tick, catch-ups, run-now, adopted runs). */
  offer(occurrences: readonly Occurrence[]): void {
    if (!this.active) return;
    let room = this.slots.free - this.waiting.size;
    for (const occurrence of orderFairly(occurrences)) {
      if (!occurrence.adopted) {
        const decision = this.decide(occurrence);
        if (decision === 'skip') this.dropped(occurrence, 'waiting', 'overlap');
        if (decision !== 'start') continue;
      }
      const queued = this.waiting.get(occurrence.jobId);
      // The same occurrence offered again (a catch-up of one waiting here), or an older one.
      if (queued && queued.scheduledAtMs >= occurrence.scheduledAtMs) continue;
      const overtaken = this.waiting.push(occurrence);
      if (overtaken) this.dropped(overtaken, 'waiting', 'expired');
      else if (room-- <= 0) this.deps.metrics.capacityDeferrals.inc();
    }
    this.drain();
  }

  /** Another owner's occurrences of a tick, tried only if that owner leaves them. */
  offerStealable(owner: string, occurrences: readonly Occurrence[]): void {
    if (!this.active || occurrences.length === 0) return;
    for (const old of this.steals.add(owner, occurrences)) {
      this.dropped(old, 'stealable', 'passed_over');
    }
  }

  /** The job has an occurrence in flight or waiting here. */
  holds(jobId: string): boolean {
    return this.inFlight.has(jobId) || this.waiting.get(jobId) !== undefined;
  }

  /** That occurrence of the job is in flight here. */
  inFlightAt(jobId: string, scheduledAtMs: number): boolean {
    return this.inFlight.at(jobId, scheduledAtMs) !== undefined;
  }

  snapshot(): DispatcherSnapshot {
    return {
      freeSlots: this.slots.free,
      inFlight: this.inFlight.size,
      waiting: this.waiting.size,
      stealable: this.steals.size,
      cappedTenants: this.capped.size,
    };
  }

  /** Aborts that occurrence of the job in flight on this pod (all of the job's without one). */
  abort(jobId: string, reason: Error, scheduledAtMs?: number): void {
    for (const run of this.inFlight.ofJob(jobId)) {
      if (scheduledAtMs === undefined || run.occurrence.scheduledAtMs === scheduledAtMs) {
        run.controller.abort(reason);
      }
    }
  }

  /** Aborts the job's occurrence in flight here whose claimed run is runId, if any. */
  abortRun(jobId: string, runId: string, reason: Error): void {
    for (const run of this.inFlight.ofJob(jobId)) {
      if (run.runId === runId) run.controller.abort(reason);
    }
  }

  /** The claimed runs in flight on this pod. */
  runIds(): string[] {
    return this.inFlight.all().flatMap((run) => (run.runId === undefined ? [] : [run.runId]));
  }

  /** Aborts every run in flight with the given reason. */
  abortAll(reason: Error): void {
    for (const run of this.inFlight.all()) run.controller.abort(reason);
  }

  /** Resolves true once nothing is in flight, or false after timeoutMs. */
  async waitIdle(timeoutMs: number): Promise<boolean> {
    const all = Promise.all(this.inFlight.all().map((run) => run.done));
    let timer: unknown;
    const timeout = new Promise<false>((resolve) => {
      timer = this.deps.clock.setTimeout(() => resolve(false), timeoutMs);
    });
    const settled = await Promise.race([all.then(() => true as const), timeout]);
    this.deps.clock.clearTimeout(timer);
    return settled;
  }

  /** Hands out occurrences while there are free slots: this pod's own first, then stealable ones. */
  private drain(): void {
    this.handOut();
    this.deps.metrics.waiting.set(this.waiting.size);
  }

  private handOut(): void {
    while (this.active && this.slots.free > 0) {
      const own = this.nextOwn();
      if (own) {
        this.start(own, 'waiting');
        continue;
      }
      if (this.waiting.size > 0) return;
      const steal = this.steals.take((old) => this.dropped(old, 'stealable', 'passed_over'));
      if (!steal) return;
      // This pod runs the job itself (it owned it a moment ago): an overlap like its own.
      const decision = this.decide(steal.occurrence);
      if (decision !== 'start') {
        if (decision === 'skip') this.dropped(steal.occurrence, 'stealable', 'overlap');
        steal.done({ taken: false, holder: null });
        continue;
      }
      // The try is over once the lock and claim are decided, not when the run ends.
      let settled = false;
      const done = (taken: boolean, holder: LockHolder | null) => {
        if (settled) return;
        settled = true;
        if (taken) this.deps.metrics.steals.inc();
        steal.done({ taken, holder });
        this.drain();
      };
      void this.start(steal.occurrence, 'stealable', () => done(true, null)).then((result) =>
        done(result.kind === 'ran', result.kind === 'skipped' ? (result.holder ?? null) : null),
      );
    }
  }

  private nextOwn(): Occurrence | undefined {
    const nowMs = this.deps.clock.now();
    const maxWaitMs = Math.max(
      this.deps.settings.catchupWindowMs,
      this.deps.settings.pollIntervalMs,
    );
    for (;;) {
      const occurrence = this.waiting.shift((tenant) => this.capped.holds(tenant, nowMs));
      if (!occurrence) return undefined;
      const decision = occurrence.adopted ? 'start' : this.decide(occurrence);
      if (decision !== 'start') {
        if (decision === 'skip') this.dropped(occurrence, 'waiting', 'overlap');
        continue;
      }
      if (!occurrence.adopted && nowMs - occurrence.scheduledAtMs > maxWaitMs) {
        this.dropped(occurrence, 'waiting', 'expired');
        continue;
      }
      return occurrence;
    }
  }

  private start(
    occurrence: Occurrence,
    from: WaitingStage,
    onClaimed: () => void = () => {},
  ): Promise<RunResult> {
    const controller = new AbortController();
    let settle: () => void = () => {};
    const done = new Promise<void>((resolve) => (settle = resolve));
    const run: InFlight = { occurrence, controller, done };
    const slot = this.slots.take(from, (runId) => {
      run.runId = runId;
      onClaimed();
    });
    this.inFlight.add(run);
    this.deps.metrics.inFlight.set(this.inFlight.size);
    const result = this.deps
      .run(occurrence, controller, slot)
      .catch((): RunResult => ({ kind: 'skipped', reason: 'db_error' }));
    return result.then((outcome) => {
      this.inFlight.delete(occurrence);
      this.deps.metrics.inFlight.set(this.inFlight.size);
      this.settleResult(occurrence, outcome);
      settle();
      slot.release();
      return outcome;
    });
  }

  /** What the job's overlap policy makes of an occurrence, given its runs in flight here. */
  private decide(occurrence: Occurrence): 'start' | 'skip' | 'ignore' {
    const nominalTimes = this.inFlight.nominalTimesOf(occurrence.jobId);
    if (!nominalTimes) return 'start';
    return decideHere(policyOf(occurrence.job), nominalTimes, occurrence.scheduledAtMs);
  }

  private settleResult(occurrence: Occurrence, result: RunResult): void {
    if (result.kind === 'ran') {
      // One of the tenant's runs ended here: it may have room again.
      this.capped.release(occurrence.tenantId);
      this.deps.settled?.(occurrence, result);
      return;
    }
    if (result.reason === 'capped') {
      this.deps.metrics.capDeferrals.inc();
      if (this.active) {
        this.waiting.unshift(occurrence);
        this.capped.hold(occurrence.tenantId);
      }
    }
    this.skipped(occurrence, result.reason, result);
  }

  /** The dispatcher ends a waiting occurrence itself, as the life cycle says. */
  private dropped(occurrence: Occurrence, where: WaitingStage, reason: DropReason): void {
    this.skipped(
      occurrence,
      dropOccurrence(lifeInputOf(occurrence, occurrence.job), where, reason),
    );
  }

  /** Returns the skip to the owner, then announces it. */
  private skipped(
    occurrence: Occurrence,
    reason: SkipReason,
    result: RunResult = { kind: 'skipped', reason },
  ): void {
    if (reason === 'overlap') this.deps.metrics.overlapSkips.inc();
    if (reason === 'expired') this.deps.metrics.missed.inc();
    this.deps.settled?.(occurrence, result);
    this.deps.events.emit('skipped', {
      jobId: occurrence.jobId,
      scheduledAtMs: occurrence.scheduledAtMs,
      reason,
    });
  }
}
