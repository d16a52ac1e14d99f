// Maps wall-clock times of a time zone to instants across daylight-saving changes. It exists
// because croner is only asked wall-clock questions ("next matching local time after X") in a zone
// without DST: croner's own DST handling differs from Vixie cron for steps without `*`, seconds
// wildcards and gaps that cross midnight (e.g. America/Nuuk 23:00 -> 00:00). Pure: the caches only
// memoize what Intl reports for a zone.

const DAY_MS = 86_400_000;
// Each step of the DST walk crosses one offset change or skips one repeated hour, so this only
// bounds pathological zone data.
const MAX_WALK_STEPS = 10_000;
// UTC offsets span -12:00 to +14:00: a wall time and its instant are at most this far apart in
// any two zones, or in one zone before and after any change.
const MAX_OFFSET_SPREAD_MS = 27 * 3_600_000;
// Offsets are sampled this far apart when looking for changes. The closest two changes in the
// zone database (1900-2200) are 7 days apart (Brazil 2000, Gaza's rules from 2040 on): a
// 6-day step sees every change, for a sixth of the cost of daily samples.
const SAMPLE_STEP_MS = 6 * DAY_MS;

export interface WallSchedule {
  zone: string;
  /** Vixie's fixed-time job: neither the minute nor the hour field starts with `*`. */
  fixed: boolean;
  /** Next matching wall-clock time strictly after a wall-clock time (both as UTC-like ms). */
  wallNext(wallMs: number): number | null;
}

/**
 * First instant strictly after `afterMs` whose wall-clock time matches, or null. Walks the zone's
 * constant-offset segments. Inside a segment wall time maps linearly to real time. Entering a
 * segment after a fall back replays wall times: wildcard jobs fire again, fixed jobs skip the
 * replay. Leaving a segment over a spring-forward gap skips wall times: wildcard jobs lose them,
 * fixed jobs fire once at the first instant after the gap.
 *
 * A sparse schedule (29 February) would cross every segment of the years in between; instead,
 * once the next candidate is days away, the segments between are jumped over. Nothing can match
 * there: a match at instant t in a later segment has a wall time above the current one (t is more
 * than an offset spread past it) and below the candidate (t is more than a spread before it),
 * yet the candidate is the first matching wall time.
 */
export function nextZonedInstant(schedule: WallSchedule, afterMs: number): number | null {
  let from = afterMs;
  let seg = segmentAt(schedule.zone, from);
  let skip: { from: number; to: number } | null = null;
  for (let step = 0; step < MAX_WALK_STEPS; step++) {
    const wall = schedule.wallNext(from + seg.offset);
    if (wall === null) return null;
    const at = wall - seg.offset;
    if (at < seg.end) {
      const replayEnd = seg.start + seg.prevOffset - seg.offset;
      if (!schedule.fixed || at >= replayEnd) return at;
      from = replayEnd - 1;
      continue;
    }
    const inGap = seg.nextOffset > seg.offset && wall < seg.end + seg.nextOffset;
    if (schedule.fixed && inGap) return seg.end;
    if (skip === null && at - seg.end > 3 * MAX_OFFSET_SPREAD_MS) {
      skip = { from: seg.end + MAX_OFFSET_SPREAD_MS, to: at - MAX_OFFSET_SPREAD_MS };
    }
    const next: number =
      skip !== null && seg.end >= skip.from && seg.end < skip.to ? skip.to : seg.end;
    if (next === skip?.to) skip = null;
    from = next - 1;
    seg = segmentAt(schedule.zone, next);
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

// The segment last found for each zone: consecutive occurrences of thousands of jobs fall in the
// same segment, and asking Intl costs microseconds.
const lastSegments = new Map<string, Segment>();

function segmentAt(zone: string, ms: number): Segment {
  const cached = lastSegments.get(zone);
  if (cached && cached.start <= ms && ms < cached.end) return cached;
  const offset = offsetAt(zone, ms);
  const year = new Date(ms).getUTCFullYear();
  // The closest changes on either side, looking one year further each way at most.
  const prev =
    transitionsIn(zone, year).findLast((t) => t.at <= ms) ?? transitionsIn(zone, year - 1).at(-1);
  const next = transitionsIn(zone, year).find((t) => t.at > ms) ?? transitionsIn(zone, year + 1)[0];
  // Without a change in sight a segment ends at an artificial boundary with no offset change.
  const segment = {
    start: prev?.at ?? utcMs(year - 1),
    prevOffset: prev?.before ?? offset,
    offset,
    end: next?.at ?? utcMs(year + 2),
    nextOffset: next?.after ?? offset,
  };
  lastSegments.set(zone, segment);
  return segment;
}

// Changes of each zone-year, found once: enough for every zone over a few decades. The oldest
// entry leaves first (clearing all at once made a cold start of every preview).
const TRANSITION_CACHE_LIMIT = 50_000;
const transitionCache = new Map<string, Transition[]>();

/** Offset changes in a UTC year, found by sampling every 6 days and bisection to the second. */
function transitionsIn(zone: string, year: number): Transition[] {
  const key = `${zone}\n${year}`;
  const cached = transitionCache.get(key);
  if (cached) return cached;
  const found: Transition[] = [];
  const end = utcMs(year + 1);
  for (let t = utcMs(year), off = offsetAt(zone, t); t < end;) {
    const next = Math.min(t + SAMPLE_STEP_MS, end);
    const nextOff = offsetAt(zone, next);
    if (nextOff !== off) found.push(locateTransition(zone, t, next, off));
    [t, off] = [next, nextOff];
  }
  if (transitionCache.size >= TRANSITION_CACHE_LIMIT) {
    const oldest = transitionCache.keys().next().value;
    if (oldest !== undefined) transitionCache.delete(oldest);
  }
  transitionCache.set(key, found);
  return found;
}

function locateTransition(zone: string, lo: number, hi: number, before: number): Transition {
  // Changes nearly always fall on a whole hour (UTC): find the hour first, then check whether the
  // change is at its start before bisecting it to the second.
  const HOUR_MS = 3_600_000;
  let hourLo = Math.floor(lo / HOUR_MS);
  let hourHi = Math.ceil(hi / HOUR_MS);
  while (hourHi - hourLo > 1) {
    const mid = Math.floor((hourLo + hourHi) / 2);
    if (offsetAt(zone, mid * HOUR_MS) === before) hourLo = mid;
    else hourHi = mid;
  }
  lo = Math.max(lo, hourLo * HOUR_MS);
  hi = Math.min(hi, hourHi * HOUR_MS);
  if (hi - lo === HOUR_MS && offsetAt(zone, hi - 1000) === before) {
    return { at: hi, before, after: offsetAt(zone, hi) };
  }
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
    if (offsetAt(zone, mid) === before) lo = mid;
    else hi = mid;
  }
  return { at: hi, before, after: offsetAt(zone, hi) };
}

const offsetFormats = new Map<string, Intl.DateTimeFormat>();

/**
 * The zone's offset formatter, made once per zone (making one costs most of a millisecond).
 * Throws RangeError for a name that is not a time zone, so it also validates names.
 */
export function zoneFormat(zone: string): Intl.DateTimeFormat {
  let format = offsetFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
    offsetFormats.set(zone, format);
  }
  return format;
}

/** Milliseconds to add to a UTC instant to get the zone's wall-clock time. */
function offsetAt(zone: string, ms: number): number {
  // "GMT+10:30", "GMT-04:56:02" (local mean time) or plain "GMT".
  const match = /GMT(?:([+-])(\d+):(\d+)(?::(\d+))?)?$/.exec(zoneFormat(zone).format(ms));
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
