// The run history's upkeep in memory (scheduler_runs_maintain), as far as memory has it: the day
// partitions of today and the days ahead, and those past the longest retention dropped with
// their runs. Tenants' shorter retentions and deleted jobs are PostgreSQL's (the fake deletes a
// job and its runs at once).
import type { RunHistoryUpkeep } from '../../src/domain/run.js';
import type { Tables } from './rows.js';

const DAY_MS = 86_400_000;
/** tenants.run_retention_days' default: the longest retention when no tenant keeps longer. */
const RETENTION_DAYS = 30;

const dayOf = (ms: number) => Math.floor(ms / DAY_MS);

/** The partitions migration 111 creates (UTC day numbers): today and the week after. */
export function migratedPartitions(nowMs: number): number[] {
  const today = dayOf(nowMs);
  return Array.from({ length: 8 }, (_, i) => today + i);
}

/** One round of upkeep over `partitions` (UTC day numbers), changed in place. */
export function maintainPartitions(
  tables: Tables,
  partitions: Set<number>,
  nowMs: number,
  daysAhead: number,
): RunHistoryUpkeep {
  const today = dayOf(nowMs);
  let created = 0;
  for (let day = today; day <= today + daysAhead; day++) {
    if (partitions.has(day)) continue;
    partitions.add(day);
    created++;
  }
  let dropped = 0;
  for (const day of [...partitions]) {
    if (day + 1 > today - RETENTION_DAYS) continue;
    partitions.delete(day);
    dropped++;
    for (const run of [...tables.runs.values()]) {
      if (dayOf(run.scheduledAt.getTime()) === day) tables.runs.delete(run.id);
    }
  }
  return { created, dropped, deleted: 0, purgedJobs: [] };
}
