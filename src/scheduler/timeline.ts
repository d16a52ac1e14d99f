import type { Logger } from '../log.js';
import { jitterOffsetMs } from '../jobs/jitter.js';
import { parseSchedule, type ParsedSchedule } from '../jobs/schedule.js';
import type { SchedulerMetrics } from './metrics.js';
import type { LoadedJob, Occurrence } from './occurrence.js';
import { planJob } from './plan.js';
import type { StoredJob } from './ports.js';
import { OccurrenceQueue } from './queue.js';

// A late timer (a stalled process) fires a job's latest due occurrence once and counts the rest;
// counting stops here so a per-second job stalled for a day costs no 86,400 steps.
const MAX_SKIPPED_COUNTED = 1000;

/**
 * The jobs a pod holds and their next occurrences: one priority queue behind one timer. The sync
 * writes it, the timer reads it; nothing else does.
 */
export class Timeline {
  private readonly jobs = new Map<string, LoadedJob>();
  private readonly queue = new OccurrenceQueue();
  /** Jobs whose stored schedule does not parse, by updatedAt, so each is reported once. */
  private readonly invalid = new Map<string, number>();
  /** Nominal time of each queued occurrence that fires later than it (the job's jitter). */
  private readonly nominalOf = new Map<string, number>();

  constructor(
    private readonly log: Logger,
    private readonly metrics: SchedulerMetrics,
  ) {}

  get size(): number {
    return this.jobs.size;
  }

  get(jobId: string): LoadedJob | undefined {
    return this.jobs.get(jobId);
  }

  /** The stored version (updatedAt, ms) of a held job. */
  versionOf(jobId: string): number | undefined {
    return this.jobs.get(jobId)?.job.updatedAt.getTime();
  }

  ids(): string[] {
    return [...this.jobs.keys()];
  }

  /**
   * Takes in loaded jobs: new or changed ones (all of them with `replan`, after an outage) are
   * re-planned against the database's record. Returns the missed occurrences to catch up.
   */
  apply(jobs: readonly StoredJob[], nowMs: number, catchupWindowMs: number, replan: boolean) {
    const catchUps: Occurrence[] = [];
    for (const job of jobs) {
      if (!replan && this.versionOf(job.id) === job.updatedAt.getTime()) continue;
      const parsed = parseSchedule({
        schedule: job.schedule,
        timezone: job.timezone,
        endsAt: job.endsAt,
      });
      if (!parsed.ok) {
        this.reportInvalid(job, parsed.message);
        this.remove(job.id);
        continue;
      }
      this.invalid.delete(job.id);
      const plan = planJob(parsed.schedule, job, nowMs, catchupWindowMs);
      this.jobs.set(job.id, { job, schedule: parsed.schedule });
      if (plan.next) this.place(job, plan.next.getTime());
      else this.queue.remove(job.id);
      if (plan.missed > 0) this.metrics.missed.inc(plan.missed);
      if (plan.catchUp) {
        const scheduledAtMs = plan.catchUp.getTime();
        catchUps.push({ jobId: job.id, tenantId: job.tenantId, scheduledAtMs, kind: 'catchup' });
      }
    }
    this.metrics.jobsLoaded.set(this.jobs.size);
    return catchUps;
  }

  remove(jobId: string): void {
    this.jobs.delete(jobId);
    this.nominalOf.delete(jobId);
    this.queue.remove(jobId);
    this.metrics.jobsLoaded.set(this.jobs.size);
  }

  /** Forgets the queued occurrences (paused); a sync with `replan` fills it again. */
  clearQueue(): void {
    this.queue.clear();
    this.nominalOf.clear();
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
      occurrences.push({
        jobId: entry.jobId,
        tenantId: loaded.job.tenantId,
        scheduledAtMs: occurrenceMs,
        kind: 'scheduled',
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

  private reportInvalid(job: StoredJob, message: string): void {
    if (this.invalid.get(job.id) === job.updatedAt.getTime()) return;
    this.invalid.set(job.id, job.updatedAt.getTime());
    this.log.warn(
      { job_id: job.id, tenant_id: job.tenantId, error: message },
      'job skipped: invalid schedule',
    );
  }
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
