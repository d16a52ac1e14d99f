// The due-window reader: every second it reads the jobs due within the look-ahead into the
// timeline (the whole window once per look-ahead, or when asked to; in between, past the overdue
// rows already handed over), the planning sweep gives jobs without next_run_at one, and
// notifications re-read the jobs they name. Reads are serialised on one chain; after each, the
// ticker is re-armed, the catch-ups go to the dispatcher and jobs with nothing to catch up are
// moved on.
import type { Dispatcher } from '../dispatcher.js';
import {
  laterOverdueKey,
  planBatch,
  PLAN_BATCH,
  readJobs,
  readWindow,
  type WindowDeps,
  type WindowRead,
} from '../due-window.js';
import type { DueKey, StoredJob } from '../../domain/job.js';
import { attachJobs } from '../attach-jobs.js';
import { readMissedTriggers } from '../missed-triggers.js';
import { startLoop, type Loop } from '../../services/loop.js';
import { errorMessage } from '../occurrence.js';
import {
  DEFAULT_PLAN_INTERVAL_MS,
  DEFAULT_WINDOW_READ_INTERVAL_MS,
  type SchedulerDeps,
} from '../settings.js';
import type { Service } from '../../services/service.js';
import type { Lifecycle } from './lifecycle.js';
import type { Ticker } from './ticker.js';

// A notification naming more jobs than this (a bulk import) wakes the sweep and the window read
// instead of loading each job by id.
const MAX_NOTIFIED_IDS = 1000;
// The planning sweep gives the event loop back after this much work in one go.
const PLAN_BUDGET_MS = 300;

export interface WindowReaderDeps {
  deps: SchedulerDeps;
  window: WindowDeps;
  lifecycle: Lifecycle;
  ticker: Ticker;
  dispatcher: Dispatcher;
}

export class WindowReader implements Service {
  readonly name = 'due-window reader';
  private windowLoop: Loop | undefined;
  private planLoop: Loop | undefined;
  private syncChain: Promise<void> = Promise.resolve();
  private readonly changedIds = new Set<string>();
  /** An occurrence may have been lost (database or Redis trouble): the next read catches up. */
  private needsCatchUp = false;
  /**
   * From this time on a read takes the whole window (0: the next one); before it, a read starts
   * after `overdueUpTo`.
   */
  private nextFullReadMs = 0;
  private overdueUpTo: DueKey | null = null;
  /** The rows of the last read, some of which may have come due since. */
  private lastRows: readonly StoredJob[] = [];
  /** An import is being planned (see noteBulkPlanning). */
  private bulkPlanning = false;
  /** Run-now requests since then are still to be read (runMissedTriggers). */
  private missedTriggersSinceMs: number | undefined;

  constructor(private readonly room: WindowReaderDeps) {}

  private get running(): boolean {
    return this.room.lifecycle.state === 'running';
  }

  start(): void {
    const { clock, log, settings } = this.room.deps;
    this.windowLoop = startLoop({
      name: 'due window',
      intervalMs: settings.windowReadIntervalMs ?? DEFAULT_WINDOW_READ_INTERVAL_MS,
      clock,
      log,
      round: async () => {
        if (!this.running) return;
        await this.readWindowNow();
        if (this.missedTriggersSinceMs !== undefined) {
          this.serialise(() => this.readMissedTriggers(), 'missed run-now read');
        }
      },
    });
    this.planLoop = startLoop({
      name: 'planning sweep',
      intervalMs: settings.planIntervalMs ?? DEFAULT_PLAN_INTERVAL_MS,
      clock,
      log,
      round: async () => {
        if (this.running) await this.sweep();
      },
    });
  }

  async stop(): Promise<void> {
    await Promise.all([this.windowLoop?.stop(), this.planLoop?.stop()]);
  }

  /** Resolves once the reads under way are over. */
  idle(): Promise<void> {
    return this.syncChain;
  }

  /** The database's record tells, at the next read, whether any pod ran what this pod may not have. */
  markCatchUp(): void {
    this.needsCatchUp = true;
  }

  /** The read that starts scheduling: one batch of planning first, so new jobs are in it. */
  async readFirst(): Promise<WindowRead> {
    this.room.window.timeline.clear();
    await planBatch(this.room.window, null);
    this.nextFullReadMs = 0;
    return this.serialiseStrict(() => this.read());
  }

  /** Scheduling starts from `read`: nothing is left to catch up before it. */
  begin(read: WindowRead): void {
    this.needsCatchUp = false;
    this.afterRead(read);
  }

  /** Runs the planning sweep now. */
  kickPlanning(): void {
    this.planLoop?.kick();
  }

  /** Jobs named by notifications changed: re-read just those (serialised with the reads). */
  jobsChanged(ids: readonly string[]): void {
    if (!this.running) return;
    if (ids.length > MAX_NOTIFIED_IDS) {
      this.planLoop?.kick();
      this.readWholeWindow();
      return;
    }
    for (const id of ids) this.changedIds.add(id);
    this.serialise(async () => {
      const batch = [...this.changedIds];
      this.changedIds.clear();
      if (batch.length === 0 || !this.running) return;
      // Written by SQL without next_run_at, or re-planned by an edit: plan them now.
      await planBatch(this.room.window, batch);
      this.afterRead(await readJobs(this.room.window, batch));
    }, 'job notification read');
  }

