import cronstrue from 'cronstrue';
import { api, type Preview } from './api';
import { formatDay, offsetMinutes, wallTime } from './format';
import { SCHEDULE_MACROS } from '../../src/schedule/schedule-macros.js';

// What a schedule means in words, and where daylight saving changes when it fires.

/** "At 09:00 AM, Monday through Friday", or a plain note for what cronstrue cannot read. */
export function describeSchedule(schedule: string): string {
  const text = stripZonePrefix(schedule).trim();
  const every = /^@every\s+(\S+)$/i.exec(text);
  if (every) return `Every ${every[1]}`;
  try {
    return cronstrue.toString(SCHEDULE_MACROS[text.toLowerCase()] ?? text, {
      use24HourTimeFormat: true,
      verbose: false,
    });
  } catch {
    return '';
  }
}

export function stripZonePrefix(schedule: string): string {
  return schedule.replace(/^\s*(CRON_TZ|TZ)=\S*\s+/i, '');
}

export interface Transition {
  /** The instant the offset changes. */
  atMs: number;
  beforeMin: number;
  afterMin: number;
}

/** The zone's offset changes in the next `days` days (binary search to the minute). */
export function findTransitions(zone: string, fromMs: number, days = 370): Transition[] {
  const found: Transition[] = [];
  const dayMs = 86_400_000;
  let previous = offsetMinutes(fromMs, zone);
  for (let t = fromMs + dayMs; t <= fromMs + days * dayMs; t += dayMs) {
    const current = offsetMinutes(t, zone);
    if (current === previous) continue;
    let lo = t - dayMs;
    let hi = t;
    while (hi - lo > 60_000) {
      const mid = lo + Math.floor((hi - lo) / 2);
      if (offsetMinutes(mid, zone) === previous) lo = mid;
      else hi = mid;
    }
    found.push({ atMs: Math.floor(hi / 60_000) * 60_000, beforeMin: previous, afterMin: current });
    previous = current;
  }
  return found;
}

export interface DstNote {
  key: string;
  text: string;
  /** Fire times (ms) that the change affects. */
  firesMs: number[];
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * For each daylight-saving change in the next year: does the schedule have wall times in the
 * skipped or repeated hour? The server's own calendar answers, twice: in UTC (which has no DST,
 * so it gives the schedule's wall-clock pattern) and in the job's zone (what really happens).
 */
export async function findDstNotes(
  schedule: string,
  zone: string,
  nowMs: number,
  signal: AbortSignal,
): Promise<DstNote[]> {
  const notes: DstNote[] = [];
  const pattern = stripZonePrefix(schedule);
  for (const transition of findTransitions(zone, nowMs).slice(0, 2)) {
    if (signal.aborted) break;
    const forward = transition.afterMin > transition.beforeMin;
    const shiftMs = Math.abs(transition.afterMin - transition.beforeMin) * 60_000;
    // The affected wall-clock range, written as if it were UTC.
    const wallStartMs =
      transition.atMs + Math.min(transition.beforeMin, transition.afterMin) * 60_000;
    const wallEndMs = wallStartMs + shiftMs;
    const wallFires = await preview(pattern, 'UTC', wallStartMs - 1, 1);
    const firstWall = wallFires[0];
    if (firstWall === undefined || firstWall >= wallEndMs) continue;
    const zoneFires = forward
      ? await preview(schedule, zone, transition.atMs - 1, 1)
      : // Both passes of the repeated hour: 120 fires for an every-minute job, more than one
        // preview answers.
        await firesBefore(schedule, zone, transition.atMs - shiftMs - 1, transition.atMs + shiftMs);
    const day = formatDay(transition.atMs, zone);
    const gapFrom = wallTimeOfWall(wallStartMs);
    const gapTo = wallTimeOfWall(wallEndMs);
    const asked = wallTimeOfWall(firstWall);
    if (forward) {
      const next = zoneFires[0];
      // A fire right at the end of the gap is a moved run, unless the schedule has that wall
      // time anyway (wildcard jobs: the skipped runs are simply skipped).
      const ownFire = (await preview(pattern, 'UTC', wallEndMs - 1, 1))[0] === wallEndMs;
      const moved = next !== undefined && next === transition.atMs && !ownFire;
      notes.push({
        key: `f${transition.atMs}`,
        firesMs: next !== undefined ? [next] : [],
        text:
          `Daylight saving: on ${day} clocks in ${zone} jump from ${gapFrom} to ${gapTo}, so ` +
          `${asked} does not exist that day. ` +
          (moved
            ? `The run due at ${asked} moves to ${gapTo}.`
            : `Runs due between ${gapFrom} and ${gapTo} are skipped that day.`),
      });
    } else {
      const inRepeat = zoneFires.filter(
        (ms) => ms >= transition.atMs - shiftMs && ms < transition.atMs + shiftMs,
      );
      const walls = inRepeat.map((ms) => wallTime(ms, zone));
      const repeated = walls.filter((w, i) => walls.indexOf(w) !== i);
      notes.push({
        key: `b${transition.atMs}`,
        firesMs: inRepeat,
        text:
          `Daylight saving: on ${day} clocks in ${zone} go back from ${gapTo} to ${gapFrom}, so ` +
          `the hour from ${gapFrom} happens twice. ` +
          (repeated.length > 0
            ? `This schedule fires at ${[...new Set(repeated)].join(', ')} twice that day.`
            : `This schedule fires at ${asked} once that day (in the first pass).`),
      });
    }
  }
  return notes;
}

/** Bounds the pages asked for: an `@every 10s` job fires 720 times in two hours. */
const MAX_PREVIEW_PAGES = 10;
const PREVIEW_PAGE = 100;

/** Fire times after `fromMs` and before `untilMs`, a preview page at a time. */
async function firesBefore(
  schedule: string,
  zone: string,
  fromMs: number,
  untilMs: number,
): Promise<number[]> {
  const fires: number[] = [];
  let cursorMs = fromMs;
  for (let page = 0; page < MAX_PREVIEW_PAGES; page++) {
    const next = await preview(schedule, zone, cursorMs, PREVIEW_PAGE);
    fires.push(...next.filter((ms) => ms < untilMs));
    const last = next.at(-1);
    if (last === undefined || last >= untilMs || next.length < PREVIEW_PAGE) break;
    cursorMs = last;
  }
  return fires;
}

function wallTimeOfWall(wallMs: number): string {
  return wallTime(wallMs, 'UTC');
}

async function preview(schedule: string, timezone: string, fromMs: number, count: number) {
  const result = await api<Preview>('POST', '/v1/cron-jobs/preview', {
    schedule,
    timezone,
    count,
    from: iso(fromMs),
  });
  return result.next.map((t) => new Date(t).getTime());
}
