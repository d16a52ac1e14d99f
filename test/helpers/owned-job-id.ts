// Job ids chosen for the pod that tries their lock first (src/scheduler/owners.ts). Tests that
// check that work is shared need them: with random ids, five jobs all fall to one of three pods
// once in 81 runs, and "more than one pod ran something" would fail with nothing wrong.
import { randomUUID } from 'node:crypto';
import { ownerOf } from '../../src/scheduler/owners.js';

/** A random job id that `ownerOf` gives to `pod` among `podIds`. */
export function jobIdOwnedBy(pod: string, podIds: readonly string[]): string {
  for (;;) {
    const id = randomUUID();
    if (ownerOf(id, podIds, pod) === pod) return id;
  }
}

/** `count` job ids whose owners go round `podIds`, so each pod owns some when count ≥ pods. */
export function jobIdsSpreadOver(podIds: readonly string[], count: number): string[] {
  return Array.from({ length: count }, (_, i) => jobIdOwnedBy(podIds[i % podIds.length]!, podIds));
}
