import { describe, expect, it } from 'vitest';
import { createHeapGrowth } from '../../src/heap-growth.js';

describe('createHeapGrowth', () => {
  it('bounds the growth while asked, gives V8 its own back after, and sets each change once', () => {
    const set: string[] = [];
    const growth = createHeapGrowth(['--enable-source-maps'], (flags) => set.push(flags));
    expect(growth.managed).toBe(true);
    growth.setBounded(false);
    growth.setBounded(true);
    growth.setBounded(true);
    growth.setBounded(false);
    expect(set).toEqual(['--heap-growing-percent=50', '--heap-growing-percent=0']);
  });

  it('sets the real V8 flag without harm', () => {
    const growth = createHeapGrowth([]);
    growth.setBounded(true);
    growth.setBounded(false);
    expect(growth.managed).toBe(true);
  });

  it("keeps the operator's value, in either spelling: nothing is set", () => {
    for (const flag of ['--heap-growing-percent=0', '--heap_growing_percent=20']) {
      const set: string[] = [];
      const growth = createHeapGrowth([flag], (flags) => set.push(flags));
      growth.setBounded(true);
      expect(growth.managed).toBe(false);
      expect(set).toEqual([]);
    }
  });
});
