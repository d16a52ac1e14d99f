import type pg from 'pg';
import type { Logger } from '../log.js';

/**
 * Databases migrated before the baseline: their schema_migrations lists the seventeen files
 * below, whose schema the baseline (every numbered migration up to BASELINE_LAST_VERSION) gives
 * exactly, tables and rows alike; test/integration/migrations-baseline.test.ts proves it by
 * comparing dumps. Such a database is moved onto the baseline by rewriting its bookkeeping, not
 * its tables: the functions no code calls any more are dropped, the baseline's versions are
 * recorded as applied, and the function files are then applied like on any database.
 */
export const BASELINE_LAST_VERSION = 107;

const PRE_BASELINE_FILES = [
  '001_app_role.sql',
  '002_tenants.sql',
  '003_api_keys.sql',
  '100_cron_jobs.sql',
  '101_cron_job_runs.sql',
  '102_cron_jobs_rls.sql',
  '103_cron_job_runs_rls.sql',
  '104_scheduler_cleanup_stale_runs.sql',
  '105_cron_jobs_notify.sql',
  '106_scheduler_functions.sql',
  '107_installation.sql',
  '108_scheduler_claim_returns_prompt.sql',
  '109_run_pipeline.sql',
  '120_cron_jobs_manual_trigger.sql',
  '121_idempotency_keys.sql',
  '122_security_definer_search_path.sql',
  '130_admin_cluster_runs.sql',
];

/** Kept by the pre-baseline migrations for pods of an earlier version; no code calls them. */
const OBSOLETE_FUNCTIONS = [
  'scheduler_claim_runs(uuid[], timestamptz[], text)',
  'scheduler_finish_runs(uuid[], boolean[], text[], text[], timestamptz[])',
  'scheduler_fail_named_runs(uuid[], text)',
  'scheduler_running_runs()',
  'scheduler_fail_runs(uuid[], text)',
];

export interface BaselineFile {
  version: number;
  name: string;
  checksum: string;
}

/**
 * Moves a pre-baseline database onto the baseline, inside the caller's migration lock. Does
 * nothing on a database that is empty or already on the baseline; refuses one that stopped
 * half-way through the pre-baseline migrations (it must first be brought up to their end by the
 * version that shipped them).
 */
export async function adoptBaseline(
  client: pg.Client,
  baseline: BaselineFile[],
  log: Logger,
  failure: (message: string) => Error,
): Promise<boolean> {
  // Run with the pre-baseline files themselves (the tests build such a database that way).
  if (baseline.some((file) => file.name === '106_scheduler_functions.sql')) return false;
  const { rows } = await client.query<{ name: string }>('SELECT name FROM schema_migrations');
  const names = new Set(rows.map((row) => row.name));
  const onBaseline = baseline.some((file) => names.has(file.name) && !isPreBaseline(file.name));
  const preBaseline = PRE_BASELINE_FILES.filter((name) => names.has(name));
  if (preBaseline.length === 0 || onBaseline) return false;
  if (!names.has('109_run_pipeline.sql') || preBaseline.length < PRE_BASELINE_FILES.length) {
    const missing = PRE_BASELINE_FILES.filter((name) => !names.has(name));
    throw failure(
      `this database stopped part-way through the migrations from before the baseline ` +
        `(missing ${missing.join(', ')}); apply them with the previous version first`,
    );
  }
  await client.query('BEGIN');
  try {
    for (const signature of OBSOLETE_FUNCTIONS) {
      await client.query(`DROP FUNCTION IF EXISTS ${signature}`);
    }
    await client.query('DELETE FROM schema_migrations');
    for (const file of baseline) {
      await client.query(
        'INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)',
        [file.version, file.name, file.checksum],
      );
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    const reason = err instanceof Error ? err.message : String(err);
    throw failure(`moving this database onto the baseline failed: ${reason}`);
  }
  log.info({ replaced: PRE_BASELINE_FILES.length, baseline: baseline.length }, 'baseline adopted');
  return true;
}

/** Names the pre-baseline files and the baseline share (001_app_role.sql, …) are not evidence. */
function isPreBaseline(name: string): boolean {
  return PRE_BASELINE_FILES.includes(name);
}
