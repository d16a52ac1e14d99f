// Parses, validates and computes fire times of job schedules. Pure: the current time is always an
// argument. croner only answers wall-clock questions ("next matching local time after X") in a
// zone without DST; mapping wall times to instants across DST changes is done here, because
// croner's own DST handling differs from Vixie cron for steps without `*`, seconds wildcards and
// gaps that cross midnight (e.g. America/Nuuk 23:00 -> 00:00).
import { Cron } from 'croner';
import { parseDurationMs } from '../duration.js';

export interface ScheduleSpec {
  schedule: string;
  timezone?: string | undefined;
}

export type ScheduleCheck = { ok: true; schedule: ParsedSchedule } | { ok: false; message: string };

export interface ParsedSchedule {
  readonly source: string;
  readonly timezone: string;
  readonly kind: 'cron' | 'every';
  readonly everyMs?: number;
  /** Next occurrence strictly after `after`, or null if none. */
  nextAfter(after: Date): Date | null;
}

const MAX_SOURCE_LENGTH = 200;
const MAX_DATE_MS = 8.64e15;
// croner stops searching at year 3000, so later instants have no next occurrence.
const CRON_LIMIT_MS = Date.UTC(3000, 0, 1);
const DAY_MS = 86_400_000;
// Each step of the DST walk crosses one offset change or skips one repeated hour, so this only
// bounds pathological zone data.
const MAX_WALK_STEPS = 10_000;
const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

