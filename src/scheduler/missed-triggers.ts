// "Run now" requests whose notification a pod may have missed (its listener connection was
// down): the jobs triggered since then, within the catch-up window, that no run answers yet,
// as run-now occurrences at the request's nominal time. The pods race for them as for any
// run-now; the claim's unique key lets one run each.
import type { Occurrence } from './occurrence.js';
import type { SchedulerDeps } from './settings.js';

export async function readMissedTriggers(
  deps: Pick<SchedulerDeps, 'store' | 'clock' | 'settings' | 'log'>,
  sinceMs: number,
): Promise<Occurrence[]> {
  const { store, clock, settings, log } = deps;
  const missed = await store.missedTriggers(
    Math.max(sinceMs, clock.now() - settings.catchupWindowMs),
  );
  if (missed.length === 0) log.debug('run-now requests not run yet: none');
  else log.info({ jobs: missed.length }, 'run-now requests not run yet: offered');
  return missed.map(({ jobId, scheduledAtMs }) => ({
    jobId,
    tenantId: '',
    scheduledAtMs,
    kind: 'manual',
  }));
}
