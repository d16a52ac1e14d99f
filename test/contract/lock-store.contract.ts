// What every LockStore must do: the fake Redis of the unit tests and the Lua scripts of
// src/redis/lock.ts both run these cases, so the fake cannot drift from the scripts.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { LockStore } from '../../src/scheduler/ports.js';

export interface LockStoreHarness {
  /** The lock store of a pod; pods of one harness share one Redis and one installation. */
  forPod(podId: string): LockStore;
}

export function describeLockStoreContract(name: string, setup: () => LockStoreHarness): void {
  describe(`LockStore contract: ${name}`, () => {
    it('takes a lock once per occurrence; a done marker frees it for later occurrences only', async () => {
      const h = setup();
      const a = h.forPod('pod-a');
      const b = h.forPod('pod-b');
      const job = randomUUID();
      const first = await a.acquire(job, 1000, 60_000);
      if (!first.acquired) throw new Error('first acquire refused');
      expect(await b.acquire(job, 1000, 60_000)).toEqual({
        acquired: false,
        holder: { state: 'run', scheduledAtMs: 1000, podId: 'pod-a' },
      });
      expect((await b.acquire(job, 2000, 60_000)).acquired).toBe(false);
      await b.release(job, 'not-the-token', 1000);
      expect((await b.acquire(job, 2000, 60_000)).acquired).toBe(false);
      await a.release(job, first.token, 1000);
      expect(await b.acquire(job, 1000, 60_000)).toEqual({
        acquired: false,
        holder: { state: 'done', scheduledAtMs: 1000, podId: 'pod-a' },
      });
      const later = await b.acquire(job, 2000, 60_000);
      expect(later.acquired).toBe(true);
      if (later.acquired) await b.release(job, later.token, null);
      expect((await a.acquire(job, 2000, 60_000)).acquired).toBe(true);
    });

    it('frees a lock held by a named pod only while that pod holds it', async () => {
      const h = setup();
      const a = h.forPod('pod-a');
      const b = h.forPod('pod-b');
      const job = randomUUID();
      const held = await a.acquire(job, 1000, 60_000);
      expect(held.acquired).toBe(true);
      await b.releaseHeldBy(job, 'pod-c');
      expect((await b.acquire(job, 2000, 60_000)).acquired).toBe(false);
      await b.releaseHeldBy(job, 'pod-a');
      expect((await b.acquire(job, 2000, 60_000)).acquired).toBe(true);
      // A done marker is nobody's to free.
      const other = randomUUID();
      const lock = await a.acquire(other, 1000, 60_000);
      if (lock.acquired) await a.release(other, lock.token, 1000);
      await b.releaseHeldBy(other, 'pod-a');
      expect((await b.acquire(other, 1000, 60_000)).acquired).toBe(false);
    });

    it('answers live pods and the scheduling peers', async () => {
      const h = setup();
      const [a, b] = [h.forPod('pod-a'), h.forPod('pod-b')];
      expect(await a.publishLiveness('pod-a', 60_000, true)).toEqual(['pod-a']);
      expect(await b.publishLiveness('pod-b', 60_000, false)).toEqual(['pod-a']);
      expect(await b.publishLiveness('pod-b', 60_000, true)).toEqual(['pod-a', 'pod-b']);
      expect(await a.livePods(['pod-a', 'pod-b', 'pod-never'])).toEqual(
        new Set(['pod-a', 'pod-b']),
      );
      expect(await a.livePods([])).toEqual(new Set());
      expect(await a.publishLiveness('pod-a', 60_000, false)).toEqual(['pod-b']);
      expect(await a.ping()).toBe(true);
    });
  });
}
