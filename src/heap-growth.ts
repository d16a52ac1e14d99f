// How far V8 lets the old generation grow past what survived the last full collection. V8 picks
// up to 4x on its own when a process allocates fast, and planning a million-job import does: a
// pod whose live heap is ~30 MB grew to ~150 MB of heap, ~220 MB RSS (docs/benchmarks.md,
// "Memory at a million jobs"). At 1.5x a full collection comes sooner; it marks only the small
// live heap, so it costs little, and the peak stays where 10,000 jobs put it.
import { setFlagsFromString } from 'node:v8';

export const HEAP_GROWING_PERCENT = 50;

/**
 * Applies the growth bound, unless node was started with its own (--heap-growing-percent=N).
 * Returns whether it did.
 */
export function boundHeapGrowth(execArgv: readonly string[] = process.execArgv): boolean {
  if (execArgv.some((arg) => /^--heap[-_]growing[-_]percent\b/.test(arg))) return false;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}
