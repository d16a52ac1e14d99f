// A job as the scheduler reads it: the words the core, the adapters and the API share.
import type { OverlapPolicy } from './vocabulary.js';

/**
 * An enabled job of a live tenant, as the scheduler reads it: what scheduling needs. Its name and
 * prompt come with each claim, so a pod does not hold prompts.
 */
export interface StoredJob {
  id: string;
  tenantId: string;
  schedule: string;
  timezone: string;
  /** Occurrences before this were never due (creation, re-enabling, schedule change). */
  dueFrom: Date;
  /** Changes whenever the definition changes; a different value replaces the pod's copy. */
  updatedAt: Date;
  /**
   * The job's first occurrence not yet claimed (or skipped), as the database knows it: written by
   * the claim, by the planning sweep, and by the API. Null until planned.
   */
  nextRunAt: Date | null;
  /** The job's ends_at: no occurrence after it (absent: none). */
  endsAt?: Date | null;
  /** The job's jitter: each occurrence starts up to this long after its nominal time. */
  jitterMs?: number | null;
  /** What an occurrence does while the job's previous run is in flight (absent: skip). */
  overlap?: OverlapPolicy;
}

/** A job the planning sweep took (next_run_at NULL, row locked until its plan is written). */
export interface UnplannedJob extends StoredJob {
  /** The latest occurrence claimed by any pod since the planning's `since`, if any. */
  lastScheduledAt: Date | null;
}

/** Where a read of the due window stopped: the (next_run_at, id) of its last row. */
export interface DueKey {
  atMs: number;
  id: string;
}
