// The sweep of orphaned result objects. A long answer is written to the object store before its
// run is recorded (run-results.ts), so a pod killed in between leaves an object no row points at;
// runs dropped by retention (scheduler_runs_maintain drops partitions and trims rows) leave theirs
// too. Deleted jobs' objects are removed by the hourly upkeep right after the purge
// (scheduler/run-history.ts); this catches the rest.
//
//   sweepOrphanResults(deps, cursor, goOn) → {tally, cursor}   one bounded round from cursor
//   new ResultSweeper(deps).start() / .stop()                  the loop on every pod (a Service)
//
// An object `<tenant>/runs/<job>/<run>.txt` is deleted when it is older than the grace period and
// the tenant has no run row with that id. The grace covers a run being recorded right now (its
// object is seconds old); anything else under `runs/` is left alone.
import type { Pool } from '../db/pool.js';
import type { Logger } from '../log.js';
import { systemClock, type Clock } from '../services/clock.js';
import { startLoop, type Loop } from '../services/loop.js';
import type { Service } from '../services/service.js';
import type { ListedObject, ObjectStore } from './object-store.js';

export interface SweepSettings {
  /** Objects younger than this are kept whatever the database says. */
  graceMs: number;
  /** Between rounds. */
  intervalMs: number;
  /** Objects listed per round at most; the next round goes on from there. */
  maxObjectsPerRound: number;
}

export const DEFAULT_SWEEP_SETTINGS: SweepSettings = {
  graceMs: 24 * 3_600_000,
  intervalMs: 3_600_000,
  maxObjectsPerRound: 20_000,
};

export interface SweepDeps {
  pool: Pool;
  store: ObjectStore;
  log: Logger;
  now?: () => Date;
  settings?: Partial<SweepSettings>;
}

/**
 * Where a round stopped: the tenant being listed (the first after `tenantsAfter`), and the last
 * key seen there. SWEEP_START: from the first tenant.
 */
export interface SweepCursor {
  tenantsAfter: string | null;
  tenantId: string | null;
  startAfter: string | undefined;
}

export interface SweepTally {
  tenants: number;
  listed: number;
  deleted: number;
  /** True when the round went through every tenant (the cursor is back at the start). */
  complete: boolean;
}

export const SWEEP_START: SweepCursor = {
  tenantsAfter: null,
  tenantId: null,
  startAfter: undefined,
};
const TENANT_PAGE = 100;
const FIRST_RETRY_MS = 60_000;
const RUN_RESULT =
  /^[0-9a-f-]{36}\/runs\/[^/]+\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.txt$/;

/** The run results among `objects` old enough to go if unrecorded (pure: time is an argument). */
export function sweepCandidates(
  objects: readonly ListedObject[],
  now: Date,
  graceMs: number,
): { key: string; runId: string }[] {
  const cutoffMs = now.getTime() - graceMs;
  return objects.flatMap((object) => {
    const runId = RUN_RESULT.exec(object.key)?.[1];
    return runId !== undefined && object.modifiedAt.getTime() < cutoffMs
      ? [{ key: object.key, runId }]
      : [];
  });
}

/** One round: tenants in id order from the cursor, at most maxObjectsPerRound objects listed. */
export async function sweepOrphanResults(
  deps: SweepDeps,
  cursor: SweepCursor = SWEEP_START,
  goOn: () => boolean = () => true,
): Promise<{ tally: SweepTally; cursor: SweepCursor }> {
  const settings = { ...DEFAULT_SWEEP_SETTINGS, ...deps.settings };
  const now = (deps.now ?? (() => new Date()))();
  const tally: SweepTally = { tenants: 0, listed: 0, deleted: 0, complete: false };
  let tenantsAfter = cursor.tenantsAfter;
  let resume = cursor;
  for (;;) {
    const tenants = await tenantIds(deps.pool, tenantsAfter);
    for (const tenantId of tenants) {
      tally.tenants += 1;
      let startAfter = resume.tenantId === tenantId ? resume.startAfter : undefined;
      resume = SWEEP_START;
      for (;;) {
        const left = settings.maxObjectsPerRound - tally.listed;
        // Bounded, and cut short at shutdown: the next round (or pod) goes on from here.
        if (left <= 0 || !goOn()) return { tally, cursor: { tenantsAfter, tenantId, startAfter } };
        const page = await deps.store.list(`${tenantId}/runs/`, { startAfter, limit: left });
        tally.listed += page.objects.length;
        tally.deleted += await deleteOrphans(deps, tenantId, page.objects, now, settings.graceMs);
        if (page.nextStartAfter === null) break;
        startAfter = page.nextStartAfter;
      }
      tenantsAfter = tenantId;
    }
    if (tenants.length < TENANT_PAGE) {
      return { tally: { ...tally, complete: true }, cursor: SWEEP_START };
    }
  }
}

