// Times as people read them: in a given zone, in the browser's, and as durations.

export const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

const formats = new Map<string, Intl.DateTimeFormat>();

function formatFor(zone: string, withZoneName: boolean): Intl.DateTimeFormat {
  const key = `${zone}|${withZoneName}`;
  let format = formats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(undefined, {
      timeZone: zone,
      weekday: 'short',
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
      ...(withZoneName ? { timeZoneName: 'short' } : {}),
    });
    formats.set(key, format);
  }
  return format;
}

/** "Tue, Dec 1, 2026, 09:00 EST" in the zone given. */
export function formatInZone(iso: string | null, zone: string): string {
  if (!iso) return '—';
  try {
    return formatFor(zone, true).format(new Date(iso));
  } catch {
    return formatFor('UTC', true).format(new Date(iso));
  }
}

const instantFormats = new Map<string, Intl.DateTimeFormat>();

/**
 * An instant of a run, to the millisecond, with its zone: "Tue, Dec 1, 2026, 09:00:00.123 EST".
 * Runs start and end within seconds of each other; minutes alone would hide what happened.
 */
export function formatInstant(iso: string | null, zone: string): string {
  if (!iso) return '—';
  const formatFor = (name: string) => {
    let format = instantFormats.get(name);
    if (!format) {
      format = new Intl.DateTimeFormat(undefined, {
        timeZone: name,
        weekday: 'short',
        year: 'numeric',
        month: 'short',
        day: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        fractionalSecondDigits: 3,
        hourCycle: 'h23',
        timeZoneName: 'short',
      });
      instantFormats.set(name, format);
    }
    return format;
  };
  try {
    return formatFor(zone).format(new Date(iso));
  } catch {
    return formatFor('UTC').format(new Date(iso));
  }
}

/** "09:00" local wall time in the zone (for DST notes). */
export function wallTime(ms: number, zone: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(ms));
}

export function formatDay(ms: number, zone: string): string {
  return new Intl.DateTimeFormat(undefined, {
    timeZone: zone,
    weekday: 'short',
    year: 'numeric',
    month: 'short',
    day: 'numeric',
  }).format(new Date(ms));
}

/** "3 min ago" / "in 2 h" relative to now. */
export function relative(iso: string | null, nowMs = Date.now()): string {
  if (!iso) return '';
  const deltaS = Math.round((new Date(iso).getTime() - nowMs) / 1000);
  const abs = Math.abs(deltaS);
  if (abs < 5) return 'just now';
  const [value, unit] =
    abs < 60
      ? [abs, 's']
      : abs < 3600
        ? [Math.round(abs / 60), 'min']
        : abs < 86_400
          ? [Math.round(abs / 3600), 'h']
          : [Math.round(abs / 86_400), 'd'];
  return deltaS >= 0 ? `in ${value} ${unit}` : `${value} ${unit} ago`;
}

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  if (Math.abs(ms) < 1000) return `${Math.round(ms)} ms`;
  if (Math.abs(ms) < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** The zone's UTC offset at an instant, in minutes (east positive). */
export function offsetMinutes(ms: number, zone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    timeZoneName: 'longOffset',
  }).formatToParts(new Date(ms));
  const name = parts.find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const match = /GMT([+-])(\d{2}):?(\d{2})?/.exec(name);
  if (!match) return 0;
  const minutes = Number(match[2]) * 60 + Number(match[3] ?? 0);
  return match[1] === '-' ? -minutes : minutes;
}

export function zoneNames(): string[] {
  const intl = Intl as unknown as { supportedValuesOf?: (key: string) => string[] };
  const zones = intl.supportedValuesOf?.('timeZone') ?? [];
  return zones.includes('UTC') ? zones : ['UTC', ...zones];
}

/** Micro-dollars as dollars: $0.001040, $12.35. */
export function formatMicros(micros: number | null | undefined): string {
  if (micros === null || micros === undefined) return 'unknown';
  const dollars = micros / 1e6;
  return `$${dollars >= 1 ? dollars.toFixed(2) : dollars.toFixed(6)}`;
}
