// The dashboard's daylight-saving notes, against the server's own calendar standing in for
// POST /v1/cron-jobs/preview (at most 100 fire times an answer, as the API gives).
import { describe, expect, it, vi } from 'vitest';
import { nextOccurrences } from '../../src/schedule/schedule.js';

interface DstNote {
  key: string;
  text: string;
  firesMs: number[];
}
// The dashboard's code is typechecked by web/tsconfig.json (DOM, bundler resolution), not by the
// server's: a path in a variable keeps the server's tsc from following the import.
const WEB_SCHEDULE = '../../web/src/schedule.ts';
const { findDstNotes } = (await import(WEB_SCHEDULE)) as {
  findDstNotes: (
    schedule: string,
    zone: string,
    nowMs: number,
    signal: AbortSignal,
  ) => Promise<DstNote[]>;
};

const MAX_PREVIEW = 100;

vi.mock('../../web/src/api', () => ({
  api: (method: string, path: string, body: Record<string, unknown>) => {
    expect([method, path]).toEqual(['POST', '/v1/cron-jobs/preview']);
    const { schedule, timezone, count, from } = body as {
      schedule: string;
      timezone: string;
      count: number;
      from: string;
    };
    expect(count).toBeLessThanOrEqual(MAX_PREVIEW);
    const next = nextOccurrences({ schedule, timezone }, new Date(from), count);
    return Promise.resolve({ schedule, timezone, next: next.map((d) => d.toISOString()) });
  },
}));

const notesFor = (schedule: string, zone: string, now: string) =>
  findDstNotes(schedule, zone, Date.parse(now), new AbortController().signal);

const minutesOf = (hour: string) =>
  Array.from({ length: 60 }, (_, m) => `${hour}:${String(m).padStart(2, '0')}`);

describe('findDstNotes', () => {
  it('names the whole repeated hour for an every-minute job when clocks go back', async () => {
    // Europe/Berlin goes back from 03:00 to 02:00 on 25 October 2026.
    const notes = await notesFor('* * * * *', 'Europe/Berlin', '2026-09-01T00:00:00Z');
    const back = notes.find((note) => note.key.startsWith('b'));
    expect(back).toBeDefined();
    const repeated = /fires at (.*) twice that day/.exec(back?.text ?? '')?.[1]?.split(', ');
    expect(repeated).toEqual(minutesOf('02'));
    // Both passes of the hour, every minute of each.
    expect(back?.firesMs).toHaveLength(120);
  });

  it('names each repeated time of a sparser job once', async () => {
    const notes = await notesFor('*/15 * * * *', 'America/New_York', '2026-10-01T00:00:00Z');
    const back = notes.find((note) => note.key.startsWith('b'));
    expect(back?.text).toContain('fires at 01:00, 01:15, 01:30, 01:45 twice that day');
    expect(back?.firesMs).toHaveLength(8);
  });

  it('says a daily job in the repeated hour fires once', async () => {
    const notes = await notesFor('30 2 * * *', 'Europe/Berlin', '2026-09-01T00:00:00Z');
    const back = notes.find((note) => note.key.startsWith('b'));
    expect(back?.text).toContain('fires at 02:30 once that day');
  });
});
