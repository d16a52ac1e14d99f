// A compact wall-clock calendar for one cron pattern: croner parses the pattern (its syntax and
// errors are the contract), then only a few hundred bytes of tables are kept. A croner instance
// holds ~80 KB (a 10,000-entry year table) and takes ~150 µs per next-time question; this answers
// in microseconds, which is what lets a pod hold and plan 100,000 jobs on a few thousand patterns.
// Day matching follows croner exactly (L, LW, nW, n#k, n#L, Vixie's OR of day-of-month and
// day-of-week); test/property/cron-calendar.property.test.ts checks it against croner itself.
import { CronPattern } from 'croner';

export interface CronCalendar {
  /** Next matching wall-clock time strictly after `wallMs` (both UTC-like ms), or null. */
  next(wallMs: number): number | null;
}

// croner answers nothing from year 3000 on; neither does this, so both agree everywhere.
const LAST_YEAR = 2999;
const ANY_NTH = 63;
const LAST_NTH = 32;

interface Tables {
  nextSecond: Int8Array;
  nextMinute: Int8Array;
  nextHour: Int8Array;
  day: Uint8Array;
  month: Uint8Array;
  dayOfWeek: Uint8Array;
  nearestWeekdays: number[];
  lastDayOfMonth: boolean;
  lastWeekday: boolean;
  starDom: boolean;
  starDow: boolean;
  useAnd: boolean;
}

/** Parses a 5- or 6-field pattern; throws croner's error for an invalid one. */
export function compileCronCalendar(body: string): CronCalendar {
  const pattern = new CronPattern(body, undefined, { mode: '5-or-6-parts' });
  const tables: Tables = {
    nextSecond: nextSetTable(pattern.second),
    nextMinute: nextSetTable(pattern.minute),
    nextHour: nextSetTable(pattern.hour),
    day: Uint8Array.from(pattern.day),
    month: Uint8Array.from(pattern.month),
    dayOfWeek: Uint8Array.from(pattern.dayOfWeek),
    nearestWeekdays: pattern.nearestWeekdays.flatMap((set, i) => (set ? [i + 1] : [])),
    lastDayOfMonth: pattern.lastDayOfMonth,
    lastWeekday: pattern.lastWeekday,
    starDom: pattern.starDOM,
    starDow: pattern.starDOW,
    useAnd: pattern.useAndLogic,
  };
  return { next: (wallMs) => nextWall(tables, wallMs) };
}

/** For each index, the first set index at or after it, or -1. */
function nextSetTable(flags: number[]): Int8Array {
  const table = new Int8Array(flags.length + 1).fill(-1);
  for (let i = flags.length - 1; i >= 0; i--) table[i] = flags[i] ? i : (table[i + 1] ?? -1);
  return table;
}

function nextWall(t: Tables, wallMs: number): number | null {
  const start = new Date((Math.floor(wallMs / 1000) + 1) * 1000);
  let year = start.getUTCFullYear();
  let month = start.getUTCMonth();
  let day = start.getUTCDate();
  let hour = start.getUTCHours();
  let minute = start.getUTCMinutes();
  let second = start.getUTCSeconds();
  while (year <= LAST_YEAR) {
    if (!t.month[month]) {
      [year, month] = month === 11 ? [year + 1, 0] : [year, month + 1];
      day = 1;
      hour = minute = second = 0;
      continue;
    }
    const dayIndex = nextMatchingDay(t, year, month, day);
    if (dayIndex < 0) {
      [year, month] = month === 11 ? [year + 1, 0] : [year, month + 1];
      day = 1;
      hour = minute = second = 0;
      continue;
    }
    if (dayIndex !== day) [day, hour, minute, second] = [dayIndex, 0, 0, 0];
    const h = t.nextHour[hour] ?? -1;
    if (h < 0) {
      [day, hour, minute, second] = [day + 1, 0, 0, 0];
      continue;
    }
    if (h !== hour) [hour, minute, second] = [h, 0, 0];
    const m = t.nextMinute[minute] ?? -1;
    if (m < 0) {
      [hour, minute, second] = [hour + 1, 0, 0];
      if (hour === 24) [day, hour] = [day + 1, 0];
      continue;
    }
    if (m !== minute) [minute, second] = [m, 0];
    const s = t.nextSecond[second] ?? -1;
    if (s < 0) {
      [minute, second] = [minute + 1, 0];
      if (minute === 60) [hour, minute] = [hour + 1, 0];
      if (hour === 24) [day, hour] = [day + 1, 0];
      continue;
    }
    return utcMs(year, month, day, hour, minute, s);
  }
  return null;
}

