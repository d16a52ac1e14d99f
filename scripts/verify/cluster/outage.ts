// Verification 2a, the guide's "Fault Recovery Verification" for Redis: redis-server stopped
// (SIGTERM by PID) and started again on the same port while three replicas schedule jobs.
import { logField } from '../../../test/helpers/cluster.js';
import { isAlive } from '../../../test/helpers/process-wait.js';
import { POLL_MS, lbFetch, restartRedis, until, type Cluster } from './infra.js';
import { secs, type Report } from './report.js';

const REDIS =
  '2a. Fault recovery: Redis stopped and restarted (guide: Fault Recovery Verification)';
const OUTAGE_MS = 6000;
type Say = (line: string) => void;

const DISABLED = /msg="scheduler disabled: redis unavailable"/;
const STARTED = /msg="scheduler started"/;

export async function verifyRedisOutage(c: Cluster, report: Report, say: Say): Promise<void> {
  const marks = c.pods.map((pod) => pod.lines.length);
  const pid = c.redis.pid;
  say(`stopping Redis: SIGTERM to redis-server pid ${pid}`);
  process.kill(pid, 'SIGTERM');
  const gone = await until(() => !isAlive(pid), 10_000, 10);
  const downAt = Date.now();
  if (!gone) throw new Error(`redis-server pid ${pid} still runs 10 s after SIGTERM`);
  await c.redis.stop();

  const disabled = await Promise.all(
    c.pods.map((pod, i) =>
      pod.waitForLine(DISABLED, 10_000, marks[i]).then(
        (line) => `${pod.podId} +${secs(Date.parse(logField(line, 'time') ?? '') - downAt)}`,
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

  // Health through nginx, until each replica answered (round robin) — all while Redis is down.
  const answers = new Map<string, string>();
  const wrong: string[] = [];
  await until(async () => {
    const ready = await lbFetch(c, '/health/ready', { timeoutMs: 5000 });
    const body = ready.json as { status?: string; checks?: Record<string, string> } | undefined;
    const text = `${ready.status} ${JSON.stringify(ready.json ?? ready.text)}`;
    answers.set(ready.pod, text);
    const degraded =
      ready.status === 200 &&
      body?.status === 'degraded' &&
      body.checks?.redis === 'error' &&
      body.checks.database === 'ok';
    if (!degraded) wrong.push(`${ready.pod}: ${text}`);
    return answers.size >= c.pods.length;
  }, 10_000);
  report.add(
    REDIS,
    'readyDegraded',
    'HTTP 200 {"status":"degraded","checks":{"database":"ok","redis":"error"}} from every replica',
    `${[...answers.entries()].map(([pod, text]) => `${pod}: ${text}`).join('; ')}` +
      (wrong.length ? `; wrong: ${wrong.join('; ')}` : ''),
    answers.size === c.pods.length && wrong.length === 0,
  );

  // The outage lasts OUTAGE_MS (several per-second occurrences come due meanwhile).
  await until(() => Date.now() >= downAt + OUTAGE_MS, OUTAGE_MS + 1000, 200);
  const { rows: during } = await c.db.query<{ due_in_outage: number; straddling: number }>(
    `SELECT count(*) FILTER (WHERE scheduled_at > $1)::integer AS due_in_outage,
            count(*) FILTER (WHERE scheduled_at <= $1 AND started_at > $1)::integer AS straddling
       FROM cron_job_runs WHERE scheduled_at > $1 OR started_at > $1`,
    [new Date(downAt)],
  );
  const outage = during[0] ?? { due_in_outage: -1, straddling: -1 };
  report.add(
    REDIS,
    'noRunsWhileDown',
    `0 runs of occurrences due during the outage (${secs(OUTAGE_MS)}, before the restart)`,
    `${outage.due_in_outage} runs of occurrences due after Redis exited; ` +
      `${outage.straddling} claimed after exit for occurrences due before it (lock taken while Redis was up)`,
    outage.due_in_outage === 0,
  );

  const restartMarks = c.pods.map((pod) => pod.lines.length);
  say(`starting redis-server again on port ${c.redisPort}`);
  await restartRedis(c);
  const restartedAt = Date.now();
  const firstRun = await until(async () => {
    const { rows } = await c.db.query<{ started_at: Date; pod_id: string; scheduled_at: Date }>(
      `SELECT started_at, pod_id, scheduled_at FROM cron_job_runs
        WHERE started_at > $1 ORDER BY started_at LIMIT 1`,
      [new Date(restartedAt)],
    );
    return rows[0];
  }, POLL_MS + 15_000);
  const resumeMs = firstRun ? firstRun.started_at.getTime() - restartedAt : Infinity;
  report.add(
    REDIS,
    'resumed',
    `first run with started_at after the restart within the poll interval (≤ ${secs(POLL_MS)})`,
    firstRun
      ? `${secs(resumeMs)} after Redis was ready (run of ${firstRun.scheduled_at.toISOString().slice(11, 19)} on ${firstRun.pod_id})`
      : `no run within ${secs(POLL_MS + 15_000)}`,
    resumeMs <= POLL_MS,
  );
  const started = await Promise.all(
    c.pods.map((pod, i) =>
      pod.waitForLine(STARTED, POLL_MS + 10_000, restartMarks[i]).then(
        (line) =>
          `${pod.podId} +${secs(Date.parse(logField(line, 'time') ?? '') - restartedAt)} ` +
          `poll_interval=${logField(line, 'poll_interval')}`,
        () => `${pod.podId} none`,
      ),
    ),
  );
  report.add(
    REDIS,
    'startedLogged',
    'each pod logs level=INFO msg="scheduler started" after the restart',
    started.join(', '),
    started.every((entry) => !entry.endsWith('none')),
  );
}
