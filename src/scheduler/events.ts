import { EventEmitter } from 'node:events';
import type { ErrorKind, SkipReason } from '../domain/vocabulary.js';

/** Why an occurrence did not run on this pod: src/domain/vocabulary.ts, SKIP_REASONS. */
export type { SkipReason };

export interface SchedulerEventMap {
  claimed: [{ jobId: string; runId: string; scheduledAtMs: number }];
  recorded: [
    {
      jobId: string;
      runId: string;
      scheduledAtMs: number;
      status: 'success' | 'failed';
      errorKind: ErrorKind | null;
      recorded: boolean;
    },
  ];
  skipped: [{ jobId: string; scheduledAtMs: number; reason: SkipReason }];
  recovered: [
    { runId: string; jobId: string; action: 'failed' | 'adopted' | 'requeued'; reason: string },
  ];
}

/** The scheduler's named events, for observers (tests, metrics): nothing in the scheduler listens. */
export class SchedulerEvents extends EventEmitter<SchedulerEventMap> {}
