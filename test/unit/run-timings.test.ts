// The lag of an occurrence is its first attempt's; the waits between attempts are apart.
import { describe, expect, it } from 'vitest';
import { measureAttemptTimings } from '../../src/jobs/run-timings.js';

const scheduledAt = new Date('2026-03-02T08:00:00.000Z');

describe('measureAttemptTimings', () => {
  it('measures a first attempt from its claim', () => {
    const timings = measureAttemptTimings({
      scheduledAt,
      startedAt: new Date('2026-03-02T08:00:00.012Z'),
      status: 'success',
      previousSpans: [],
    });
    expect(timings).toEqual({
      firstStartedAt: new Date('2026-03-02T08:00:00.012Z'),
      startLagMs: 12,
      retryWaitMs: 0,
    });
  });

  it('keeps the back-off between attempts out of the lag', () => {
    const timings = measureAttemptTimings({
      scheduledAt,
      startedAt: new Date('2026-03-02T08:00:31.500Z'),
      status: 'success',
      previousSpans: [
        ['2026-03-02T08:00:00.011Z', '2026-03-02T08:00:00.400Z'],
        ['2026-03-02T08:00:30.400Z', '2026-03-02T08:00:30.500Z'],
      ],
    });
    expect(timings.startLagMs).toBe(11);
    expect(timings.retryWaitMs).toBe(30_000 + 1000);
  });

  it('has no lag while the first attempt waits in the queue', () => {
    const timings = measureAttemptTimings({
      scheduledAt,
      startedAt: new Date('2026-03-02T07:59:00.000Z'),
      status: 'queued',
      previousSpans: [],
    });
    expect(timings).toEqual({ firstStartedAt: null, startLagMs: null, retryWaitMs: 0 });
  });

  it('counts no wait for a retry still in the queue', () => {
    const timings = measureAttemptTimings({
      scheduledAt,
      startedAt: new Date('2026-03-02T08:00:00.011Z'),
      status: 'queued',
      previousSpans: [['2026-03-02T08:00:00.011Z', '2026-03-02T08:00:00.400Z']],
    });
    expect(timings.startLagMs).toBe(11);
    expect(timings.retryWaitMs).toBe(0);
  });
});
