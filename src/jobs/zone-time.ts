// Maps wall-clock times of a time zone to instants across daylight-saving changes. It exists
// because croner is only asked wall-clock questions ("next matching local time after X") in a zone
// without DST: croner's own DST handling differs from Vixie cron for steps without `*`, seconds
// wildcards and gaps that cross midnight (e.g. America/Nuuk 23:00 -> 00:00). Pure: the caches only
// memoize what Intl reports for a zone.

const DAY_MS = 86_400_000;
// Each step of the DST walk crosses one offset change or skips one repeated hour, so this only
// bounds pathological zone data.
const MAX_WALK_STEPS = 10_000;

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
 */
export function nextZonedInstant(schedule: WallSchedule, afterMs: number): number | null {
  let from = afterMs;
  let seg = segmentAt(schedule.zone, from);
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
    from = seg.end - 1;
    seg = segmentAt(schedule.zone, seg.end);
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

// The segment last found for each zone, with the span in which it was verified: consecutive
// occurrences of thousands of jobs fall in the same segment, and asking Intl costs microseconds.
const lastSegments = new Map<string, { segment: Segment; validFrom: number }>();

function segmentAt(zone: string, ms: number): Segment {
  const cached = lastSegments.get(zone);
  if (cached && cached.validFrom <= ms && ms < cached.segment.end) return cached.segment;
  const offset = offsetAt(zone, ms);
  const year = new Date(ms).getUTCFullYear();
  const near = [year - 1, year, year + 1].flatMap((y) => transitionsIn(zone, y));
  const prev = near.findLast((t) => t.at <= ms);
  const next = near.find((t) => t.at > ms);
  const segment = {
    start: prev?.at ?? -Infinity,
    prevOffset: prev?.before ?? offset,
    offset,
    // Without a change in sight the segment ends at an artificial boundary with no offset change.
    end: next?.at ?? utcMs(year + 2),
    nextOffset: next?.after ?? offset,
  };
  // Transitions were looked for from the previous year on; before that nothing is known.
  lastSegments.set(zone, { segment, validFrom: Math.max(segment.start, utcMs(year - 1)) });
  return segment;
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
