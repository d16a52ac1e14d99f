// Verification 2b, the guide's "Fault Recovery Verification" for a pod: the replica running a job
// (its model call made slow) is SIGKILLed; its run must be failed and the job run elsewhere, and
// the other jobs must keep running.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { runsOf, type Pod, type RunRow } from '../../../test/helpers/cluster.js';
import { POD_CRASH_ERROR } from './exclusion.js';
import { API_KEY, connectRedis, lbFetch, until, type Cluster } from './infra.js';
import { secs, type Report } from './report.js';
import { callsByOccurrence, insertJobRow, occurrenceKey, scenario, SLOW_JOB } from './scenario.js';

const KILL = '2b. Fault recovery: a replica SIGKILLed while running a job';
const RECOVERY_LIMIT_MS = 30_000;
type Say = (line: string) => void;

export async function verifyPodKill(
  c: Cluster,
  report: Report,
  say: Say,
  otherJobs: string[],
): Promise<string[]> {
  const slowId = randomUUID();
  scenario.slowJobId = slowId;
  await insertJobRow(c, SLOW_JOB, slowId);
  say(`job "${SLOW_JOB.name}" ${slowId}: its first model call takes 20 s`);
  const stuck = await until(async () => {
    const run = (await runsOf(c.db, [slowId])).find((r) => r.status === 'running');
    const called = run && callsByOccurrence(c).has(occurrenceKey(slowId, run.scheduled_at));
    return called ? run : undefined;
  }, 15_000);
  if (!stuck) throw new Error('the slow job never started a run that reached the model');
  const victim = c.pods.find((pod) => pod.podId === stuck.pod_id);
  if (!victim) throw new Error(`run ${stuck.id} names an unknown pod ${stuck.pod_id}`);
  // Killed between two per-second occurrences, once Redis shows the victim holds no other job's
  // lock: the other jobs are then not caught in the crash (see killAnytime for the other case).
  const redis = connectRedis(c);
  try {
    const quiet = killAnytime
      ? true
      : await until(
          async () => {
            if (!midSecond()) return false;
            const locks = await lockValues(redis, otherJobs);
            const { rows } = await c.db.query<{ n: number }>(
              `SELECT count(*)::integer AS n FROM cron_job_runs
                WHERE pod_id = $1 AND status IN ('claimed', 'running') AND cron_job_id <> $2`,
              [victim.podId, slowId],
            );
            const idle = otherJobs.every((id) => !heldBy(locks.get(id), victim.podId));
            return idle && rows[0]?.n === 0 && midSecond();
          },
          10_000,
          20,
        );
    say(
      `SIGKILL to ${victim.podId} (pid ${victim.pid}) running ${stuck.id}` +
        (killAnytime ? ' (at once)' : quiet ? ', between occurrences' : ', never idle: at once'),
    );
    await victim.kill('SIGKILL');
    return await afterKill(c, report, say, { victim, stuck, slowId, otherJobs, redis });
  } finally {
    redis.disconnect();
  }
}

/** VERIFY_CLUSTER_KILL_ANYTIME=1 kills at once, possibly while the victim runs other jobs too. */
const killAnytime = process.env.VERIFY_CLUSTER_KILL_ANYTIME === '1';

const midSecond = () => {
  const ms = Date.now() % 1000;
  return ms >= 300 && ms <= 850;
};

const heldBy = (value: string | null | undefined, podId: string) =>
  value?.startsWith('run|') === true && value.endsWith(`|${podId}`);

/** The jobs' lock values, straight from Redis. */
async function lockValues(redis: Redis, jobIds: string[]): Promise<Map<string, string | null>> {
  const values = await redis.mget(jobIds.map((id) => `hermesx:cron:lock:${id}`));
  return new Map(jobIds.map((id, i) => [id, values[i] ?? null]));
}

