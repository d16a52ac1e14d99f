// Jitter is a pure function of the job id and the nominal time: every pod computes the same
// offset, always within [0, jitter], and a fleet of jobs at the same minute spreads out. The
// timeline fires at nominal + offset while the occurrence keeps its nominal time.
import { describe, expect, it } from 'vitest';
import { jitterOffsetMs } from '../../src/schedule/jitter.js';
import { ScheduleCache } from '../../src/scheduler/schedule-cache.js';
import { Timeline } from '../../src/scheduler/timeline.js';
import { createSchedulerMetrics } from '../../src/scheduler/metrics.js';
import { Registry } from 'prom-client';
import { silentLogger } from '../helpers/log.js';

const NOMINAL = Date.UTC(2030, 0, 1, 9, 0, 0);
// An hourly job due at NOMINAL with a 10-minute jitter.
const job = {
  id: '7d0c5b8e-3f2a-4c1d-9e8b-1a2b3c4d5e6f',
  tenantId: '00000000-0000-0000-0000-000000000001',
  schedule: '0 * * * *',
  timezone: 'UTC',
  dueFrom: new Date(NOMINAL - 3_600_000),
  updatedAt: new Date(NOMINAL - 3_600_000),
  nextRunAt: new Date(NOMINAL),
  jitterMs: 600_000,
};

const newTimeline = () =>
  new Timeline(silentLogger(), createSchedulerMetrics(new Registry()), new ScheduleCache());

describe('jitter', () => {
  it('is deterministic, within [0, jitter], and spreads jobs due together', () => {
    const ids = Array.from(
      { length: 500 },
      (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    );
    const offsets = ids.map((id) => jitterOffsetMs(id, NOMINAL, 60_000));
    expect(ids.map((id) => jitterOffsetMs(id, NOMINAL, 60_000))).toEqual(offsets);
    for (const offset of offsets) {
      expect(Number.isInteger(offset)).toBe(true);
      expect(offset).toBeGreaterThanOrEqual(0);
      expect(offset).toBeLessThanOrEqual(60_000);
    }
    // Spread: every 10-second bucket of the minute holds some jobs.
    const buckets = new Set(offsets.map((o) => Math.min(5, Math.floor(o / 10_000))));
    expect(buckets.size).toBe(6);
    // Each occurrence gets its own offset.
    expect(jitterOffsetMs(ids[0]!, NOMINAL + 3_600_000, 60_000)).not.toBe(offsets[0]);
    expect(jitterOffsetMs(ids[0]!, NOMINAL, 0)).toBe(0);
  });

  it('the timeline fires at nominal + offset; the occurrence keeps its nominal time', () => {
    const timeline = newTimeline();
    timeline.apply([job], NOMINAL - 1000, 0, true);
    const offset = jitterOffsetMs(job.id, NOMINAL, 600_000);
    expect(offset).toBeGreaterThan(0);
    expect(timeline.peekDueMs()).toBe(NOMINAL + offset);
    expect(timeline.takeDue(NOMINAL + offset - 1)).toEqual([]);
    const due = timeline.takeDue(NOMINAL + offset);
    expect(due).toHaveLength(1);
    expect(due[0]).toMatchObject({
      jobId: job.id,
      tenantId: job.tenantId,
      scheduledAtMs: NOMINAL,
      kind: 'scheduled',
    });
    const nextNominal = NOMINAL + 3_600_000;
    expect(timeline.peekDueMs()).toBe(nextNominal + jitterOffsetMs(job.id, nextNominal, 600_000));
  });

  // A pod that first reads the job between its nominal time and its jittered time (the claim's
  // notification reached it late) must wait for the offset too, neither catching the occurrence
  // up at once nor skipping it as overdue.
  it('a job read after its nominal time but before its offset waits for the offset', () => {
    const offset = jitterOffsetMs(job.id, NOMINAL, 600_000);
    expect(offset).toBeGreaterThan(1000);
    for (const catchupWindowMs of [0, 3_600_000]) {
      const timeline = newTimeline();
      const readAtMs = NOMINAL + offset - 1000;
      expect(timeline.apply([job], readAtMs, catchupWindowMs, true)).toEqual({
        catchUps: [],
        skipped: [],
      });
      expect(timeline.peekDueMs()).toBe(NOMINAL + offset);
      expect(timeline.takeDue(NOMINAL + offset)).toMatchObject([
        { jobId: job.id, scheduledAtMs: NOMINAL, kind: 'scheduled' },
      ]);
    }
    // Read after its offset, it is overdue as before: caught up at once when the window allows.
    const late = newTimeline();
    const { catchUps } = late.apply([job], NOMINAL + offset + 1000, 3_600_000, true);
    expect(catchUps).toMatchObject([{ jobId: job.id, scheduledAtMs: NOMINAL, kind: 'catchup' }]);
  });
});
