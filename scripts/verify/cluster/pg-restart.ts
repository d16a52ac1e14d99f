// Verification 2c: PostgreSQL stopped and started again (same port, same data) while the
// surviving replicas schedule: every job, the side-effect job included, runs again (success)
// after it, and the whole run's checks and the side effects' counts (side-effects.ts) then
// cover the restart too.
import { runsOf } from '../../../test/helpers/cluster.js';
import { restartPostgres, until, type Cluster } from './infra.js';
import { secs, type Report } from './report.js';

const SECTION = '2c. Fault recovery: PostgreSQL stopped and restarted';
const RESUME_LIMIT_MS = 30_000;

export async function verifyPostgresRestart(
  c: Cluster,
  report: Report,
  say: (line: string) => void,
): Promise<void> {
  const { rows } = await c.db.query<{ id: string }>('SELECT id FROM cron_jobs WHERE enabled');
  const jobIds = rows.map((row) => row.id);
  say(`stopping PostgreSQL (pid ${c.postgresPid}) and starting it again on the same port`);
  const stoppedAt = Date.now();
  await restartPostgres(c);
  const upAt = Date.now();
  say(`PostgreSQL back after ${secs(upAt - stoppedAt)} (pid ${c.postgresPid})`);
  const resumed = await until(async () => {
    const runs = await runsOf(c.db, jobIds);
    const after = jobIds.map((id) =>
      runs.find(
        (run) =>
          run.cron_job_id === id && run.status === 'success' && run.scheduled_at.getTime() > upAt,
      ),
    );
    return after.every(Boolean) ? after.map((run) => run!.started_at.getTime() - upAt) : false;
  }, RESUME_LIMIT_MS);
  report.add(
    SECTION,
    'pgResumed',
    `each of the ${jobIds.length} enabled jobs runs again (success) within ${secs(RESUME_LIMIT_MS)} of PostgreSQL's return`,
    resumed
      ? `${jobIds.length}/${jobIds.length} jobs; down ${secs(upAt - stoppedAt)}; slowest first run ${secs(Math.max(...resumed))} after it came back`
      : `not every job ran again within ${secs(RESUME_LIMIT_MS)}`,
    resumed !== undefined,
  );
}
