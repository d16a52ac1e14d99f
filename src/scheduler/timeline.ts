import { jitterOffsetMs } from '../schedule/jitter.js';
import type { Logger } from '../log.js';
import type { ParsedSchedule } from '../schedule/schedule.js';
import type { SchedulerMetrics } from './metrics.js';
import type { LoadedJob, Occurrence } from './occurrence.js';
import { planDueJob } from './plan.js';
import type { StoredJob } from '../domain/job.js';
import { OccurrenceQueue } from './queue.js';
import type { ScheduleCache } from './schedule-cache.js';

// A late timer (a stalled process) fires a job's latest due occurrence once and counts the rest;
// counting stops here so a per-second job stalled for a day costs no 86,400 steps.
const MAX_SKIPPED_COUNTED = 1000;
// Reports of invalid schedules remembered (each job's is logged once per version).
const MAX_INVALID_REMEMBERED = 10_000;

/** A missed occurrence the pod decided not to run (outside the catch-up window): to advance. */
export interface SkippedAhead {
  jobId: string;
  pastAtMs: number;
  nextMs: number | null;
}

/**
 * The jobs of the due window a pod holds and their next occurrences: one priority queue behind
 * one timer. The window reader and notifications write it, the timer reads it. It holds only
 * jobs whose next_run_at was due within the look-ahead when last read, plus, per job, the last
 * occurrence this pod fired (so a re-read before the claim landed does not fire it again).
 */
export class Timeline {
  private readonly jobs = new Map<string, LoadedJob>();
  private readonly queue = new OccurrenceQueue();
  /** What each held job was planned from: its version and next_run_at as read. */
  private readonly plannedFrom = new Map<string, string>();
  private readonly lastFired = new Map<string, number>();
  /** Nominal time of each queued occurrence that fires later than it (the job's jitter). */
  private readonly nominalOf = new Map<string, number>();
  /** Jobs whose stored schedule does not parse, by updatedAt, so each is reported once. */
  private readonly invalid = new Map<string, number>();

  constructor(
    private readonly log: Logger,
    private readonly metrics: SchedulerMetrics,
    private readonly schedules: ScheduleCache,
  ) {}

  get size(): number {
    return this.jobs.size;
  }

  get(jobId: string): LoadedJob | undefined {
    return this.jobs.get(jobId);
  }

  /**
   * Takes in jobs read from the due window (or named by a notification). A job new here, or whose
   * version or next_run_at changed, is (re)planned; an overdue one yields its catch-up. With
   * `complete` (the whole window was read), held jobs not in `jobs` are dropped: their
   * next_run_at moved past the window (claimed), or they are disabled or gone.
   */
  apply(
    jobs: readonly StoredJob[],
    nowMs: number,
    catchupWindowMs: number,
    complete: boolean,
  ): { catchUps: Occurrence[]; skipped: SkippedAhead[] } {
    const catchUps: Occurrence[] = [];
    const skipped: SkippedAhead[] = [];
    const seen = complete ? new Set<string>() : null;
    for (const job of jobs) {
      seen?.add(job.id);
      if (job.nextRunAt === null) {
        this.remove(job.id);
        continue;
      }
      const from = `${job.updatedAt.getTime()}|${job.nextRunAt.getTime()}`;
      if (this.plannedFrom.get(job.id) === from) continue;
      const schedule = this.parse(job);
      if (!schedule) {
        this.remove(job.id);
        continue;
      }
      const loaded: LoadedJob = { job, schedule };
      const lastFired = this.lastFired.get(job.id);
      const due = { nextRunAt: job.nextRunAt, dueFrom: job.dueFrom };
      const awaiting = awaitsJitter(job, job.nextRunAt.getTime(), lastFired, nowMs);
      const plan = awaiting
        ? { catchUp: null, missed: 0, next: job.nextRunAt }
        : planDueJob(schedule, due, lastFired, nowMs, catchupWindowMs);
      this.jobs.set(job.id, loaded);
      this.plannedFrom.set(job.id, from);
      if (plan.next) this.place(job, plan.next.getTime());
      else this.queue.remove(job.id);
      if (plan.missed > 0) this.metrics.missed.inc(plan.missed);
      const nextMs = plan.next?.getTime() ?? null;
      if (plan.catchUp) {
        const scheduledAtMs = plan.catchUp.getTime();
        this.lastFired.set(job.id, scheduledAtMs);
        catchUps.push({
          jobId: job.id,
          tenantId: job.tenantId,
          scheduledAtMs,
          kind: 'catchup',
          job: loaded,
          nextMs,
        });
      } else if (
        !awaiting &&
        job.nextRunAt.getTime() <= nowMs &&
        (lastFired ?? -Infinity) < job.nextRunAt.getTime()
      ) {
        // Overdue, and all it missed is outside the catch-up window: the database moves on too.
        skipped.push({ jobId: job.id, pastAtMs: nowMs, nextMs });
      }
    }
    if (seen) for (const id of this.jobs.keys()) if (!seen.has(id)) this.remove(id);
    this.metrics.jobsLoaded.set(this.jobs.size);
    return { catchUps, skipped };
  }

