// Verification 2c: PostgreSQL stopped and started again (same port, same data) while the
// surviving replicas schedule: every job, the side-effect job included, runs again (success)
// after it, every surviving replica is still up, listens for job changes again and runs some of
// them; the whole run's checks and the side effects' counts (side-effects.ts) then cover the
// restart too.
import { runsOf } from '../../../test/helpers/cluster.js';
import { isAlive } from '../../../test/helpers/process-wait.js';
import { restartPostgres, until, type Cluster } from './infra.js';
import { secs, type Report } from './report.js';

const SECTION = '2c. Fault recovery: PostgreSQL stopped and restarted';
const RESUME_LIMIT_MS = 30_000;
const LISTENING_AGAIN = /msg="job notifications: listening again"/;

export interface PgRestartTimes {
  downMs: number;
  /** From PostgreSQL's return to the slowest job's first run after it. */
  resumeMs: number | undefined;
}

export async function verifyPostgresRestart(
  c: Cluster,
  report: Report,
  say: (line: string) => void,
  survivors: string[],
): Promise<PgRestartTimes> {
  const live = c.pods.filter((pod) => survivors.includes(pod.podId));
  const marks = live.map((pod) => pod.lines.length);
  const { rows } = await c.db.query<{ id: string }>('SELECT id FROM cron_jobs WHERE enabled');
  const jobIds = rows.map((row) => row.id);
  say(`stopping PostgreSQL (pid ${c.postgresPid}) and starting it again on the same port`);
  const stoppedAt = Date.now();
  await restartPostgres(c);
  const upAt = Date.now();
  say(`PostgreSQL back after ${secs(upAt - stoppedAt)} (pid ${c.postgresPid})`);
  const resumed = await until(async () => {
    const runs = await runsOf(c.db, jobIds);
    const after = runs.filter(
      (run) => run.status === 'success' && run.scheduled_at.getTime() > upAt,
    );
    const jobsBack = jobIds.map((id) => after.find((run) => run.cron_job_id === id));
    const podsBack = live.every((pod) => after.some((run) => run.pod_id === pod.podId));
    return jobsBack.every(Boolean) && podsBack
      ? jobsBack.map((run) => run!.started_at.getTime() - upAt)
      : false;
  }, RESUME_LIMIT_MS);
  // A replica the restart ended (or whose notifications stayed cut) fails the check by name.
  const states = await Promise.all(
    live.map(async (pod, i) => {
      if (!isAlive(pod.pid)) return `${pod.podId} exited`;
      const listening = await pod
        .waitForLine(LISTENING_AGAIN, 15_000, marks[i])
        .then(() => true)
        .catch(() => false);
      return listening ? `${pod.podId} up, listening again` : `${pod.podId} not listening again`;
    }),
  );
  const podsOk = states.every((state) => state.endsWith(' up, listening again'));
  report.add(
    SECTION,
    'pgResumed',
    `each of the ${jobIds.length} enabled jobs runs again (success) within ${secs(RESUME_LIMIT_MS)} ` +
      `of PostgreSQL's return, on every surviving replica, each still up and listening for job changes again`,
    (resumed
      ? `${jobIds.length}/${jobIds.length} jobs; down ${secs(upAt - stoppedAt)}; slowest first run ${secs(Math.max(...resumed))} after it came back`
      : `not every job ran again on every replica within ${secs(RESUME_LIMIT_MS)}`) +
      `; ${states.join(', ')}`,
    resumed !== undefined && podsOk,
  );
  return {
    downMs: upAt - stoppedAt,
    resumeMs: resumed ? Math.max(...resumed) : undefined,
  };
}