/** First matching day of the month at or after `fromDay`, or -1. */
function nextMatchingDay(t: Tables, year: number, month: number, fromDay: number): number {
  const lastDay = daysInMonth(year, month);
  const firstWeekday = new Date(utcMs(year, month, 1, 0, 0, 0)).getUTCDay();
  for (let day = fromDay; day <= lastDay; day++) {
    if (dayMatches(t, year, month, day, lastDay, firstWeekday)) return day;
  }
  return -1;
}

function dayMatches(
  t: Tables,
  year: number,
  month: number,
  day: number,
  lastDay: number,
  firstWeekday: number,
): boolean {
  let dom = t.day[day - 1] === 1;
  if (!dom && t.nearestWeekdays.length > 0) {
    dom = t.nearestWeekdays.some((n) => nearestWeekday(n, lastDay, firstWeekday) === day);
  }
  if (t.lastWeekday && day === lastWeekday(lastDay, firstWeekday)) dom = true;
  if (t.lastDayOfMonth && day === lastDay) dom = true;
  if (t.starDow) return dom;
  const weekday = (firstWeekday + day - 1) % 7;
  const dow = nthMatches(t.dayOfWeek[weekday] ?? 0, day, lastDay);
  if (t.useAnd || t.starDom) return dom && dow;
  return dom || dow;
}

/** Whether `day` is the n-th (bits 1..16) or the last (bit 32) of its weekday in the month. */
function nthMatches(mask: number, day: number, lastDay: number): boolean {
  if (mask === 0) return false;
  if (mask === ANY_NTH) return true;
  const nth = Math.ceil(day / 7);
  if (mask & (1 << (nth - 1)) & ~LAST_NTH) return true;
  return (mask & LAST_NTH) !== 0 && day + 7 > lastDay;
}

function weekdayOf(day: number, firstWeekday: number): number {
  return (firstWeekday + day - 1) % 7;
}

// The weekday nearest to day n of the month, without leaving the month (croner's rule).
function nearestWeekday(n: number, lastDay: number, firstWeekday: number): number {
  if (n > lastDay) return -1;
  const weekday = weekdayOf(n, firstWeekday);
  if (weekday === 0) return n === lastDay ? n - 2 : n + 1;
  if (weekday === 6) return n === 1 ? n + 2 : n - 1;
  return n;
}

function lastWeekday(lastDay: number, firstWeekday: number): number {
  const weekday = weekdayOf(lastDay, firstWeekday);
  return weekday === 0 ? lastDay - 2 : weekday === 6 ? lastDay - 1 : lastDay;
}

function daysInMonth(year: number, month: number): number {
  return new Date(utcMs(year, month + 1, 0, 0, 0, 0)).getUTCDate();
}

// Date.UTC reads years 0-99 as 1900-1999: as croner does, ask 400 years later (the Gregorian
// calendar repeats every 400 years) and subtract them.
const GREGORIAN_CYCLE_MS = 146_097 * 86_400_000;

function utcMs(year: number, month: number, day: number, h: number, m: number, s: number): number {
  const early = year >= 0 && year < 100;
  const ms = Date.UTC(early ? year + 400 : year, month, day, h, m, s);
  return early ? ms - GREGORIAN_CYCLE_MS : ms;
}
