// Where an incremental read of the due window starts: past the rows already handed over, and past
// the rows of the previous read that have come due since only when they fill a page (a burst).
import { describe, expect, it } from 'vitest';
import { laterOverdueKey, WINDOW_PAGE_ROWS } from '../../src/scheduler/due-window.js';
import type { StoredJob } from '../../src/domain/job.js';

const SECOND = Date.UTC(2030, 0, 1, 9, 0, 0);
const idOf = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
const rowAt = (atMs: number, i: number) =>
  ({ id: idOf(i), nextRunAt: new Date(atMs) }) as StoredJob;

describe('laterOverdueKey', () => {
  const burst = Array.from({ length: WINDOW_PAGE_ROWS }, (_, i) => rowAt(SECOND, i));
  const later = rowAt(SECOND + 2000, WINDOW_PAGE_ROWS);

  it('starts past a page or more of rows that came due since the previous read', () => {
    expect(laterOverdueKey(null, [...burst, later], SECOND + 500)).toEqual({
      atMs: SECOND,
      id: idOf(WINDOW_PAGE_ROWS - 1),
    });
    // Not yet due: read again.
    expect(laterOverdueKey(null, [...burst, later], SECOND - 1)).toBeNull();
  });

  it('reads fewer than a page again, so the read stays complete', () => {
    expect(laterOverdueKey(null, burst.slice(1), SECOND + 500)).toBeNull();
    const overdue = { atMs: SECOND - 60_000, id: idOf(0) };
    expect(laterOverdueKey(overdue, burst.slice(1), SECOND + 500)).toBe(overdue);
  });

  it('counts only rows past the overdue key, and never moves the key back', () => {
    const handedOver = { atMs: SECOND, id: idOf(10) };
    // 989 rows past the key came due: under a page.
    expect(laterOverdueKey(handedOver, burst, SECOND + 500)).toBe(handedOver);
    const ahead = { atMs: SECOND + 1000, id: idOf(0) };
    expect(laterOverdueKey(ahead, burst, SECOND + 500)).toBe(ahead);
  });
});