async function tenantIds(pool: Pool, after: string | null): Promise<string[]> {
  const { rows } = await pool.query<{ id: string }>(
    'SELECT id FROM storage_tenant_ids($1, $2) AS id',
    [after, TENANT_PAGE],
  );
  return rows.map((row) => row.id);
}

async function deleteOrphans(
  deps: SweepDeps,
  tenantId: string,
  objects: readonly ListedObject[],
  now: Date,
  graceMs: number,
): Promise<number> {
  const candidates = sweepCandidates(objects, now, graceMs);
  if (candidates.length === 0) return 0;
  const { rows } = await deps.pool.query<{ id: string }>(
    'SELECT id FROM storage_recorded_runs($1, $2) AS id',
    [tenantId, candidates.map((candidate) => candidate.runId)],
  );
  const recorded = new Set(rows.map((row) => row.id));
  let deleted = 0;
  for (const candidate of candidates) {
    if (recorded.has(candidate.runId)) continue;
    await deps.store.delete(candidate.key);
    deleted += 1;
  }
  return deleted;
}

export interface ResultSweeperDeps extends SweepDeps {
  /** When rounds run, and (unless `now` is given) the time the grace is measured from. */
  clock?: Clock;
}

/** Every pod sweeps (deletes are idempotent); a failed round is logged and retried sooner. */
export class ResultSweeper implements Service {
  readonly name = 'result sweeper';
  private loop: Loop | undefined;
  private cursor: SweepCursor = SWEEP_START;
  private readonly settings: SweepSettings;
  private readonly clock: Clock;

  constructor(private readonly deps: ResultSweeperDeps) {
    this.settings = { ...DEFAULT_SWEEP_SETTINGS, ...deps.settings };
    this.clock = deps.clock ?? systemClock;
  }

  start(): void {
    if (this.loop) return;
    const { log } = this.deps;
    this.loop = startLoop({
      name: this.name,
      intervalMs: this.settings.intervalMs,
      clock: this.clock,
      log,
      round: (signal) => this.sweepOnce(signal),
      backoff: { firstMs: FIRST_RETRY_MS, maxMs: this.settings.intervalMs },
      onFailure: (err, failures, retryInMs) =>
        log.warn(
          {
            error: err instanceof Error ? err.message : String(err),
            object_store: this.deps.store.description,
            failures,
            retry_in_ms: retryInMs,
          },
          'orphaned result objects not swept',
        ),
    });
  }

  /** A round under way stops at its next page (the next round, on some pod, goes on from there). */
  async stop(): Promise<void> {
    await this.loop?.stop();
  }

  private async sweepOnce(signal: AbortSignal): Promise<void> {
    const clock = this.clock;
    const deps = { ...this.deps, now: this.deps.now ?? (() => new Date(clock.now())) };
    const done = await sweepOrphanResults(deps, this.cursor, () => !signal.aborted);
    this.cursor = done.cursor;
    const { tally } = done;
    if (tally.deleted > 0 || !tally.complete) {
      this.deps.log.info(
        {
          tenants: tally.tenants,
          objects_listed: tally.listed,
          orphans_deleted: tally.deleted,
          complete: tally.complete,
        },
        'orphaned result objects swept',
      );
    }
  }
}