type FieldSpec = {
  name: string;
  min: number;
  max: number;
  maxStep: number;
  /** Names numbered from `min`: JAN is 1, SUN is 0. */
  names?: readonly string[];
  /** Whole-element forms beyond numbers/ranges/steps; group 1 is the value to range-check. */
  special?: RegExp;
};
const field = (name: string, min: number, max: number, extras: Partial<FieldSpec> = {}) => ({
  ...{ name, min, max, maxStep: max - min + 1 },
  ...extras,
});
const SECOND = field('second', 0, 59);
const MINUTE = field('minute', 0, 59);
const HOUR = field('hour', 0, 23);
const DAY_OF_MONTH = field('day-of-month', 1, 31, { special: /^(?:\?|L|LW|(\d+)W)$/ });
const MONTH = field('month', 1, 12, {
  names: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'],
});
const DAY_OF_WEEK = field('day-of-week', 0, 7, {
  names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'],
  maxStep: 7,
  special: /^(?:\?|([A-Z0-9]+)(?:L|#[1-5L]))$/,
});
const FIVE_FIELDS = [MINUTE, HOUR, DAY_OF_MONTH, MONTH, DAY_OF_WEEK];

export function parseSchedule(spec: ScheduleSpec): ScheduleCheck {
  try {
    return parseOrFail(spec);
  } catch (err) {
    // Unexpected input must still come back as a message, never as a throw.
    return fail(`invalid schedule: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Up to `count` occurrences strictly after `after`. Throws Error with the readable message for invalid input. */
export function nextOccurrences(spec: ScheduleSpec, after: Date, count: number): Date[] {
  const check = parseSchedule(spec);
  if (!check.ok) throw new Error(check.message);
  const out: Date[] = [];
  let cursor: Date | null = after;
  while (out.length < count && (cursor = check.schedule.nextAfter(cursor)) !== null) {
    out.push(cursor);
  }
  return out;
}

/**
 * Latest occurrence at or before `atOrBefore` and strictly after `after` (used for catch-up), or
 * null. Binary search over nextAfter (which is monotonic), so a window of any length costs about
 * log2(window in ms) nextAfter calls (~22 for an hour, ~42 for a century) however dense the schedule.
 */
export function latestOccurrenceBetween(
  parsed: ParsedSchedule,
  after: Date,
  atOrBefore: Date,
): Date | null {
  const end = atOrBefore.getTime();
  const next = (ms: number) => parsed.nextAfter(new Date(ms))?.getTime() ?? Infinity;
  if (parsed.everyMs !== undefined) {
    const latest = Math.floor(end / parsed.everyMs) * parsed.everyMs;
    return latest > after.getTime() ? new Date(latest) : null;
  }
  let lo = after.getTime();
  if (!(next(lo) <= end)) return null;
  let hi = end; // invariant: next(lo) <= end < next(hi)
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (next(mid) <= end) lo = mid;
    else hi = mid;
  }
  return new Date(next(lo));
}

/** Smallest gap in ms between consecutive occurrences over the next `sample` occurrences after `from` (for a per-tenant minimum interval quota). */
export function minIntervalMs(parsed: ParsedSchedule, from: Date, sample = 100): number | null {
  if (parsed.everyMs !== undefined) return parsed.everyMs;
  let min: number | null = null;
  let previous = parsed.nextAfter(from);
  for (let i = 1; i < sample && previous !== null; i++) {
    const current = parsed.nextAfter(previous);
    if (current === null) break;
    const gap = current.getTime() - previous.getTime();
    min = min === null ? gap : Math.min(min, gap);
    previous = current;
  }
  return min;
}

export function describeTimezoneError(zone: string): string | null {
  if (typeof zone !== 'string' || zone.trim() === '') return `unknown time zone ${quote(zone)}`;
  try {
    new Intl.DateTimeFormat(undefined, { timeZone: zone });
    return null;
  } catch {
    return `unknown time zone ${quote(zone)}`;
  }
}

function parseOrFail(spec: ScheduleSpec): ScheduleCheck {
  const source: unknown = spec?.schedule;
  if (typeof source !== 'string') return fail('schedule must be a string');
  if (source.length > MAX_SOURCE_LENGTH) {
    return fail(`schedule is longer than ${MAX_SOURCE_LENGTH} characters`);
  }
  let body = source.trim();
  if (body === '') return fail('schedule is empty');
  let zone: unknown = spec.timezone ?? 'UTC';
  const prefix = /^(CRON_TZ|TZ)=(\S*)\s*/.exec(body);
  if (prefix) {
    zone = prefix[2];
    body = body.slice(prefix[0].length);
    if (zone === '') return fail(`${prefix[1]}= prefix needs a time zone name`);
    if (body === '') return fail(`schedule is empty after the ${prefix[1]}= prefix`);
  }
  const zoneError = describeTimezoneError(zone as string);
  if (zoneError) return fail(zoneError);
  const base = { source, timezone: zone as string };
  if (/^@every(\s|$)/i.test(body)) return parseEvery(base, body.slice('@every'.length).trim());
  if (body.startsWith('@')) {
    const pattern = MACROS[body.toLowerCase()];
    if (pattern === undefined) {
      return fail(
        `unknown macro ${quote(body)}; expected ${Object.keys(MACROS).join(', ')} or @every <duration>`,
      );
    }
    body = pattern;
  }
  return parseCron(base, body);
}

function parseEvery(base: { source: string; timezone: string }, text: string): ScheduleCheck {
  if (text === '') return fail('@every needs a duration, e.g. "@every 90s" or "@every 1h30m"');
  const everyMs = parseDurationMs(text);
  if (everyMs === null) {
    return fail(
      `invalid @every duration ${quote(text)}; expected a Go duration such as 90s or 1h30m`,
    );
  }
  if (everyMs < 1000) return fail(`@every duration ${quote(text)} is below the 1s minimum`);
  if (everyMs % 1000 !== 0) {
    return fail(`@every duration ${quote(text)} must be a whole number of seconds`);
  }
  // Multiples of the interval since the Unix epoch: every process derives the same instants.
  const nextAfter = (after: Date): Date | null => {
    const next = (Math.floor(validMs(after) / everyMs) + 1) * everyMs;
    return next <= MAX_DATE_MS ? new Date(next) : null;
  };
  return { ok: true, schedule: { ...base, kind: 'every', everyMs, nextAfter } };
}

function parseCron(base: { source: string; timezone: string }, body: string): ScheduleCheck {
  const fields = body.split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6) {
    return fail(
      `expected 5 fields (minute hour day-of-month month day-of-week) or 6 with seconds first, got ${fields.length}`,
    );
  }
  const specs = fields.length === 6 ? [SECOND, ...FIVE_FIELDS] : FIVE_FIELDS;
  const error = fields
    .flatMap((text, i) => text.split(',').map((el) => checkElement(specs[i] as FieldSpec, el)))
    .find((message) => message !== null);
  if (error) return fail(error);
  let cron: Cron;
  try {
    // utcOffset 0: a pure wall-clock calendar without DST; domAndDow false: Vixie's OR rule.
    cron = new Cron(body, { utcOffset: 0, paused: true, mode: '5-or-6-parts', domAndDow: false });
  } catch (err) {
    const detail = err instanceof Error ? err.message.replace(/^CronPattern:\s*/, '') : String(err);
    return fail(`invalid cron pattern ${quote(body)}: ${detail}`);
  }
  const wallNext = (wallMs: number) =>
    Math.abs(wallMs) <= MAX_DATE_MS ? (cron.nextRun(new Date(wallMs))?.getTime() ?? null) : null;
  if (wallNext(Date.UTC(1970, 0, 1)) === null) return fail(`schedule ${quote(body)} never fires`);
  const minute = fields.length === 6 ? 1 : 0;
  const fixed = !fields[minute]?.startsWith('*') && !fields[minute + 1]?.startsWith('*');
  const walker: Walker = { zone: base.timezone, fixed, wallNext };
  const nextAfter = (after: Date): Date | null => {
    const at = nextCronInstant(walker, validMs(after));
    return at === null ? null : new Date(at);
  };
  return { ok: true, schedule: { ...base, kind: 'cron', nextAfter } };
}

function checkElement(spec: FieldSpec, element: string): string | null {
  const label = `${spec.name} field ${quote(element)}`;
  const upper = element.toUpperCase();
  const special = spec.special?.exec(upper);
  if (special) return special[1] === undefined ? null : checkValues(spec, label, [special[1]]);
  const [range = '', step, extra] = upper.split('/');
  if (extra !== undefined || (step !== undefined && !/^\d+$/.test(step))) {
    return `${label} has an invalid step`;
  }
  if (step !== undefined && (Number(step) < 1 || Number(step) > spec.maxStep)) {
    return `${label}: step must be between 1 and ${spec.maxStep}`;
  }
  if (range === '*') return null;
  const bounds = range.split('-');
  if (bounds.length > 2) return `${label} has an invalid range`;
  if (step !== undefined && bounds.length === 1) {
    return `${label}: a step needs * or a range before it, e.g. */${step} or ${range}-${spec.max}/${step}`;
  }
  return checkValues(spec, label, bounds);
}

function checkValues(spec: FieldSpec, label: string, tokens: string[]): string | null {
  const values = tokens.map((token, i) => valueOf(spec, token, i === 1));
  for (const [i, value] of values.entries()) {
    if (Number.isNaN(value)) return `${label} has an invalid value ${quote(tokens[i] ?? '')}`;
    if (value < spec.min || value > spec.max) {
      return `${label} is out of range ${spec.min}-${spec.max}`;
    }
  }
  const [low = 0, high = low] = values;
  return low > high ? `${label}: the range start is after its end` : null;
}

function valueOf(spec: FieldSpec, token: string, rangeEnd: boolean): number {
  if (/^\d+$/.test(token)) return Number(token);
  const index = spec.names?.indexOf(token) ?? -1;
  if (index < 0) return NaN;
  // As in croner, SUN ending a range means 7, so MON-SUN covers the whole week.
  return spec === DAY_OF_WEEK && rangeEnd && index === 0 ? 7 : index + spec.min;
}

interface Walker {
  zone: string;
  /** Vixie's fixed-time job: neither the minute nor the hour field starts with `*`. */
  fixed: boolean;
  /** Next matching wall-clock time strictly after a wall-clock time (both as UTC-like ms). */
  wallNext(wallMs: number): number | null;
}

/**
 * Walks the zone's constant-offset segments. Inside a segment wall time maps linearly to real
 * time. Entering a segment after a fall back replays wall times: wildcard jobs fire again, fixed
 * jobs skip the replay. Leaving a segment over a spring-forward gap skips wall times: wildcard
 * jobs lose them, fixed jobs fire once at the first instant after the gap.
 */
function nextCronInstant(walker: Walker, afterMs: number): number | null {
  if (afterMs >= CRON_LIMIT_MS) return null;
  let from = afterMs;
  let seg = segmentAt(walker.zone, from);
  for (let step = 0; step < MAX_WALK_STEPS; step++) {
    const wall = walker.wallNext(from + seg.offset);
    if (wall === null) return null;
    const at = wall - seg.offset;
    if (at < seg.end) {
      const replayEnd = seg.start + seg.prevOffset - seg.offset;
      if (!walker.fixed || at >= replayEnd) return at;
      from = replayEnd - 1;
      continue;
    }
    const inGap = seg.nextOffset > seg.offset && wall < seg.end + seg.nextOffset;
    if (walker.fixed && inGap) return seg.end;
    from = seg.end - 1;
    seg = segmentAt(walker.zone, seg.end);
  }
  return null;
}

/** A stretch of constant UTC offset, with the offsets on either side of it (ms). */
type Segment = {
  start: number;
  end: number;
  offset: number;
  prevOffset: number;
  nextOffset: number;
};
type Transition = { at: number; before: number; after: number };

function segmentAt(zone: string, ms: number): Segment {
  const offset = offsetAt(zone, ms);
  const year = new Date(ms).getUTCFullYear();
  const near = [year - 1, year, year + 1].flatMap((y) => transitionsIn(zone, y));
  const prev = near.findLast((t) => t.at <= ms);
  const next = near.find((t) => t.at > ms);
  return {
    start: prev?.at ?? -Infinity,
    prevOffset: prev?.before ?? offset,
    offset,
    // Without a change in sight the segment ends at an artificial boundary with no offset change.
    end: next?.at ?? utcMs(year + 2),
    nextOffset: next?.after ?? offset,
  };
}

const transitionCache = new Map<string, Transition[]>();

/** Offset changes in a UTC year, found by daily sampling and bisection to the second. */
function transitionsIn(zone: string, year: number): Transition[] {
  const key = `${zone}\n${year}`;
  const cached = transitionCache.get(key);
  if (cached) return cached;
  const found: Transition[] = [];
  const end = utcMs(year + 1);
  for (let t = utcMs(year), off = offsetAt(zone, t); t < end;) {
    const next = Math.min(t + DAY_MS, end);
    const nextOff = offsetAt(zone, next);
    if (nextOff !== off) found.push(locateTransition(zone, t, next, off));
    [t, off] = [next, nextOff];
  }
  if (transitionCache.size >= 4096) transitionCache.clear();
  transitionCache.set(key, found);
  return found;
}

function locateTransition(zone: string, lo: number, hi: number, before: number): Transition {
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
    if (offsetAt(zone, mid) === before) lo = mid;
    else hi = mid;
  }
  return { at: hi, before, after: offsetAt(zone, hi) };
}

const offsetFormats = new Map<string, Intl.DateTimeFormat>();

/** Milliseconds to add to a UTC instant to get the zone's wall-clock time. */
function offsetAt(zone: string, ms: number): number {
  let format = offsetFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
    offsetFormats.set(zone, format);
  }
  // "GMT+10:30", "GMT-04:56:02" (local mean time) or plain "GMT".
  const match = /GMT(?:([+-])(\d+):(\d+)(?::(\d+))?)?$/.exec(format.format(ms));
  if (!match) throw new Error(`cannot read the UTC offset of ${zone}`);
  const [, sign, hours = 0, minutes = 0, seconds = 0] = match;
  const abs = (Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds)) * 1000;
  return sign === '-' ? -abs : abs;
}

/** Date.UTC without its mapping of years 0-99 to 1900-1999. */
function utcMs(year: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, 0, 1);
  return date.getTime();
}

function validMs(date: Date): number {
  const ms = date instanceof Date ? date.getTime() : NaN;
  if (Number.isNaN(ms)) throw new RangeError('expected a valid Date');
  return ms;
}

function fail(message: string): ScheduleCheck {
  return { ok: false, message };
}

function quote(value: unknown): string {
  const text = JSON.stringify(String(value));
  return text.length > 60 ? `${text.slice(0, 56)}…"` : text;
}
