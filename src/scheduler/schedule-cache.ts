import { parseSchedule, type ParsedSchedule } from '../jobs/schedule.js';

// A million jobs share a few thousand schedules at most; the cache is dropped when it grows
// past this, so a pod reading a million distinct ones stays bounded.
const MAX_CACHED = 10_000;

/** Parsed schedules by (zone, text): the window reader and the planning sweep parse each once. */
export class ScheduleCache {
  private readonly parsed = new Map<string, ParsedSchedule | string>();

  /** The parsed schedule, or the parser's message when it does not parse. */
  parse(schedule: string, timezone: string): ParsedSchedule | string {
    const key = `${timezone}|${schedule}`;
    let parsed = this.parsed.get(key);
    if (parsed === undefined) {
      const check = parseSchedule({ schedule, timezone });
      parsed = check.ok ? check.schedule : check.message;
      if (this.parsed.size >= MAX_CACHED) this.parsed.clear();
      this.parsed.set(key, parsed);
    }
    return parsed;
  }
}