  remove(jobId: string): void {
    this.jobs.delete(jobId);
    this.plannedFrom.delete(jobId);
    this.lastFired.delete(jobId);
    this.nominalOf.delete(jobId);
    this.queue.remove(jobId);
    this.metrics.jobsLoaded.set(this.jobs.size);
  }

  /**
   * Occurrences this pod fired may not have been claimed (database or Redis trouble): forget
   * which, so the next read plans every job from the database's record alone.
   */
  forgetFired(): void {
    this.lastFired.clear();
    this.plannedFrom.clear();
  }

  /** Forgets everything (paused); the next read of the window fills it again. */
  clear(): void {
    this.jobs.clear();
    this.plannedFrom.clear();
    this.lastFired.clear();
    this.nominalOf.clear();
    this.queue.clear();
    this.metrics.jobsLoaded.set(0);
  }

  peekDueMs(): number | undefined {
    return this.queue.peekDueMs();
  }

  /** Pops the due occurrences and queues each job's next one. */
  takeDue(nowMs: number): Occurrence[] {
    const occurrences: Occurrence[] = [];
    const nextAfter = memoizeNext();
    for (const entry of this.queue.popDue(nowMs)) {
      const loaded = this.jobs.get(entry.jobId);
      if (!loaded) continue;
      let occurrenceMs = this.nominalOf.get(entry.jobId) ?? entry.dueMs;
      this.nominalOf.delete(entry.jobId);
      let next = nextAfter(loaded.schedule, occurrenceMs);
      let skipped = 0;
      while (next !== null && next <= nowMs && skipped < MAX_SKIPPED_COUNTED) {
        occurrenceMs = next;
        next = nextAfter(loaded.schedule, next);
        skipped += 1;
      }
      if (skipped > 0) this.metrics.missed.inc(skipped);
      if (next !== null) this.place(loaded.job, next);
      this.lastFired.set(entry.jobId, occurrenceMs);
      occurrences.push({
        jobId: entry.jobId,
        tenantId: loaded.job.tenantId,
        scheduledAtMs: occurrenceMs,
        kind: 'scheduled',
        job: loaded,
        nextMs: next,
      });
    }
    return occurrences;
  }

  /** Queues the job's occurrence at `nominalMs`, to fire after its jitter offset. */
  private place(job: StoredJob, nominalMs: number): void {
    const offsetMs = jitterOffsetMs(job.id, nominalMs, job.jitterMs ?? 0);
    if (offsetMs > 0) this.nominalOf.set(job.id, nominalMs);
    else this.nominalOf.delete(job.id);
    this.queue.schedule(job.id, nominalMs + offsetMs);
  }

  private parse(job: StoredJob): ParsedSchedule | undefined {
    const parsed = this.schedules.parse(job.schedule, job.timezone, job.endsAt);
    if (typeof parsed !== 'string') {
      this.invalid.delete(job.id);
      return parsed;
    }
    this.reportInvalid(job, parsed);
    return undefined;
  }

  private reportInvalid(job: StoredJob, message: string): void {
    if (this.invalid.get(job.id) === job.updatedAt.getTime()) return;
    if (this.invalid.size >= MAX_INVALID_REMEMBERED) this.invalid.clear();
    this.invalid.set(job.id, job.updatedAt.getTime());
    this.log.warn(
      { job_id: job.id, tenant_id: job.tenantId, error: message },
      'job skipped: invalid schedule',
    );
  }
}

/**
 * Whether the job's next_run_at has passed but its jittered start has not: a pod that learns of
 * the occurrence late (the claim's notification was slow) still starts it at its offset, where
 * every other pod does, instead of catching it up at once or skipping it as overdue.
 */
function awaitsJitter(
  job: StoredJob,
  nominalMs: number,
  lastFiredMs: number | undefined,
  nowMs: number,
): boolean {
  if (!job.jitterMs || nominalMs > nowMs || (lastFiredMs ?? -Infinity) >= nominalMs) return false;
  return nowMs < nominalMs + jitterOffsetMs(job.id, nominalMs, job.jitterMs);
}

/**
 * Jobs due together often share a schedule (10,000 jobs "at second 0"): compute each distinct
 * schedule's next occurrence once per timer tick.
 */
function memoizeNext(): (schedule: ParsedSchedule, afterMs: number) => number | null {
  const cache = new Map<string, number | null>();
  return (schedule, afterMs) => {
    const key = `${afterMs}|${schedule.timezone}|${schedule.source}|${schedule.endsAtMs ?? ''}`;
    let next = cache.get(key);
    if (next === undefined) {
      next = schedule.nextAfter(new Date(afterMs))?.getTime() ?? null;
      cache.set(key, next);
    }
    return next;
  };
}
