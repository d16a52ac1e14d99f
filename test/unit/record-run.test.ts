// Recording a run with a long answer: the object is in the store before the row is finished,
// a run that could not be recorded leaves no object, and a store that refuses the write fails the
// run (result_not_stored) instead of recording a reference to nothing.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SchedulerEvents } from '../../src/scheduler/events.js';
import { createSchedulerMetrics } from '../../src/scheduler/metrics.js';
import type { PipelineDeps } from '../../src/scheduler/pipeline.js';
import { systemClock } from '../../src/services/clock.js';
import { type JobStore } from '../../src/scheduler/ports.js';
import { type RunOutcome } from '../../src/domain/run.js';
import { recordRun } from '../../src/scheduler/record-run.js';
import { DiskObjectStore } from '../../src/storage/disk-store.js';
import { createResultStore } from '../../src/storage/run-results.js';
import { ObjectStoreError, type ObjectStore } from '../../src/storage/object-store.js';
import { silentLogger } from '../helpers/log.js';

const TENANT = '0b5f3c3e-1d2a-4c6e-9f00-00000000000a';
const occurrence = {
  jobId: 'job-1',
  tenantId: TENANT,
  scheduledAtMs: 0,
  kind: 'scheduled' as const,
};
const answer = 'y'.repeat(100 * 1024);
const key = (runId: string) => `${TENANT}/runs/job-1/${runId}.txt`;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'hermesx-record-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function depsWith(
  results: ObjectStore,
  finishRun: (runId: string, outcome: RunOutcome) => Promise<boolean>,
): PipelineDeps {
  return {
    store: {
      finishRun: (runId, outcome) => finishRun(runId, outcome),
    } as Partial<JobStore> as JobStore,
    locks: undefined as never,
    runner: undefined as never,
    clock: systemClock,
    log: silentLogger(),
    metrics: createSchedulerMetrics(new Registry()),
    settings: {
      podId: 'pod-a',
      pollIntervalMs: 1000,
      execTimeoutMs: 1000,
      lockTtlMs: 2000,
      maxConcurrentRuns: 1,
      catchupWindowMs: 0,
      livenessIntervalMs: 1000,
      livenessTtlMs: 3000,
      recoveryIntervalMs: 1000,
    },
    events: new SchedulerEvents(),
    results: createResultStore(results),
    lookup: () => undefined,
  };
}

const call = {
  outcome: { success: true, result: answer, error: null, errorKind: null, attempts: 1 },
  startedMs: 0,
  finishedMs: 10,
};

describe('recordRun with a long answer', () => {
  it('writes the object before it finishes the row, and points the row at it', async () => {
    const store = new DiskObjectStore(dir);
    let seen: { object: string | undefined; outcome: RunOutcome } | undefined;
    const deps = depsWith(store, async (runId, outcome) => {
      seen = { object: (await store.get(key(runId)))?.toString(), outcome };
      return true;
    });
    const result = await recordRun(deps, occurrence, 'run-1', call);
    expect(result).toMatchObject({ kind: 'ran', recorded: true });
    expect(seen?.object).toBe(answer);
    expect(seen?.outcome).toMatchObject({
      success: true,
      result: answer.slice(0, 4096),
      resultObjectKey: key('run-1'),
      resultBytes: 100 * 1024,
    });
  });

  it('deletes the object of a run it could not record (recovery took it over)', async () => {
    const store = new DiskObjectStore(dir);
    const deps = depsWith(store, () => Promise.resolve(false));
    const result = await recordRun(deps, occurrence, 'run-2', call);
    expect(result).toMatchObject({ kind: 'ran', recorded: false });
    expect(await store.get(key('run-2'))).toBeNull();
  });

  it('fails the run as result_not_stored when the store refuses, keeping the short form', async () => {
    const refusing: ObjectStore = {
      description: 'refusing',
      maxObjectBytes: 1 << 24,
      put: () => Promise.reject(new ObjectStoreError('disk full')),
      get: () => Promise.resolve(null),
      delete: () => Promise.resolve(),
      deletePrefix: () => Promise.resolve(0),
      list: () => Promise.resolve({ objects: [], nextStartAfter: null }),
      close: () => {},
    };
    let recorded: RunOutcome | undefined;
    const deps = depsWith(refusing, (_runId, outcome) => {
      recorded = outcome;
      return Promise.resolve(true);
    });
    await recordRun(deps, occurrence, 'run-3', call);
    expect(recorded).toMatchObject({
      success: false,
      errorKind: 'result_not_stored',
      result: answer.slice(0, 4096),
      resultTruncated: true,
    });
    expect(recorded?.resultObjectKey ?? null).toBeNull();
    expect(recorded?.error).toContain('disk full');
  });

  it('keeps an answer of up to 8 KiB inline, with nothing in the store', async () => {
    const store = new DiskObjectStore(dir);
    let recorded: RunOutcome | undefined;
    const deps = depsWith(store, (_runId, outcome) => {
      recorded = outcome;
      return Promise.resolve(true);
    });
    const small = { ...call, outcome: { ...call.outcome, result: 'é'.repeat(4096) } };
    await recordRun(deps, occurrence, 'run-4', small);
    expect(recorded).toMatchObject({
      result: 'é'.repeat(4096),
      resultObjectKey: null,
      resultBytes: 8192,
    });
    expect(await store.get(key('run-4'))).toBeNull();
  });
});
