// The clock tool: the current time in UTC and in a time zone the model names, and in a run the
// occurrence's nominal time too. A run is told its occurrence's time up front; a late, retried or
// long run starts or goes on after it, and models convert zones and name weekdays badly.
import { z } from 'zod';
import { describeTimezoneError } from '../../schedule/schedule.js';
import type { AgentTool } from '../tool.js';

export interface ClockToolDeps {
  now: () => Date;
  /** The zone used when the model names none: the job's in a run, UTC in chat. */
  timezone: string;
  /** In a run: the time the occurrence was scheduled for. */
  occurrence?: Date | undefined;
}

const Args = z.object({ timezone: z.string().max(100).optional() });

/** Formats of the zones asked for; only valid names get here, and no more than this many. */
const MAX_FORMATS = 200;
const formats = new Map<string, Intl.DateTimeFormat>();

export function createClockTool(deps: ClockToolDeps): AgentTool {
  const occurrence = deps.occurrence
    ? ' In a scheduled run it also gives the occurrence: the time this run was scheduled for, which the job means by "now" (the run may start or go on later).'
    : '';
  return {
    definition: {
      type: 'function',
      function: {
        name: 'clock',
        description: `The current time, in UTC and in a time zone (an IANA name such as "Europe/Paris" or "America/New_York"; default ${deps.timezone}), with the weekday and the UTC offset.${occurrence}`,
        parameters: {
          type: 'object',
          properties: {
            timezone: { type: 'string', description: `IANA time zone, default ${deps.timezone}` },
          },
        },
      },
    },
    async run(raw) {
      const parsed = Args.safeParse(raw ?? {});
      if (!parsed.success) {
        return failure('invalid_arguments', 'expected {"timezone": "<IANA name>"} or {}');
      }
      const zone = parsed.data.timezone?.trim() || deps.timezone;
      const error = describeTimezoneError(zone);
      if (error) {
        return failure(
          'unknown_timezone',
          `${error}: use an IANA name such as "Europe/Paris", "America/New_York" or "UTC"`,
        );
      }
      const format = zoneFormat(zone);
      return JSON.stringify({
        ok: true,
        timezone: format.resolvedOptions().timeZone,
        now: describeInstant(deps.now(), format),
        ...(deps.occurrence ? { occurrence: describeInstant(deps.occurrence, format) } : {}),
      });
    },
  };
}

function zoneFormat(zone: string): Intl.DateTimeFormat {
  const held = formats.get(zone);
  if (held) return held;
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    weekday: 'long',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'longOffset',
  });
  if (formats.size < MAX_FORMATS) formats.set(zone, format);
  return format;
}

/** {"utc": "2026-12-04T09:45:00.000Z", "local": "2026-12-04T10:45:00+01:00", "weekday": "Friday"} */
function describeInstant(instant: Date, format: Intl.DateTimeFormat) {
  const parts = format.formatToParts(instant);
  const get = (type: Intl.DateTimeFormatPartTypes) =>
    parts.find((part) => part.type === type)?.value ?? '';
  // "GMT+01:00", or plain "GMT" at offset zero.
  const offset = get('timeZoneName').replace(/^GMT/, '') || '+00:00';
  return {
    utc: instant.toISOString(),
    local: `${get('year')}-${get('month')}-${get('day')}T${get('hour')}:${get('minute')}:${get('second')}${offset}`,
    weekday: get('weekday'),
  };
}

function failure(code: string, message: string): string {
  return JSON.stringify({ ok: false, error: { code, message } });
}
