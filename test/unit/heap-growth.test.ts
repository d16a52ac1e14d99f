import { describe, expect, it } from 'vitest';
import { boundHeapGrowth } from '../../src/heap-growth.js';

describe('boundHeapGrowth', () => {
  it('bounds the heap growth of a process started without a value of its own', () => {
    expect(boundHeapGrowth(['--enable-source-maps'])).toBe(true);
  });

  it("keeps the operator's value, in either spelling", () => {
    expect(boundHeapGrowth(['--heap-growing-percent=0'])).toBe(false);
    expect(boundHeapGrowth(['--heap_growing_percent=20'])).toBe(false);
  });
});
