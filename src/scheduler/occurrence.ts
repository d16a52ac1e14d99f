import type { ParsedSchedule } from '../schedule/schedule.js';
import type { OccurrenceKind } from '../domain/vocabulary.js';
import type { ClaimedRun } from '../domain/run.js';
import type { StoredJob } from '../domain/job.js';

/** How the occurrence reached this pod: src/domain/vocabulary.ts, OCCURRENCE_KINDS. */
export type { OccurrenceKind };

/** One nominal instant of one job: the unit the scheduler fires, claims and runs. */
export interface Occurrence {
  jobId: string;
  tenantId: string;
  scheduledAtMs: number;
  kind: OccurrenceKind;
  /** Set for kinds "adopted" and "queued": the run already claimed. */
  adopted?: ClaimedRun;
  /** The job as it was when the occurrence was fired (what running it needs). */
  job?: LoadedJob;
  /**
   * The job's following occurrence, written as its next_run_at by the claim (scheduled and
   * catch-up occurrences); null when the claim must leave next_run_at alone.
   */
  nextMs?: number | null;
}

/** A job as the pod holds it: the stored definition and its parsed schedule. */
export interface LoadedJob {
  job: StoredJob;
  schedule: ParsedSchedule;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
