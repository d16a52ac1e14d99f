import { describe, expect, it } from 'vitest';
import { Fifo } from '../../src/scheduler/fifo.js';
import { OccurrenceQueue, type QueueEntry } from '../../src/scheduler/queue.js';

/** A reproducible pseudo-random sequence (no Math.random in assertions). */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

const ids = (entries: QueueEntry[]) => entries.map((e) => e.jobId);

describe('OccurrenceQueue', () => {
  it('returns due entries earliest first, ties in insertion order', () => {
    const queue = new OccurrenceQueue();
    queue.schedule('c', 300);
    queue.schedule('a', 100);
    queue.schedule('d', 300);
    queue.schedule('b', 200);
    queue.schedule('e', 50);
    expect(queue.size).toBe(5);
    expect(queue.peekDueMs()).toBe(50);
    expect(ids(queue.popDue(1000))).toEqual(['e', 'a', 'b', 'c', 'd']);
    expect(queue.size).toBe(0);
    expect(queue.peekDueMs()).toBeUndefined();
  });

  it('popDue takes only what is due (inclusive) and keeps the rest', () => {
    const queue = new OccurrenceQueue();
    queue.schedule('a', 100);
    queue.schedule('b', 200);
    queue.schedule('c', 201);
    expect(queue.popDue(99)).toEqual([]);
    const due = queue.popDue(200);
    expect(due.map((e) => [e.jobId, e.dueMs])).toEqual([
      ['a', 100],
      ['b', 200],
    ]);
    expect(queue.has('a')).toBe(false);
    expect(queue.has('c')).toBe(true);
    expect(queue.size).toBe(1);
    expect(queue.peekDueMs()).toBe(201);
  });

  it('rescheduling makes the old entry stale, earlier or later', () => {
    const queue = new OccurrenceQueue();
    queue.schedule('a', 100);
    queue.schedule('b', 150);
    queue.schedule('a', 300); // later: the 100 entry must not fire
    expect(queue.size).toBe(2);
    expect(queue.peekDueMs()).toBe(150);
    expect(ids(queue.popDue(200))).toEqual(['b']);
    expect(queue.popDue(299)).toEqual([]);
    queue.schedule('a', 50); // earlier: the 300 entry must not fire again later
    expect(queue.peekDueMs()).toBe(50);
    expect(queue.popDue(1000).map((e) => [e.jobId, e.dueMs])).toEqual([['a', 50]]);
    expect(queue.popDue(10_000)).toEqual([]);
    expect(queue.size).toBe(0);
  });

  it('remove drops a job; it can be scheduled again', () => {
    const queue = new OccurrenceQueue();
    queue.schedule('a', 100);
    queue.schedule('b', 200);
    queue.remove('a');
    queue.remove('missing');
    expect(queue.has('a')).toBe(false);
    expect(queue.size).toBe(1);
    expect(queue.peekDueMs()).toBe(200);
    queue.schedule('a', 250);
    expect(ids(queue.popDue(1000))).toEqual(['b', 'a']);
  });

  it('clear empties it', () => {
    const queue = new OccurrenceQueue();
    queue.schedule('a', 1);
    queue.schedule('b', 2);
    queue.clear();
    expect(queue.size).toBe(0);
    expect(queue.popDue(10)).toEqual([]);
    queue.schedule('a', 5);
    expect(ids(queue.popDue(10))).toEqual(['a']);
  });

  it('holds 100k jobs with reschedules and removals, popping in order exactly once each', () => {
    const random = lcg(42);
    const queue = new OccurrenceQueue();
    const expected = new Map<string, number>();
    const n = 100_000;
    for (let i = 0; i < n; i++) {
      const due = Math.floor(random() * 3_600_000);
      queue.schedule(`job-${i}`, due);
      expected.set(`job-${i}`, due);
    }
    for (let i = 0; i < n; i += 2) {
      const due = Math.floor(random() * 3_600_000);
      queue.schedule(`job-${i}`, due);
      expected.set(`job-${i}`, due);
    }
    for (let i = 0; i < n; i += 7) {
      queue.remove(`job-${i}`);
      expected.delete(`job-${i}`);
    }
    expect(queue.size).toBe(expected.size);

    const seen = new Map<string, number>();
    const problems: string[] = [];
    let last = -Infinity;
    for (let now = 0; now <= 3_600_000; now += 60_000) {
      for (const entry of queue.popDue(now)) {
        if (entry.dueMs < last || entry.dueMs > now) problems.push(`${entry.jobId} out of order`);
        if (seen.has(entry.jobId)) problems.push(`${entry.jobId} popped twice`);
        last = entry.dueMs;
        seen.set(entry.jobId, entry.dueMs);
      }
    }
    expect(problems).toEqual([]);
    expect(queue.size).toBe(0);
    expect(seen.size).toBe(expected.size);
    const wrong = [...expected].filter(([id, due]) => seen.get(id) !== due);
    expect(wrong).toEqual([]);
  });
});

describe('Fifo', () => {
  it('keeps order across its compaction', () => {
    const fifo = new Fifo<number>();
    const out: number[] = [];
    for (let i = 0; i < 5000; i++) {
      fifo.push(i);
      if (i % 3 === 0) out.push(fifo.shift() as number);
    }
    expect(fifo.length).toBe(5000 - out.length);
    for (let item = fifo.shift(); item !== undefined; item = fifo.shift()) out.push(item);
    expect(out).toEqual(Array.from({ length: 5000 }, (_, i) => i));
    expect(fifo.length).toBe(0);
    expect(fifo.shift()).toBeUndefined();
  });
});
