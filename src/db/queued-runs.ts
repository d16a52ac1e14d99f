// The scheduler's statements on queued runs (retries, runs retried by hand, backfills): taking due
// ones and handing claimed ones back; and handing back runs claimed ahead that never sent. All go
// through SECURITY DEFINER functions (migrations/functions/), because the scheduler works across
// tenants.
import type { AdoptedRun } from '../domain/run.js';
import type { Pool } from './pool.js';
import { TAKEN_RUN_COLUMNS, toAdoptedRun, type TakenRunRow } from './runs.js';

export async function takeQueuedRuns(
  pool: Pool,
  podId: string,
  limit: number,
): Promise<AdoptedRun[]> {
  const { rows } = await pool.query<TakenRunRow>(
    `SELECT ${TAKEN_RUN_COLUMNS} FROM scheduler_take_queued($1, $2)`,
    [podId, limit],
  );
  return rows.map(toAdoptedRun);
}

/** Runs claimed straight into 'running' that never sent: back to 'claimed', for adoption. */
export async function unsendRuns(
  pool: Pool,
  runIds: readonly string[],
  podId: string,
): Promise<string[]> {
  if (runIds.length === 0) return [];
  const { rows } = await pool.query<{ id: string }>('SELECT scheduler_unsend($1, $2) AS id', [
    runIds,
    podId,
  ]);
  return rows.map((row) => row.id);
}

export async function requeueRuns(
  pool: Pool,
  runIds: readonly string[],
  podId: string,
  delayMs: number,
): Promise<string[]> {
  if (runIds.length === 0) return [];
  const { rows } = await pool.query<{ id: string }>('SELECT scheduler_requeue($1, $2, $3) AS id', [
    runIds,
    podId,
    Math.round(delayMs),
  ]);
  return rows.map((row) => row.id);
}
