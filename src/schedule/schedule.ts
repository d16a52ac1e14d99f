// Parses, validates and computes fire times of job schedules. Pure: the current time is always an
// argument. The cron calendar (croner's parser, compact tables) only answers wall-clock questions
// ("next matching local time after X"); zone-time.ts maps those wall times to instants across DST.
import { parseDurationMs } from '../duration.js';
import { compileCronCalendar, type CronCalendar } from './cron-calendar.js';
import { cronFieldsError, quote } from './schedule-fields.js';
import { nextZonedInstant, zoneFormat, type WallSchedule } from './zone-time.js';
import { SCHEDULE_MACROS } from './schedule-macros.js';

export interface ScheduleSpec {
  schedule: string;
  timezone?: string | undefined;
  /** The job's `ends_at`: no occurrence after it. */
  endsAt?: Date | null | undefined;
}

export type ScheduleCheck = { ok: true; schedule: ParsedSchedule } | { ok: false; message: string };

export interface ParsedSchedule {
  readonly source: string;
  readonly timezone: string;
  readonly kind: 'cron' | 'every';
  readonly everyMs?: number;
  /** No occurrence after this instant (the job's ends_at), when set. */
  readonly endsAtMs?: number;
  /** Next occurrence strictly after `after`, or null if none. */
  nextAfter(after: Date): Date | null;
}

const MAX_SOURCE_LENGTH = 200;
const MAX_DATE_MS = 8.64e15;
// The calendar (like croner) stops searching at year 3000, so later instants have no next occurrence.
const CRON_LIMIT_MS = Date.UTC(3000, 0, 1);

// Parsed schedules are immutable and most jobs share a few patterns: valid ones are kept (the
// oldest leaves first) so the same text is not parsed again. A parsed schedule weighs about 2 KB;
// the scheduler's own cache sits in front of this one, and planning an import of a million
// distinct daily schedules filled 10,000 entries here (~20 MB of heap a pod kept for nothing).
const PARSED_CACHE_LIMIT = 1000;
const parsedCache = new Map<string, ScheduleCheck>();

export function parseSchedule(spec: ScheduleSpec): ScheduleCheck {
  const check = parseUnbounded(spec);
  const endsAt = spec?.endsAt;
  return check.ok && endsAt instanceof Date
    ? { ok: true, schedule: endAt(check.schedule, endsAt) }
    : check;
}

/** The schedule without occurrences after `endsAt` (the rule every pod and the API share). */
function endAt(schedule: ParsedSchedule, endsAt: Date): ParsedSchedule {
  const endsAtMs = validMs(endsAt);
  const nextAfter = (after: Date): Date | null => {
    const next = schedule.nextAfter(after);
    return next !== null && next.getTime() <= endsAtMs ? next : null;
  };
  return { ...schedule, endsAtMs, nextAfter };
}

