import { objectKey, type ObjectStore } from './object-store.js';

/**
 * Where a run's answer lives. Up to RESULT_INLINE_BYTES it is the `result` column itself; a
 * longer one is an object `<tenant>/runs/<job>/<run>.txt`, written before the run is recorded,
 * with its short form (the first RESULT_SHORT_CHARS characters) in the column for lists. The
 * whole job's objects go with the job (`jobResultsPrefix`).
 */
export const RESULT_INLINE_BYTES = 8192;
export const RESULT_SHORT_CHARS = 4096;

export interface RunIds {
  tenantId: string;
  jobId: string;
  runId: string;
}

export interface PlacedResult {
  /** What goes into the `result` column: the whole answer, or its short form. */
  column: string;
  /** Set when the whole answer is in the object store. */
  objectKey: string | null;
  /** Size of the whole answer in UTF-8 bytes. */
  bytes: number;
}

export function runResultKey(ids: RunIds): string {
  return objectKey(ids.tenantId, 'runs', ids.jobId, `${ids.runId}.txt`);
}

/** Every result object of one job (for deletePrefix). */
export function jobResultsPrefix(tenantId: string, jobId: string): string {
  return `${objectKey(tenantId, 'runs', jobId)}/`;
}

/** The short form lists show: the first 4,096 characters, at most 8 KiB. */
export function shortResult(text: string): string {
  let end = Math.min(text.length, RESULT_SHORT_CHARS);
  // Not between the two halves of a surrogate pair (an emoji, say).
  const last = text.charCodeAt(end - 1);
  if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return cutUtf8(text.slice(0, end), RESULT_INLINE_BYTES);
}

/**
 * Puts a long answer in the store (resolving once it is durable) and says what the row holds.
 * Throws the store's error: the caller must not record a reference to an object not written.
 */
export async function placeResult(
  store: ObjectStore,
  ids: RunIds,
  text: string,
): Promise<PlacedResult> {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= RESULT_INLINE_BYTES) return { column: text, objectKey: null, bytes };
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

/** The longest prefix of `text` that is at most maxBytes in UTF-8, never half a character. */
export function cutUtf8(text: string, maxBytes: number): string {
  // Every UTF-16 unit is at most 3 UTF-8 bytes: short texts need no encoding.
  if (text.length * 3 <= maxBytes || Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  const bytes = Buffer.from(text, 'utf8');
  let end = maxBytes;
  // Back up to the first byte of a character (continuation bytes are 10xxxxxx).
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end).toString('utf8');
}
