// The scheduler's rooms, wired: the timeline and the dispatcher the services share, and the
// services themselves, each handed what it needs. The supervisor (scheduler.ts) owns the result.
import { Dispatcher } from '../dispatcher.js';
import type { SchedulerEvents } from '../events.js';
import type { Occurrence } from '../occurrence.js';
import type { PipelineDeps, RunResult } from '../pipeline.js';
import { RunEnds } from '../run-ends.js';
import { runOccurrence } from '../run-occurrence.js';
import { ScheduleCache } from '../schedule-cache.js';
import { DEFAULT_LOOKAHEAD_MS, type SchedulerDeps } from '../settings.js';
import { Timeline } from '../timeline.js';
import { Availability } from './availability.js';
import { HistoryUpkeep } from './history.js';
import { Liveness } from './liveness.js';
import { Recovery } from './recovery.js';
import type { Lifecycle } from './lifecycle.js';
import { Ticker } from './ticker.js';
import { WindowReader } from './window-reader.js';

/** What the supervisor gives its rooms: where outcomes go back, and how to stop firing. */
export interface SupervisorHooks {
  settled(occurrence: Occurrence, result: RunResult): void;
  deactivate(): void;
}

export interface Rooms {
  timeline: Timeline;
  dispatcher: Dispatcher;
  runEnds: RunEnds;
  availability: Availability;
  reader: WindowReader;
  history: HistoryUpkeep;
  recovery: Recovery;
  liveness: Liveness;
  ticker: Ticker;
}

export function buildRooms(
  deps: SchedulerDeps,
  events: SchedulerEvents,
  lifecycle: Lifecycle,
  hooks: SupervisorHooks,
): Rooms {
  const schedules = new ScheduleCache();
  const timeline = new Timeline(deps.log, deps.metrics, schedules);
  const runEnds = new RunEnds();
  const pipeline: PipelineDeps = {
    ...deps,
    events,
    lookup: (id) => timeline.get(id),
    inFlightHere: (id, ms) => dispatcher.inFlightAt(id, ms),
    whenRunEnds: (id, wake) => runEnds.wait(id, wake),
  };
  const dispatcher: Dispatcher = new Dispatcher({
    settings: deps.settings,
    clock: deps.clock,
    metrics: deps.metrics,
    events,
    run: (occurrence, controller, slot) => runOccurrence(pipeline, occurrence, controller, slot),
    settled: (occurrence, result) => hooks.settled(occurrence, result),
  });
  const recoveryDeps = { ...deps, events };
  const window = {
    ...deps,
    timeline,
    schedules,
    catchupWindowMs: deps.settings.catchupWindowMs,
    lookaheadMs: deps.settings.lookaheadMs ?? DEFAULT_LOOKAHEAD_MS,
  };
  const shared = { deps, lifecycle, dispatcher };
  const liveness = new Liveness({ ...shared, recovery: recoveryDeps });
  const ticker = new Ticker({
    clock: deps.clock,
    podId: deps.settings.podId,
    lifecycle,
    timeline,
    dispatcher,
    peers: () => liveness.peers,
  });
  const reader = new WindowReader({ ...shared, window, ticker });
  const recovery = new Recovery({ ...shared, recovery: recoveryDeps, jobs: window });
  const history = new HistoryUpkeep(deps, lifecycle);
  const availability = new Availability({
    ...shared,
    lookaheadMs: window.lookaheadMs,
    timeline,
    liveness,
    reader,
    recovery,
    history,
    deactivate: () => hooks.deactivate(),
  });
  return {
    timeline,
    dispatcher,
    runEnds,
    availability,
    reader,
    history,
    recovery,
    liveness,
    ticker,
  };
}
