// The guide's fault checks on the multi-replica stack: a replica killed mid-run (its run failed by
// the others, the job going on elsewhere) and the stack's Redis stopped and started.
import { http } from './context.js';
import { countLines, dockerOk, logsOf, psqlRows, stateOf } from './engine.js';
import { KEY, REPLICAS, type Stack } from './multi.js';
import { expect, secs } from './report.js';
import { until } from '../harness.js';

/** A replica killed, then the stack's Redis stopped and started. */
export async function verifyMultiFaults(stack: Stack): Promise<void> {
  await verifyKill(stack);
  await verifyRedisStop(stack);
}

async function verifyKill(stack: Stack): Promise<void> {
  const { report } = stack.ctx;
  let victim = '';
  let runId = '';
  let jobId = '';
  const killed = await report.step(
    'docker kill of the replica running the slow job: its run failed within 30 s',
    async () => {
      const running = await until(
        async () => {
          const rows = await psqlRows(
            'hermesx-mr-pg',
            "SELECT r.id, r.pod_id, r.cron_job_id FROM cron_job_runs r JOIN cron_jobs j ON j.id = r.cron_job_id WHERE j.name LIKE 'slow%' AND r.status = 'running'",
          );
          return rows.find((row) => REPLICAS.includes(row[1] ?? ''));
        },
        30_000,
        250,
      );
      expect(running, 'no slow run in flight within 30 s');
      [runId, victim, jobId] = running as [string, string, string];
      await dockerOk(['kill', victim]);
      const t0 = Date.now();
      let state = '';
      const failed = await until(
        async () => {
          const rows = await psqlRows(
            'hermesx-mr-pg',
            `SELECT status, error FROM cron_job_runs WHERE id = '${runId}'`,
          );
          state = rows[0]?.join(' | ') ?? '';
          return rows[0]?.[0] === 'failed';
        },
        45_000,
        250,
      );
      const ms = Date.now() - t0;
      expect(failed && ms <= 30_000, `run ${runId} after ${secs(ms)}: ${state}`);
      return `killed ${victim}; run ${runId.slice(0, 8)}… failed after ${secs(ms)}: ${state.split(' | ')[1]}`;
    },
    REPLICAS,
  );
  if (!killed) return;
  await report.step('the job keeps running on the other replicas', async () => {
    const t0 = Date.now();
    const elsewhere = await until(
      async () => {
        const rows = await psqlRows(
          'hermesx-mr-pg',
          `SELECT pod_id FROM cron_job_runs WHERE cron_job_id = '${jobId}' AND id <> '${runId}' AND pod_id <> '${victim}' AND created_at > now() - interval '40 seconds'`,
        );
        return rows[0]?.[0];
      },
      40_000,
      500,
    );
    expect(elsewhere, 'no new run of the job on another replica within 40 s');
    const res = await http(stack.lb('/v1/cron-jobs'), { token: KEY });
    expect(res.status === 200, `API through nginx: HTTP ${res.status}`);
    return `next run on ${elsewhere} after ${secs(Date.now() - t0)}; API through nginx HTTP 200`;
  });
}

async function verifyRedisStop(stack: Stack): Promise<void> {
  const { report } = stack.ctx;
  const live: string[] = [];
  for (const name of REPLICAS)
    if (['running', 'healthy', 'starting', 'unhealthy'].includes(await stateOf(name)))
      live.push(name);
  const startedBefore = await Promise.all(
    live.map(async (name) => countLines(await logsOf(name), /msg="scheduler started"/)),
  );
  const stopped = await report.step('docker stop hermesx-mr-redis', async () => {
    await dockerOk(['stop', 'hermesx-mr-redis']);
    return 'stopped';
  });
  if (!stopped) return;
  await report.step(
    '/health/ready through nginx: HTTP 200, "redis":"error"; the API serves',
    async () => {
      let last = '';
      const ok = await until(
        async () => {
          const res = await http(stack.lb('/health/ready'), { timeoutMs: 10_000 });
          last = `${res.status} ${res.text}`;
          const body = res.json as { checks?: { redis?: string } } | undefined;
          return res.status === 200 && body?.checks?.redis === 'error';
        },
        30_000,
        500,
      );
      expect(ok, `last answer: ${last}`);
      const jobs = await http(stack.lb('/v1/cron-jobs'), { token: KEY });
      expect(jobs.status === 200, `GET /v1/cron-jobs: HTTP ${jobs.status}`);
      return `${last}; GET /v1/cron-jobs HTTP 200`;
    },
    live,
  );
  await report.step(
    'docker start hermesx-mr-redis: "scheduler started" again on every live replica within 30 s',
    async () => {
      await dockerOk(['start', 'hermesx-mr-redis']);
      const t0 = Date.now();
      const again = await until(
        async () => {
          const now = await Promise.all(
            live.map(async (n) => countLines(await logsOf(n), /msg="scheduler started"/)),
          );
          return now.every((count, i) => count > (startedBefore[i] ?? 0));
        },
        30_000,
        250,
      );
      expect(again, 'not every live replica logged "scheduler started" again within 30 s');
      return `${live.join(', ')} after ${secs(Date.now() - t0)}`;
    },
    [...live, 'hermesx-mr-redis'],
  );
}
