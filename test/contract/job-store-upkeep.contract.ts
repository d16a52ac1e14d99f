// The JobStore contract, bookkeeping around runs: a running run's progress (noteProgress) and the
// run history's upkeep (maintainRunHistory), as far as both backends have it.
import { expect, it } from 'vitest';
import type { AttemptRecord } from '../../src/domain/run.js';
import { at, runIdOf, success, type JobStoreHarness } from './job-store-harness.js';

const log: AttemptRecord[] = [
  { startedAt: '2030-01-01T00:01:00.000Z', durationMs: 1200, outcome: 'retried_throttled' },
  { startedAt: '2030-01-01T00:01:02.000Z', durationMs: null, outcome: null },
];

export function describeUpkeepCases(setup: () => JobStoreHarness): void {
  it('noteProgress moves the attempts of a running run of the pod, never back', async () => {
    const h = setup();
    const a = h.storeFor('pod-a');
    const runId = runIdOf(await a.claimRun(await h.addJob(), at(1), 'pod-a'));
    await a.noteProgress(runId, 'pod-a', 2, log); // claimed, not running yet
    expect(await h.run(runId)).toMatchObject({ status: 'claimed', attempts: 0 });
    expect(await a.markSent(runId, 'pod-a')).toBe(true);
    await a.noteProgress(runId, 'pod-b', 2, log);
    expect(await h.run(runId)).toMatchObject({ attempts: 1 });
    expect(await h.attempts(runId)).toMatchObject({ attemptLog: null });
    await a.noteProgress(runId, 'pod-a', 2, log);
    expect(await h.run(runId)).toMatchObject({ status: 'running', attempts: 2 });
    expect(await h.attempts(runId)).toMatchObject({ attemptLog: log });
    await a.noteProgress(runId, 'pod-a', 1, log.slice(0, 1));
    expect(await h.run(runId)).toMatchObject({ attempts: 2 });
    expect(await h.attempts(runId)).toMatchObject({ attemptLog: log.slice(0, 1) });
    expect(await a.finishRun(runId, { ...success, attempts: 3 }, 'pod-a')).toBe('recorded');
    await a.noteProgress(runId, 'pod-a', 5, log);
    expect(await h.run(runId)).toMatchObject({ status: 'success', attempts: 3 });
  });

  it('maintainRunHistory keeps the days ahead once: a second round has nothing to do', async () => {
    const h = setup();
    const a = h.storeFor('pod-a');
    const first = await a.maintainRunHistory(7, 1000);
    expect(first.created).toBeGreaterThanOrEqual(0);
    expect(first.purgedJobs).toEqual([]);
    expect(await a.maintainRunHistory(7, 1000)).toEqual({
      created: 0,
      dropped: 0,
      deleted: 0,
      purgedJobs: [],
    });
    // One more day ahead: one more partition, once.
    expect(await a.maintainRunHistory(8, 1000)).toMatchObject({ created: 1, dropped: 0 });
    expect(await a.maintainRunHistory(8, 1000)).toMatchObject({ created: 0, dropped: 0 });
  });
}
