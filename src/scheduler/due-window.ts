// What a pod reads from the database to schedule: the due window (jobs whose next_run_at falls
// within the look-ahead, in bounded pages through the next_run_at index) and the planning sweep
// (jobs whose next_run_at is NULL: written by SQL, imported, or re-planned after an edit).
import type { Logger } from '../log.js';
import type { SchedulerMetrics } from './metrics.js';
import type { Occurrence } from './occurrence.js';
import { planNextRunAt } from './plan.js';
import type { Clock } from '../services/clock.js';
import type { DueKey, StoredJob, UnplannedJob } from '../domain/job.js';
import type { JobStore } from './ports.js';
import type { ScheduleCache } from './schedule-cache.js';
import type { SkippedAhead, Timeline } from './timeline.js';

/** Rows per page of the due window, and pages per read (a read holds at most their product). */
export const WINDOW_PAGE_ROWS = 1000;
export const WINDOW_MAX_PAGES = 50;
/** Jobs planned per transaction of the sweep (each batch blocks the event loop only briefly). */
export const PLAN_BATCH = 1000;

export interface WindowDeps {
  store: JobStore;
  clock: Clock;
  log: Logger;
  metrics: SchedulerMetrics;
  timeline: Timeline;
  schedules: ScheduleCache;
  catchupWindowMs: number;
  lookaheadMs: number;
  prepareTenants?: ((tenantIds: readonly string[]) => void) | undefined;
}

export interface WindowRead {
  catchUps: Occurrence[];
  skipped: SkippedAhead[];
}

export interface WindowScan extends WindowRead {
  /**
   * The key of the last row that was already due when read (NULL if none): every row up to it
   * has been acted on, so a later read may start after it (see readWindow's `after`).
   */
  overdueUpTo: DueKey | null;
  /** The rows read, in key order (see laterOverdueKey). */
  rows: readonly StoredJob[];
}

/**
 * Reads the jobs due within the look-ahead (overdue ones first) and hands them to the timeline.
 * With `after`, only rows past that key: the overdue rows a previous read handed over are not
 * read again. During a backlog (a burst waiting for slots) they are thousands, unchanged until
 * claimed, and a claim moves a row past the key, where this read sees it. A read that started
 * at a key or hit the page limit is incomplete: it drops nothing it did not see.
 */
export async function readWindow(
  deps: WindowDeps,
  after: DueKey | null = null,
): Promise<WindowScan> {
  const { store, clock } = deps;
  const startedMs = clock.now();
  const untilMs = startedMs + deps.lookaheadMs;
  const rows: StoredJob[] = [];
  let key = after;
  let complete = false;
  for (let page = 0; page < WINDOW_MAX_PAGES; page++) {
    const batch = await store.dueJobs(untilMs, key, WINDOW_PAGE_ROWS);
    rows.push(...batch);
    const last = batch.at(-1);
    if (batch.length < WINDOW_PAGE_ROWS || !last?.nextRunAt) {
      complete = after === null;
      break;
    }
    key = { atMs: last.nextRunAt.getTime(), id: last.id };
  }
  const read = deps.timeline.apply(rows, clock.now(), deps.catchupWindowMs, complete);
  if (deps.prepareTenants && rows.length > 0) {
    deps.prepareTenants([...new Set(rows.map((job) => job.tenantId))]);
  }
  deps.metrics.syncDuration.observe((clock.now() - startedMs) / 1000);
  return { ...read, overdueUpTo: lastOverdue(rows, startedMs) ?? after, rows };
}

/**
 * Where the next read may start: after `overdueUpTo`, or after the last row of the previous read
 * that has come due since (`previous`, read ahead of its instant), when those rows fill a page
 * or more. They were handed over too (queued for their instant), and change only as the overdue
 * ones do; in a burst they are every row due at its second, which each pod would otherwise read
 * again, page after page, at that second, while its event loop is busiest. Fewer than a page cost
 * no statement of their own, and reading them again keeps the read complete (it drops the held
 * jobs it no longer finds, such as one deleted while its notification was lost).
 */