function parseUnbounded(spec: ScheduleSpec): ScheduleCheck {
  const key =
    typeof spec?.schedule === 'string' &&
    (spec.timezone === undefined || typeof spec.timezone === 'string')
      ? JSON.stringify([spec.timezone ?? null, spec.schedule])
      : undefined;
  const cached = key === undefined ? undefined : parsedCache.get(key);
  if (cached) return cached;
  let check: ScheduleCheck;
  try {
    check = parseOrFail(spec);
  } catch (err) {
    // Unexpected input must still come back as a message, never as a throw.
    return fail(`invalid schedule: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (check.ok && key !== undefined) {
    if (parsedCache.size >= PARSED_CACHE_LIMIT) {
      const oldest = parsedCache.keys().next().value;
      if (oldest !== undefined) parsedCache.delete(oldest);
    }
    parsedCache.set(key, check);
  }
  return check;
}

/**
 * Up to `count` occurrences strictly after `after`, and not after `until` when given (which
 * bounds the cost of a sparse schedule such as 29 February). Throws Error with the readable
 * message for invalid input.
 */
export function nextOccurrences(
  spec: ScheduleSpec,
  after: Date,
  count: number,
  until?: Date,
): Date[] {
  const check = parseSchedule(spec);
  if (!check.ok) throw new Error(check.message);
  const out: Date[] = [];
  const untilMs = until?.getTime() ?? Infinity;
  let cursor: Date | null = after;
  while (out.length < count && (cursor = check.schedule.nextAfter(cursor)) !== null) {
    if (cursor.getTime() > untilMs) break;
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
  const end = Math.min(atOrBefore.getTime(), parsed.endsAtMs ?? Infinity);
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

// The minimum interval a tenant may be given is one year: gaps are looked for over a year of
// occurrences (from the first), which also bounds the cost for sparse schedules.
const MIN_INTERVAL_WINDOW_MS = 366 * 86_400_000;

/**
 * Smallest gap in ms between consecutive occurrences over the next `sample` occurrences after
 * `from`, those starting within a year of the first (for a per-tenant minimum interval quota).
 */
export function minIntervalMs(parsed: ParsedSchedule, from: Date, sample = 100): number | null {
  if (parsed.everyMs !== undefined) return parsed.everyMs;
  let min: number | null = null;
  let previous = parsed.nextAfter(from);
  const windowEnd = (previous?.getTime() ?? 0) + MIN_INTERVAL_WINDOW_MS;
  for (let i = 1; i < sample && previous !== null && previous.getTime() < windowEnd; i++) {
    const current = parsed.nextAfter(previous);
    if (current === null) break;
    const gap = current.getTime() - previous.getTime();
    min = min === null ? gap : Math.min(min, gap);
    previous = current;
  }
  return min;
}

// Creating an Intl.DateTimeFormat costs about a millisecond and native memory that is freed only
// by a later GC; a pod parsing 100,000 schedules must not create one per job.
const knownZones = new Set<string>();

export function describeTimezoneError(zone: string): string | null {
  if (typeof zone !== 'string' || zone.trim() === '') return `unknown time zone ${quote(zone)}`;
  if (knownZones.has(zone)) return null;
  try {
    zoneFormat(zone);
  } catch {
    return `unknown time zone ${quote(zone)}`;
  }
  // Only valid IANA names get here, so the set stays as small as the zone database.
  knownZones.add(zone);
  return null;
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
    const pattern = SCHEDULE_MACROS[body.toLowerCase()];
    if (pattern === undefined) {
      return fail(
        `unknown macro ${quote(body)}; expected ${Object.keys(SCHEDULE_MACROS).join(', ')} or @every <duration>`,
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
  const error = cronFieldsError(fields);
  if (error) return fail(error);
  let calendar: CronCalendar;
  try {
    calendar = compileCronCalendar(body);
  } catch (err) {
    const detail = err instanceof Error ? err.message.replace(/^CronPattern:\s*/, '') : String(err);
    return fail(`invalid cron pattern ${quote(body)}: ${detail}`);
  }
  const wallNext = (wallMs: number) =>
    Math.abs(wallMs) <= MAX_DATE_MS ? calendar.next(wallMs) : null;
  if (wallNext(Date.UTC(1970, 0, 1)) === null) return fail(`schedule ${quote(body)} never fires`);
  const minute = fields.length === 6 ? 1 : 0;
  const fixed = !fields[minute]?.startsWith('*') && !fields[minute + 1]?.startsWith('*');
  const wall: WallSchedule = { zone: base.timezone, fixed, wallNext };
  const nextAfter = (after: Date): Date | null => {
    const ms = validMs(after);
    const at = ms >= CRON_LIMIT_MS ? null : nextZonedInstant(wall, ms);
    return at === null ? null : new Date(at);
  };
  return { ok: true, schedule: { ...base, kind: 'cron', nextAfter } };
}

function validMs(date: Date): number {
  const ms = date instanceof Date ? date.getTime() : NaN;
  if (Number.isNaN(ms)) throw new RangeError('expected a valid Date');
  return ms;
}

function fail(message: string): ScheduleCheck {
  return { ok: false, message };
}