  /** "Run now": one extra occurrence of the job at the given nominal time (pods race as usual). */
  runNow(jobId: string, scheduledAtMs: number): void {
    if (!this.running) return;
    this.serialise(async () => {
      const [occurrence] = await attachJobs(this.room.window, [
        { jobId, tenantId: '', scheduledAtMs, kind: 'manual' },
      ]);
      if (!occurrence?.job) return;
      this.room.dispatcher.offer([{ ...occurrence, tenantId: occurrence.job.job.tenantId }]);
    }, 'run-now read');
  }

  /**
   * The run-now requests since sinceMs (within the catch-up window) that no pod has run: their
   * notifications may have been lost. Offered as any run-now, so the claim decides who runs
   * each, once. A read that fails is tried again with the next read of the window.
   */
  runMissedTriggers(sinceMs: number): void {
    this.missedTriggersSinceMs = Math.min(this.missedTriggersSinceMs ?? sinceMs, sinceMs);
    if (this.running) this.serialise(() => this.readMissedTriggers(), 'missed run-now read');
  }

  private async readMissedTriggers(): Promise<void> {
    const sinceMs = this.missedTriggersSinceMs;
    if (sinceMs === undefined || !this.running) return;
    const missed = await readMissedTriggers(this.room.deps, sinceMs);
    // A later reconnect may have asked for more meanwhile.
    if (this.missedTriggersSinceMs === sinceMs) this.missedTriggersSinceMs = undefined;
    if (!this.running) return;
    const occurrences = await attachJobs(this.room.window, missed);
    this.room.dispatcher.offer(
      occurrences.flatMap((o) => (o.job ? [{ ...o, tenantId: o.job.job.tenantId }] : [])),
    );
  }

  /** Re-reads the window now (notifications may have been lost, e.g. after a reconnect). */
  resync(): void {
    if (!this.running) return;
    this.readWholeWindow();
    this.planLoop?.kick();
  }

  /** One read of the due window; after trouble, planned from the database's record alone. */
  private async readWindowNow(): Promise<void> {
    const catchUp = this.needsCatchUp;
    this.needsCatchUp = false;
    try {
      this.afterRead(
        await this.serialiseStrict(() => {
          if (catchUp) {
            this.room.window.timeline.forgetFired();
            this.nextFullReadMs = 0;
          }
          return this.read();
        }),
      );
    } catch (err) {
      this.needsCatchUp ||= catchUp;
      throw err;
    }
  }

  /** Plans jobs without next_run_at, batch after batch, for a bounded time. */
  private async sweep(): Promise<void> {
    const { clock } = this.room.deps;
    const startedMs = clock.now();
    let planned = 0;
    for (;;) {
      const count = await planBatch(this.room.window, null);
      planned += count;
      if (count < PLAN_BATCH || !this.running) break;
      if (clock.now() - startedMs >= PLAN_BUDGET_MS) {
        this.planLoop?.kick();
        break;
      }
    }
    this.noteBulkPlanning(planned);
    if (planned > 0) this.readWholeWindow();
  }

  /**
   * An import is under way from a round that planned half a batch or more, and over once a round
   * finds nothing: pods sweeping side by side skip each other's locked rows, so a round in the
   * middle of an import may end on a short batch.
   */
  private noteBulkPlanning(planned: number): void {
    const underway = planned >= PLAN_BATCH / 2 ? true : planned === 0 ? false : this.bulkPlanning;
    if (underway === this.bulkPlanning) return;
    this.bulkPlanning = underway;
    this.room.deps.onBulkPlanning?.(underway);
  }

  /** Reads the whole window now. */
  private readWholeWindow(): void {
    this.nextFullReadMs = 0;
    this.windowLoop?.kick();
  }

  /**
   * One read: the whole window when asked, or once per look-ahead (so every job due within it is
   * seen again, whatever happened to it); otherwise only past the overdue rows already handled.
   */
  private async read(): Promise<WindowRead> {
    const nowMs = this.room.deps.clock.now();
    const full = nowMs >= this.nextFullReadMs;
    if (full) this.nextFullReadMs = nowMs + this.room.window.lookaheadMs;
    try {
      const after = full ? null : laterOverdueKey(this.overdueUpTo, this.lastRows, nowMs);
      const scan = await readWindow(this.room.window, after);
      this.overdueUpTo = scan.overdueUpTo;
      this.lastRows = scan.rows;
      return scan;
    } catch (err) {
      if (full) this.nextFullReadMs = 0;
      throw err;
    }
  }

  /** The timeline changed: re-arm the timer, offer the catch-ups, move skipped jobs on. */
  private afterRead(read: WindowRead): void {
    if (!this.running) return;
    const { store, log } = this.room.deps;
    this.room.ticker.start();
    this.room.dispatcher.offer(read.catchUps);
    for (const skip of read.skipped) {
      const next = skip.nextMs === null ? null : new Date(skip.nextMs);
      store.advanceJob(skip.jobId, new Date(skip.pastAtMs), next).catch((err) => {
        log.warn(
          { job_id: skip.jobId, error: errorMessage(err) },
          'cannot move next_run_at past missed occurrences; the next read retries',
        );
      });
    }
  }

  private serialise(body: () => Promise<void>, what: string): void {
    this.syncChain = this.syncChain.then(body).catch((err: unknown) => {
      this.room.deps.log.warn(
        { error: errorMessage(err), task: what },
        'sync failed; the next poll retries',
      );
    });
  }

  private serialiseStrict<T>(body: () => Promise<T>): Promise<T> {
    const result = this.syncChain.then(body);
    this.syncChain = result.then(
      () => {},
      () => {},
    );
    return result;
  }
}
