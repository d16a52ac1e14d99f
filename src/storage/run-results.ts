import { RESULT_INLINE_BYTES, shortResult } from '../domain/result-text.js';
import type { PlacedResult, RefusedResult, ResultStore, RunIds } from '../scheduler/ports.js';
import { objectKey, type ObjectStore } from './object-store.js';
import type { ResultQuota } from './result-quota.js';

/**
 * Where a run's answer lives. Up to RESULT_INLINE_BYTES it is the `result` column itself; a
 * longer one is an object `<tenant>/runs/<job>/<run>.txt`, written before the run is recorded,
 * with its short form (the first RESULT_SHORT_CHARS characters) in the column for lists. The
 * whole job's objects go with the job (`jobResultsPrefix`).
 */

export function runResultKey(ids: RunIds): string {
  return objectKey(ids.tenantId, 'runs', ids.jobId, `${ids.runId}.txt`);
}

/** Every result object of one job (for deletePrefix). */
export function jobResultsPrefix(tenantId: string, jobId: string): string {
  return `${objectKey(tenantId, 'runs', jobId)}/`;
}

/**
 * Puts a long answer in the store (resolving once it is durable) and says what the row holds.
 * Throws the store's error: the caller must not record a reference to an object not written.
 */
export async function placeResult(
  store: ObjectStore,
  ids: RunIds,
  text: string,
  quota?: ResultQuota,
): Promise<PlacedResult | RefusedResult> {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= RESULT_INLINE_BYTES) return { column: text, objectKey: null, bytes };
  const over = await quota?.refusal(ids.tenantId, bytes);
  if (over) {
    return { refused: 'quota', bytes, usedBytes: over.usedBytes, quotaBytes: over.quotaBytes };
  }
  const key = runResultKey(ids);
  await store.put(key, text, { contentType: 'text/plain; charset=utf-8' });
  return { column: shortResult(text), objectKey: key, bytes };
}

/** The whole answer of a run row: the column, or the object it points to (null if gone). */
export async function readWholeResult(
  store: ObjectStore | undefined,
  row: { result: string | null; result_object_key: string | null },
): Promise<string | null> {
  if (row.result_object_key === null) return row.result;
  if (!store) return null;
  const bytes = await store.get(row.result_object_key);
  return bytes === null ? null : bytes.toString('utf8');
}

/**
 * The scheduler's result store (its port in scheduler/ports.ts) over an object store; with a
 * quota, a long answer that would take its tenant past it is refused unwritten.
 */
export function createResultStore(store: ObjectStore, quota?: ResultQuota): ResultStore {
  return {
    place: (ids, text) => placeResult(store, ids, text, quota),
    remove: (key) => store.delete(key),
    removeJob: async (tenantId, jobId) => {
      await store.deletePrefix(jobResultsPrefix(tenantId, jobId));
    },
  };
}
