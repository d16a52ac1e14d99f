import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { createHeapGrowth } from '../../src/heap-growth.js';

describe('createHeapGrowth', () => {
  it('manages the growth of a process started without a value of its own', () => {
    const growth = createHeapGrowth(['--enable-source-maps']);
    expect(growth.managed).toBe(true);
    growth.setBounded(true);
    growth.setBounded(false);
    // The process goes on allocating and collecting with the flag set and cleared.
    expect(getHeapStatistics().used_heap_size).toBeGreaterThan(0);
  });

  it("keeps the operator's value, in either spelling", () => {
    expect(createHeapGrowth(['--heap-growing-percent=0']).managed).toBe(false);
    expect(createHeapGrowth(['--heap_growing_percent=20']).managed).toBe(false);
  });
});