export function laterOverdueKey(
  overdueUpTo: DueKey | null,
  previous: readonly StoredJob[],
  nowMs: number,
): DueKey | null {
  let cameDue = 0;
  let since: StoredJob | undefined;
  for (const row of previous) {
    const atMs = row.nextRunAt?.getTime();
    if (atMs === undefined || atMs > nowMs) break;
    if (overdueUpTo && !isAfter(atMs, row.id, overdueUpTo)) continue;
    cameDue += 1;
    since = row;
  }
  if (!since?.nextRunAt || cameDue < WINDOW_PAGE_ROWS) return overdueUpTo;
  return { atMs: since.nextRunAt.getTime(), id: since.id };
}

function isAfter(atMs: number, id: string, key: DueKey): boolean {
  return atMs > key.atMs || (atMs === key.atMs && id > key.id);
}

/** The key of the last row (in read order) whose next_run_at was at or before `atMs`. */
function lastOverdue(rows: readonly StoredJob[], atMs: number): DueKey | null {
  for (let i = rows.length - 1; i >= 0; i--) {
    const row = rows[i] as StoredJob;
    const nextMs = row.nextRunAt?.getTime();
    if (nextMs !== undefined && nextMs <= atMs) return { atMs: nextMs, id: row.id };
  }
  return null;
}

/**
 * Jobs named by notifications: those now due within the look-ahead are (re)planned, the others
 * leave the timeline (edited beyond the window, paused, deleted).
 */
export async function readJobs(deps: WindowDeps, ids: readonly string[]): Promise<WindowRead> {
  const { clock, timeline } = deps;
  const jobs = await deps.store.loadJobs(ids);
  const horizonMs = clock.now() + deps.lookaheadMs;
  const due = jobs.filter((job) => job.nextRunAt !== null && job.nextRunAt.getTime() <= horizonMs);
  const dueIds = new Set(due.map((job) => job.id));
  for (const id of ids) if (!dueIds.has(id)) timeline.remove(id);
  return timeline.apply(due, clock.now(), deps.catchupWindowMs, false);
}

/**
 * One batch of the planning sweep: jobs without next_run_at (all, or those of `ids`) get one,
 * computed here with the schedule parser and written in the same transaction that took them.
 * The store hands jobs over in schedule order: each distinct (schedule, zone, end, due_from,
 * last claim) is parsed and computed once per batch, however many jobs share it (an import's
 * jobs mostly do). Returns how many were planned (a full batch means there may be more).
 */
export function planBatch(deps: WindowDeps, ids: readonly string[] | null): Promise<number> {
  const since = new Date(deps.clock.now() - deps.catchupWindowMs);
  return deps.store.planJobs(ids, PLAN_BATCH, since, (jobs) => {
    const nowMs = deps.clock.now();
    const decided = new Map<string, Decision>();
    return jobs.map((job) => {
      const key = [
        job.timezone,
        job.endsAt?.getTime() ?? '',
        job.dueFrom.getTime(),
        job.lastScheduledAt?.getTime() ?? '',
        job.schedule,
      ].join('|');
      let decision = decided.get(key);
      if (decision === undefined) {
        decision = decide(deps, job, nowMs);
        decided.set(key, decision);
      }
      if (typeof decision === 'string') {
        // Parked until its definition changes: reported once per definition.
        deps.log.warn(
          { job_id: job.id, tenant_id: job.tenantId, error: decision },
          'job skipped: invalid schedule',
        );
        return null;
      }
      if (decision.missed > 0) deps.metrics.missed.inc(decision.missed);
      return decision.nextRunAt;
    });
  });
}

/** A job's next_run_at and the occurrences it skipped, or the parser's message. */
type Decision = { nextRunAt: Date | null; missed: number } | string;

function decide(deps: WindowDeps, job: UnplannedJob, nowMs: number): Decision {
  const schedule = deps.schedules.parse(job.schedule, job.timezone, job.endsAt);
  if (typeof schedule === 'string') return schedule;
  return planNextRunAt(schedule, job, nowMs, deps.catchupWindowMs);
}
