import { describe, expect, it } from 'vitest';
import { Batcher } from '../../src/db/batch.js';

/** A batch runner whose calls the test completes by hand. */
function manualRunner() {
  const calls: {
    items: number[];
    resolve: (outs: string[]) => void;
    reject: (err: Error) => void;
  }[] = [];
  const run = (items: number[]) =>
    new Promise<string[]>((resolve, reject) => calls.push({ items, resolve, reject }));
  return { calls, run };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('Batcher', () => {
  it('sends calls of one event-loop turn as one batch, each caller getting its own result', async () => {
    const { calls, run } = manualRunner();
    const batcher = new Batcher(run);
    const results = [1, 2, 3].map((n) => batcher.add(n));
    await turn();
    expect(calls.map((c) => c.items)).toEqual([[1, 2, 3]]);
    calls[0]?.resolve(['a', 'b', 'c']);
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c']);
  });

  it('keeps one batch in flight: later calls wait and go together as the next batch', async () => {
    const { calls, run } = manualRunner();
    const batcher = new Batcher(run);
    const first = batcher.add(1);
    await turn();
    const later = [2, 3].map((n) => batcher.add(n));
    await turn();
    const last = batcher.add(4);
    await turn();
    expect(calls).toHaveLength(1);
    calls[0]?.resolve(['one']);
    expect(await first).toBe('one');
    // The next batch goes once the first one has settled: a turn for that, a turn for the flush.
    await turn();
    await turn();
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3, 4]]);
    calls[1]?.resolve(['two', 'three', 'four']);
    expect(await Promise.all([...later, last])).toEqual(['two', 'three', 'four']);
  });

  it('splits batches at the maximum size and rejects every caller of a failed batch', async () => {
    const { calls, run } = manualRunner();
    const batcher = new Batcher(run, 2);
    const results = [1, 2, 3].map((n) => batcher.add(n));
    await turn();
    expect(calls.map((c) => c.items)).toEqual([[1, 2]]);
    calls[0]?.reject(new Error('database unavailable'));
    await expect(results[0]).rejects.toThrow('database unavailable');
    await expect(results[1]).rejects.toThrow('database unavailable');
    await turn();
    await turn();
    expect(calls.map((c) => c.items)).toEqual([[1, 2], [3]]);
    calls[1]?.resolve(['c']);
    expect(await results[2]).toBe('c');
  });

  it('turns a runner that throws synchronously into rejections, and carries on', async () => {
    let fail = true;
    const batcher = new Batcher<number, number>((items) => {
      if (fail) throw new Error('bad input');
      return Promise.resolve(items.map((n) => n * 2));
    });
    await expect(batcher.add(1)).rejects.toThrow('bad input');
    fail = false;
    expect(await batcher.add(2)).toBe(4);
  });
});
