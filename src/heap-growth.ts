// How far V8 lets the old generation grow past what survived the last full collection. V8 picks
// up to 4x on its own when a process allocates fast, and planning a million-job import does: a
// pod whose live heap is ~30 MB grew to ~150 MB of heap, ~220 MB RSS (docs/benchmarks.md,
// "Memory at a million jobs"). At 1.5x a full collection comes sooner; it marks only the small
// live heap, so the peak stays where 10,000 jobs put it. The bound holds only while the planning
// sweep works through an import: kept on, it cost a W2 burst ~6 % (more full collections of the
// burst's garbage), where V8's own growth is the better trade.
import { setFlagsFromString } from 'node:v8';

const HEAP_GROWING_PERCENT = 50;

export interface HeapGrowth {
  /** False when node was started with its own --heap-growing-percent: it is left alone. */
  readonly managed: boolean;
  /** Bounds the growth (true) or gives V8 its own back (false). */
  setBounded(bounded: boolean): void;
}

export function createHeapGrowth(
  execArgv: readonly string[] = process.execArgv,
  setFlags: (flags: string) => void = setFlagsFromString,
): HeapGrowth {
  const managed = !execArgv.some((arg) => /^--heap[-_]growing[-_]percent\b/.test(arg));
  let current = false;
  return {
    managed,
    setBounded(bounded) {
      if (!managed || bounded === current) return;
      current = bounded;
      setFlags(`--heap-growing-percent=${bounded ? HEAP_GROWING_PERCENT : 0}`);
    },
  };
}
