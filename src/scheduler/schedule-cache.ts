import { parseSchedule, type ParsedSchedule } from '../schedule/schedule.js';

// Jobs mostly share schedules ("every minute", "daily at 09:00"); a parsed schedule weighs
// kilobytes, so the cache is dropped when it grows past this: a pod planning a million distinct
// schedules (a daily job at every second of the day) stays within a few megabytes.
const MAX_CACHED = 1000;

/** Parsed schedules by (zone, end, text): the window reader and the planning sweep parse each once. */
export class ScheduleCache {
  private readonly parsed = new Map<string, ParsedSchedule | string>();

  /** The parsed schedule (without occurrences after `endsAt`), or the parser's message. */
  parse(schedule: string, timezone: string, endsAt?: Date | null): ParsedSchedule | string {
    const key = `${timezone}|${endsAt?.getTime() ?? ''}|${schedule}`;
    let parsed = this.parsed.get(key);
    if (parsed === undefined) {
      const check = parseSchedule({ schedule, timezone, endsAt });
      parsed = check.ok ? check.schedule : check.message;
      if (this.parsed.size >= MAX_CACHED) this.parsed.clear();
      this.parsed.set(key, parsed);
    }
    return parsed;
  }
}
