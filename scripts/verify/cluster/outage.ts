// Verification 2a, the guide's "Fault Recovery Verification" for Redis, as a failover: the Redis
// primary is SIGKILLed while three replicas schedule jobs through Sentinel; the sentinels promote
// its replica. Meanwhile the replicas pause (readiness degraded, no run without a primary), then
// every one of them schedules again on the new primary. Occurrences due meanwhile are caught up
// within the catch-up window; the final and side-effect checks count them like the others.
import { logField, type Pod } from '../../../test/helpers/cluster.js';
import { isAlive } from '../../../test/helpers/process-wait.js';
import { withClient } from '../../../test/helpers/redis-processes.js';
import { POLL_MS, SENTINEL_DOWN_AFTER_MS, lbFetch, until, type Cluster } from './infra.js';
import { secs, type Report } from './report.js';

const REDIS =
  '2a. Fault recovery: Redis primary SIGKILLed, Sentinel fails over (guide: Fault Recovery Verification)';
/** Sentinel's own steps after down-after (agreement, election, promotion) take a few seconds. */
const FAILOVER_LIMIT_MS = SENTINEL_DOWN_AFTER_MS + 15_000;
type Say = (line: string) => void;

const DISABLED = /msg="scheduler disabled: redis unavailable"/;
const STARTED = /msg="scheduler started"/;

export interface FailoverTimes {
  /** From the kill to the sentinels naming the replica primary. */
  promotedMs: number | undefined;
  /** From the kill to the last replica's "scheduler started". */
  resumedMs: number | undefined;
}

