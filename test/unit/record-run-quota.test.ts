// Recording a long answer its tenant's quota of stored result bytes has no room for: the run
// fails (result_quota) with the short form kept and an error that names the quota and its
// settings, and nothing is written to the object store.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunOutcome } from '../../src/domain/run.js';
import { SchedulerEvents } from '../../src/scheduler/events.js';
import { createSchedulerMetrics } from '../../src/scheduler/metrics.js';
import type { PipelineDeps } from '../../src/scheduler/pipeline.js';
import type { JobStore } from '../../src/scheduler/ports.js';
import { recordRun } from '../../src/scheduler/record-run.js';
import { systemClock } from '../../src/services/clock.js';
import { DiskObjectStore } from '../../src/storage/disk-store.js';
import { createResultStore } from '../../src/storage/run-results.js';
import { silentLogger } from '../helpers/log.js';

const TENANT = '0b5f3c3e-1d2a-4c6e-9f00-00000000000c';
const answer = 'q'.repeat(20 * 1024);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'hermesx-record-quota-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

it('fails the run as result_quota, keeps the short form and writes no object', async () => {
  let recorded: RunOutcome | undefined;
  const deps = {
    store: {
      finishRun: (_runId: string, outcome: RunOutcome) => {
        recorded = outcome;
        return Promise.resolve('recorded' as const);
      },
    } as Partial<JobStore> as JobStore,
    clock: systemClock,
    log: silentLogger(),
    metrics: createSchedulerMetrics(new Registry()),
    settings: { podId: 'pod-a' },
    events: new SchedulerEvents(),
    results: createResultStore(new DiskObjectStore(dir), {
      refusal: (tenantId) =>
        Promise.resolve({ tenantId, usedBytes: 1_000_000, quotaBytes: 1_010_000 }),
    }),
  } as Partial<PipelineDeps> as PipelineDeps;
  const occurrence = { jobId: 'job-q', tenantId: TENANT, scheduledAtMs: 0, kind: 'scheduled' };
  const result = await recordRun(deps, occurrence as Parameters<typeof recordRun>[1], 'run-q', {
    outcome: { success: true, result: answer, error: null, errorKind: null, attempts: 1 },
    startedMs: 0,
    finishedMs: 10,
  });
  expect(result).toMatchObject({ kind: 'ran', recorded: true });
  expect(recorded).toMatchObject({
    success: false,
    errorKind: 'result_quota',
    result: answer.slice(0, 4096),
    resultBytes: 4096,
    resultTruncated: true,
  });
  expect(recorded?.resultObjectKey ?? null).toBeNull();
  expect(recorded?.error).toBe(
    `the answer (${20 * 1024} bytes) was not stored: this tenant's stored run results ` +
      "(1000000 bytes) would pass its quota of 1010000 bytes (the tenant's result_bytes_quota, " +
      'else TENANT_RESULT_BYTES_QUOTA); its first 4096 characters are kept. Stored results are ' +
      'freed as runs leave the history (run_retention_days).',
  );
  expect(await readdir(dir)).toEqual([]);
});
