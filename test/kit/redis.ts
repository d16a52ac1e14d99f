// One in-memory Redis shared by a simulated deployment's pods: each pod's LockStore runs what the
// Lua scripts of src/redis/lock.ts do (test/contract/lock-store.contract.ts checks both alike).
import type { LockAttempt, LockHolder, LockStore } from '../../src/scheduler/ports.js';
import type { Clock } from '../../src/services/clock.js';
import { livenessKey, lockKey, parseHolder } from '../../src/redis/lock.js';
import { lockValueOf } from '../../src/domain/vocabulary.js';

const DONE_MARKER_TTL_MS = 120_000;

export type LockMethod = keyof LockStore;

/**
 * One Redis shared by every pod. `forPod(podId)` is a pod's LockStore (in production each pod has
 * its own client, and its pod id goes into the lock values it writes).
 */
export class FakeRedis {
  /** When false every call rejects and ping() resolves false. */
  available = true;
  /** Only these calls reject (a blip under one command). */
  readonly failing = new Set<LockMethod>();
  readonly calls: Record<LockMethod, number> = {
    acquire: 0,
    release: 0,
    releaseHeldBy: 0,
    publishLiveness: 0,
    livePods: 0,
    ping: 0,
  };
  /** Acquire attempts by job id. */
  readonly acquiresByJob = new Map<string, number>();
  private readonly keys = new Map<string, { value: string; expiresAtMs: number }>();
  /** The peers registry: scheduling pods and when their registration expires. */
  readonly peers = new Map<string, number>();
  private tokenSeq = 0;

  constructor(private readonly clock: Clock) {}

  static lockKey = lockKey;
  static livenessKey = livenessKey;

  get(key: string): string | null {
    const entry = this.keys.get(key);
    if (!entry) return null;
    if (entry.expiresAtMs <= this.clock.now()) {
      this.keys.delete(key);
      return null;
    }
    return entry.value;
  }

  set(key: string, value: string, ttlMs: number): void {
    this.keys.set(key, { value, expiresAtMs: this.clock.now() + ttlMs });
  }

  del(key: string): void {
    this.keys.delete(key);
  }

  /** Who holds a job's lock now, or null when the key is absent. */
  holder(jobId: string): LockHolder | null {
    const value = this.get(FakeRedis.lockKey(jobId));
    return value === null ? null : parseHolder(value);
  }

  /** Remaining time to live of a key in ms, or null when absent. */
  ttl(key: string): number | null {
    if (this.get(key) === null) return null;
    const entry = this.keys.get(key);
    return entry ? entry.expiresAtMs - this.clock.now() : null;
  }

  forPod(podId: string): LockStore {
    return {
      acquire: async (jobId, scheduledAtMs, ttlMs, options = {}): Promise<LockAttempt> => {
        this.enter('acquire');
        this.acquiresByJob.set(jobId, (this.acquiresByJob.get(jobId) ?? 0) + 1);
        const key = FakeRedis.lockKey(options.key ?? jobId);
        const token = lockValueOf('run', scheduledAtMs, (++this.tokenSeq).toString(16), podId);
        const current = this.get(key);
        if (current !== null) {
          const match = /^([A-Za-z]+)\|(\d+)\|/.exec(current);
          const free =
            match?.[1] === 'done' && (options.overDone || Number(match[2]) < scheduledAtMs);
          if (!free) return { acquired: false, holder: parseHolder(current) };
        }
        this.set(key, token, ttlMs);
        return { acquired: true, token };
      },
      release: async (jobId, token, doneAtMs, lockName) => {
        this.enter('release');
        const key = FakeRedis.lockKey(lockName ?? jobId);
        if (this.get(key) !== token) return;
        if (doneAtMs === null) this.del(key);
        else this.set(key, lockValueOf('done', doneAtMs, '-', podId), DONE_MARKER_TTL_MS);
      },
      releaseHeldBy: async (jobId, holderPodId) => {
        this.enter('releaseHeldBy');
        const key = FakeRedis.lockKey(jobId);
        const current = this.get(key);
        if (current === null) return;
        const match = /^([A-Za-z]+)\|\d+\|[^|]*\|(.*)$/.exec(current);
        if (match?.[1] === 'run' && match[2] === holderPodId) this.del(key);
      },
      publishLiveness: async (ownPodId, ttlMs, schedules) => {
        this.enter('publishLiveness');
        this.set(FakeRedis.livenessKey(ownPodId), String(this.clock.now()), ttlMs);
        const nowMs = this.clock.now();
        if (schedules) this.peers.set(ownPodId, nowMs + ttlMs);
        else this.peers.delete(ownPodId);
        for (const [peer, untilMs] of this.peers) if (untilMs <= nowMs) this.peers.delete(peer);
        return [...this.peers.keys()].sort();
      },
      livePods: async (podIds) => {
        this.enter('livePods');
        return new Set(podIds.filter((id) => this.get(FakeRedis.livenessKey(id)) !== null));
      },
      ping: async () => {
        this.calls.ping += 1;
        return this.available;
      },
    };
  }

  private enter(method: LockMethod): void {
    this.calls[method] += 1;
    if (!this.available || this.failing.has(method))
      throw new Error('connect ECONNREFUSED (fake redis unavailable)');
  }
}