export async function verifyRedisFailover(
  c: Cluster,
  report: Report,
  say: Say,
): Promise<FailoverTimes> {
  const { primary, replica } = c.sentinel;
  const marks = c.pods.map((pod) => pod.lines.length);
  say(`SIGKILL to the Redis primary (pid ${primary.pid}, port ${primary.port})`);
  const killedAt = Date.now();
  await primary.kill();
  if (isAlive(primary.pid)) throw new Error(`redis-server pid ${primary.pid} survived SIGKILL`);
  // Watched from here on, while the other checks wait on the replicas; often, as the time bounds
  // the runs allowed (noRunsWhileDown). The replica itself tells: it takes no lock before it is
  // a primary (a replica refuses writes), whatever a given sentinel has heard by then.
  const promotion = until(
    async () => {
      const role = await withClient(replica.port, c.sentinel.password, (redis) =>
        redis.info('replication'),
      );
      return /^role:master\b/m.test(role) ? Date.now() : undefined;
    },
    FAILOVER_LIMIT_MS,
    20,
  );

  const disabled = await Promise.all(
    c.pods.map((pod, i) =>
      pod.waitForLine(DISABLED, 10_000, marks[i]).then(
        (line) => `${pod.podId} +${secs(lineTime(line) - killedAt)}`,
        () => `${pod.podId} none`,
      ),
    ),
  );
  report.add(
    REDIS,
    'redisDownLogged',
    'each pod logs level=WARN msg="scheduler disabled: redis unavailable"',
    disabled.join(', '),
    disabled.every((entry) => !entry.endsWith('none')),
  );

  // Health through nginx until each replica answered degraded (round robin), before the sentinels
  // promote the replica: every answer meanwhile is a 200.
  const answers = new Map<string, string>();
  const wrong: string[] = [];
  await until(async () => {
    const ready = await lbFetch(c, '/health/ready', { timeoutMs: 5000 });
    const body = ready.json as { status?: string; checks?: Record<string, string> } | undefined;
    const text = `${ready.status} ${JSON.stringify(ready.json ?? ready.text)}`;
    if (ready.status !== 200) wrong.push(`${ready.pod}: ${text}`);
    const degraded =
      body?.status === 'degraded' &&
      body.checks?.redis === 'error' &&
      body.checks.database === 'ok';
    if (degraded && !answers.has(ready.pod)) answers.set(ready.pod, text);
    return answers.size >= c.pods.length;
  }, SENTINEL_DOWN_AFTER_MS);
  report.add(
    REDIS,
    'readyDegraded',
    'HTTP 200 {"status":"degraded","checks":{"database":"ok","redis":"error"}} from every replica while there is no primary; no other status',
    `${[...answers.entries()].map(([pod, text]) => `${pod}: ${text}`).join('; ') || 'none degraded'}` +
      (wrong.length ? `; wrong: ${wrong.join('; ')}` : ''),
    answers.size === c.pods.length && wrong.length === 0,
  );

  const promotedAt = await promotion;
  if (promotedAt === undefined) {
    throw new Error(
      `the sentinels did not promote the replica (port ${replica.port}) within ${secs(FAILOVER_LIMIT_MS)}`,
    );
  }
  say(
    `the replica (port ${replica.port}) is primary ${secs(promotedAt - killedAt)} after the kill`,
  );
  // No primary, no lock: nothing due after the kill starts before the promotion.
  const { rows: during } = await c.db.query<{ due_in_outage: number; straddling: number }>(
    `SELECT count(*) FILTER (WHERE scheduled_at > $1)::integer AS due_in_outage,
            count(*) FILTER (WHERE scheduled_at <= $1)::integer AS straddling
       FROM cron_job_runs WHERE started_at > $1 AND started_at < $2`,
    [new Date(killedAt), new Date(promotedAt)],
  );
  const outage = during[0] ?? { due_in_outage: -1, straddling: -1 };
  report.add(
    REDIS,
    'noRunsWhileDown',
    `0 runs of occurrences due after the kill started before the promotion (${secs(promotedAt - killedAt)} without a primary)`,
    `${outage.due_in_outage} runs of occurrences due after the kill; ` +
      `${outage.straddling} claimed after it for occurrences due before it (lock taken before the kill)`,
    outage.due_in_outage === 0,
  );

  const firstRun = await until(async () => {
    const { rows } = await c.db.query<{ started_at: Date; pod_id: string; scheduled_at: Date }>(
      `SELECT started_at, pod_id, scheduled_at FROM cron_job_runs
        WHERE started_at > $1 ORDER BY started_at LIMIT 1`,
      [new Date(promotedAt)],
    );
    return rows[0];
  }, POLL_MS + 15_000);
  const resumeMs = firstRun ? firstRun.started_at.getTime() - promotedAt : Infinity;
  report.add(
    REDIS,
    'resumed',
    `first run with started_at after the promotion within the poll interval (≤ ${secs(POLL_MS)})`,
    firstRun
      ? `${secs(resumeMs)} after the promotion (run of ${firstRun.scheduled_at.toISOString().slice(11, 19)} on ${firstRun.pod_id})`
      : `no run within ${secs(POLL_MS + 15_000)}`,
    resumeMs <= POLL_MS,
  );

  const newPrimary = `127.0.0.1:${replica.port}`;
  const started = await Promise.all(
    c.pods.map((pod, i) => resumedOn(pod, marks[i] ?? 0, newPrimary, killedAt)),
  );
  report.add(
    REDIS,
    'startedLogged',
    `each pod logs msg="redis failover: new primary ${newPrimary}" and level=INFO msg="scheduler started" again`,
    started.map((entry) => entry.text).join(', '),
    started.every((entry) => entry.atMs !== undefined),
  );
  const times = started.map((entry) => entry.atMs);
  return {
    promotedMs: promotedAt - killedAt,
    resumedMs: times.every((t) => t !== undefined)
      ? Math.max(...(times as number[])) - killedAt
      : undefined,
  };
}

/** When the pod scheduled again on the new primary (undefined if it did not), and what it logged. */
async function resumedOn(
  pod: Pod,
  mark: number,
  newPrimary: string,
  killedAt: number,
): Promise<{ text: string; atMs: number | undefined }> {
  const limitMs = FAILOVER_LIMIT_MS + POLL_MS;
  const failover = await pod
    .waitForLine(new RegExp(`msg="redis failover: new primary ${newPrimary}"`), limitMs, mark)
    .catch(() => undefined);
  const started = await pod.waitForLine(STARTED, limitMs, mark).catch(() => undefined);
  if (!failover || !started) {
    return {
      text: `${pod.podId} ${failover ? '' : 'no new primary logged '}${started ? '' : 'not started'}`.trim(),
      atMs: undefined,
    };
  }
  const atMs = lineTime(started);
  return {
    text: `${pod.podId} +${secs(atMs - killedAt)} poll_interval=${logField(started, 'poll_interval')}`,
    atMs,
  };
}

function lineTime(line: string): number {
  return Date.parse(logField(line, 'time') ?? '');
}