async function afterKill(
  c: Cluster,
  report: Report,
  say: Say,
  kill: { victim: Pod; stuck: RunRow; slowId: string; otherJobs: string[]; redis: Redis },
): Promise<string[]> {
  const { victim, stuck, slowId, otherJobs } = kill;
  const killedAt = Date.now();
  const survivors = c.pods.filter((pod) => pod !== victim);

  const failed = await until(async () => {
    const run = (await runsOf(c.db, [slowId])).find((r) => r.id === stuck.id);
    return run?.status === 'failed' ? { run, at: Date.now() } : undefined;
  }, RECOVERY_LIMIT_MS + 5000);
  const failedMs = failed ? failed.at - killedAt : Infinity;
  report.add(
    KILL,
    'crashFailed',
    `run ${stuck.id.slice(0, 8)} on ${victim.podId} failed, error "${POD_CRASH_ERROR}", within ${secs(RECOVERY_LIMIT_MS)}`,
    failed
      ? `failed after ${secs(failedMs)}, error "${failed.run.error}"`
      : `still ${(await runsOf(c.db, [slowId])).find((r) => r.id === stuck.id)?.status} after ${secs(RECOVERY_LIMIT_MS + 5000)}`,
    failedMs <= RECOVERY_LIMIT_MS && failed?.run.error === POD_CRASH_ERROR,
  );

  const later = (run: RunRow) =>
    run.status === 'success' &&
    run.pod_id !== victim.podId &&
    run.scheduled_at > stuck.scheduled_at;
  const rerun = await until(
    async () => {
      const run = (await runsOf(c.db, [slowId])).find(later);
      return run ? { run, at: Date.now() } : undefined;
    },
    killedAt + RECOVERY_LIMIT_MS + 5000 - Date.now(),
  );
  const rerunMs = rerun ? Math.min(rerun.at, rerun.run.started_at.getTime()) - killedAt : Infinity;
  report.add(
    KILL,
    'rerunElsewhere',
    `the job runs again (success) on another pod within ${secs(RECOVERY_LIMIT_MS)} of the kill`,
    rerun
      ? `on ${rerun.run.pod_id}, started ${secs(rerunMs)} after the kill`
      : 'no later successful run',
    rerunMs <= RECOVERY_LIMIT_MS,
  );

  // The other jobs: a successful run of an occurrence after the kill, on a surviving pod.
  const resumed = await until(
    async () => {
      const runs = await runsOf(c.db, otherJobs);
      const after = otherJobs.map((id) =>
        runs.find(
          (run) =>
            run.cron_job_id === id &&
            run.status === 'success' &&
            run.pod_id !== victim.podId &&
            run.scheduled_at.getTime() > killedAt,
        ),
      );
      return after.every(Boolean)
        ? after.map((run) => run!.started_at.getTime() - killedAt)
        : false;
    },
    killedAt + RECOVERY_LIMIT_MS + 5000 - Date.now(),
  );
  const { rows: collateral } = await c.db.query<{ n: number }>(
    `SELECT count(*)::integer AS n FROM cron_job_runs
      WHERE pod_id = $1 AND error = $2 AND cron_job_id <> $3`,
    [victim.podId, POD_CRASH_ERROR, slowId],
  );
  let stuckJobs = '';
  if (!resumed) {
    const runs = await runsOf(c.db, otherJobs);
    const locks = await lockValues(kill.redis, otherJobs).catch(() => new Map<string, null>());
    stuckJobs = otherJobs
      .filter(
        (id) =>
          !runs.some(
            (run) =>
              run.cron_job_id === id &&
              run.status === 'success' &&
              run.scheduled_at.getTime() > killedAt,
          ),
      )
      .map((id) => {
        const last = runs.filter((run) => run.cron_job_id === id).at(-1);
        const lastText = last
          ? `last run ${last.scheduled_at.toISOString().slice(11, 19)} ${last.status} on ${last.pod_id}`
          : 'no run';
        return `${id.slice(0, 8)}: lock "${locks.get(id) ?? '(none)'}", ${lastText}`;
      })
      .join('; ');
  }
  report.add(
    KILL,
    'othersKeepRunning',
    `each of the ${otherJobs.length} other jobs runs again (success, surviving pod) within ${secs(RECOVERY_LIMIT_MS)}`,
    resumed
      ? `${otherJobs.length}/${otherJobs.length} jobs; slowest first run ${secs(Math.max(...resumed))} after the kill; ` +
          `${collateral[0]?.n ?? 0} other run(s) of the killed pod failed with "${POD_CRASH_ERROR}"`
      : `not every job ran again within ${secs(RECOVERY_LIMIT_MS)}: ${stuckJobs}`,
    resumed !== undefined && Math.max(...resumed) <= RECOVERY_LIMIT_MS,
  );

  const api: { status: number; tried: string[] }[] = [];
  for (let i = 0; i < c.pods.length; i++) {
    api.push(
      await lbFetch(c, '/v1/cron-jobs', { token: API_KEY }).catch((err: unknown) => ({
        status: 0,
        tried: [String(err)],
      })),
    );
  }
  report.add(
    KILL,
    'apiAfterKill',
    `GET /v1/cron-jobs ×${c.pods.length} → HTTP 200, answered by a surviving pod`,
    api.map((answer) => `${answer.status} (${answer.tried.join(' ✗ → ')})`).join(', '),
    api.every((answer) => answer.status === 200 && answer.tried.at(-1) !== victim.podId),
  );

  return survivors.map((pod) => pod.podId);
}
