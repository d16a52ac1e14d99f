import { describe, expect, it } from 'vitest';
import {
  decideHere,
  decideOnHeld,
  LOCK_POLL_MAX_MS,
  LOCK_POLL_MIN_MS,
  lockKeyOf,
  lockPollDelayMs,
  policyOf,
  waitDeadlineMs,
  waitsForLock,
} from '../../src/scheduler/overlap.js';
import type { LoadedJob } from '../../src/scheduler/occurrence.js';
import type { LockHolder } from '../../src/scheduler/ports.js';

const T1 = 1_000_000;
const T2 = T1 + 60_000;
const T3 = T2 + 60_000;
const running = (scheduledAtMs: number, podId = 'pod-b'): LockHolder => ({
  state: 'run',
  scheduledAtMs,
  podId,
});

describe('overlap policy: an occurrence with runs of its job in flight on this pod', () => {
  it('starts when nothing of the job is in flight, whatever the policy', () => {
    for (const policy of ['skip', 'buffer_one', 'allow_all', 'cancel_other'] as const) {
      expect(decideHere(policy, [], T1)).toBe('start');
    }
  });

  it('skip: a later occurrence is skipped, a copy of the running one or an older one ignored', () => {
    expect(decideHere('skip', [T1], T2)).toBe('skip');
    expect(decideHere('skip', [T1], T1)).toBe('ignore');
    expect(decideHere('skip', [T2], T1)).toBe('ignore');
  });

  it('allow_all: every other occurrence starts; the same one is never started twice', () => {
    expect(decideHere('allow_all', [T1], T2)).toBe('start');
    expect(decideHere('allow_all', [T1, T2], T3)).toBe('start');
    expect(decideHere('allow_all', [T1, T2], T2)).toBe('ignore');
  });

  it('buffer_one and cancel_other: one may wait beside the running one; a third is skipped', () => {
    for (const policy of ['buffer_one', 'cancel_other'] as const) {
      expect(decideHere(policy, [T1], T2)).toBe('start');
      expect(decideHere(policy, [T1, T2], T3)).toBe('skip');
      expect(decideHere(policy, [T1], T1)).toBe('ignore');
      expect(decideHere(policy, [T2], T1)).toBe('ignore');
    }
  });
});

describe('overlap policy: the job lock is held', () => {
  it('an earlier run holding it makes buffer_one wait and cancel_other cancel', () => {
    expect(decideOnHeld('buffer_one', running(T1), T2)).toBe('wait');
    expect(decideOnHeld('cancel_other', running(T1), T2)).toBe('cancel');
    expect(decideOnHeld('skip', running(T1), T2)).toBe('skip');
    expect(decideOnHeld('allow_all', running(T1), T2)).toBe('skip');
  });

  it('a done marker, a later or the same occurrence, or an unreadable holder is a skip', () => {
    for (const policy of ['buffer_one', 'cancel_other'] as const) {
      expect(decideOnHeld(policy, { state: 'done', scheduledAtMs: T1, podId: 'a' }, T2)).toBe(
        'skip',
      );
      expect(decideOnHeld(policy, running(T2), T2)).toBe('skip');
      expect(decideOnHeld(policy, running(T3), T2)).toBe('skip');
      expect(decideOnHeld(policy, null, T2)).toBe('skip');
    }
  });

  it('only allow_all locks each occurrence apart', () => {
    expect(lockKeyOf('allow_all', 'job', T1)).toBe(`job@${T1}`);
    expect(lockKeyOf('allow_all', 'job', T2)).not.toBe(lockKeyOf('allow_all', 'job', T1));
    for (const policy of ['skip', 'buffer_one', 'cancel_other'] as const) {
      expect(lockKeyOf(policy, 'job', T1)).toBeUndefined();
    }
  });

  it('only buffer_one and cancel_other claim first and wait for the lock', () => {
    expect(waitsForLock('buffer_one')).toBe(true);
    expect(waitsForLock('cancel_other')).toBe(true);
    expect(waitsForLock('skip')).toBe(false);
    expect(waitsForLock('allow_all')).toBe(false);
  });
});

describe('overlap policy: waiting for the lock', () => {
  it('tries again quickly at first, then at a capped pace', () => {
    const delays = Array.from({ length: 12 }, (_, i) => lockPollDelayMs(i));
    expect(delays[0]).toBe(LOCK_POLL_MIN_MS);
    for (let i = 1; i < delays.length; i++) {
      expect(delays[i]).toBeGreaterThanOrEqual(delays[i - 1]!);
    }
    expect(Math.max(...delays)).toBe(LOCK_POLL_MAX_MS);
    expect(lockPollDelayMs(10_000)).toBe(LOCK_POLL_MAX_MS);
  });

  it('gives up once the running one could no longer hold the lock', () => {
    expect(waitDeadlineMs(5000, 360_000)).toBe(365_000);
  });

  it('a job without a policy is skip', () => {
    expect(policyOf(undefined)).toBe('skip');
    const job = { job: { overlap: 'allow_all' } } as unknown as LoadedJob;
    expect(policyOf(job)).toBe('allow_all');
    expect(policyOf({ job: {} } as unknown as LoadedJob)).toBe('skip');
  });
});
