// The guide's Multi-Pod Mutual Exclusion Verification on the real
// deploy/docker-compose.multi-replica.yml: three replicas and nginx, the chat through nginx, the
// per-replica "cron job executed" counts against the table, the duplicate query, a replica
// killed mid-run, the stack's Redis stopped and started, and `down -v`.
import path from 'node:path';
import { composeLabel, composeOk, guideChat, http, type Context } from './verify-docker-context.js';
import { countLines, dockerOk, logsOf, psqlRows, stateOf } from './verify-docker-engine.js';
import { expect, secs } from './verify-docker-report.js';
import { onCleanup, until } from './verify-util.js';

const FILE = 'docker-compose.multi-replica.yml';
const REPLICAS = ['hermesx-mr-1', 'hermesx-mr-2', 'hermesx-mr-3'];
const ALL = [...REPLICAS, 'hermesx-mr-pg', 'hermesx-mr-redis', 'hermesx-mr-lb'];
const DUPLICATES =
  'SELECT cron_job_id, scheduled_at, COUNT(*) FROM cron_job_runs GROUP BY 1,2 HAVING COUNT(*) > 1;';
const KEY = 'test-secret-key';
const ADMIN = 'test-admin-token';
const DEFAULT_TENANT = '00000000-0000-0000-0000-000000000001';
/**
 * Jobs besides the guide's, every 10 s (the default tenant is allowed that first), each run
 * taking 2 s, with SCHEDULER_MAX_CONCURRENT_RUNS=2: one replica cannot take them all, so two
 * minutes give more than one replica work.
 */
const FAST_JOBS = 4;
const MAX_CONCURRENT_RUNS = '2';

interface Stack {
  ctx: Context;
  cwd: string;
  env: NodeJS.ProcessEnv;
  lb: (route: string) => string;
}

export async function verifyMultiReplica(ctx: Context): Promise<void> {
  const { report } = ctx;
  report.section =
    'deploy/docker-compose.multi-replica.yml (Multi-Pod Mutual Exclusion Verification)';
  const env: NodeJS.ProcessEnv = { ...process.env, LB_HOST_PORT: String(ctx.ports.lb) };
  // The file's defaults are the guide's; only what this machine needs differs.
  for (const key of ['HERMES_API_KEY', 'HERMES_ACP_TOKEN', 'LLM_API_URL', 'LLM_MODEL'])
    delete env[key];
  if (!ctx.model.containerUrl.includes(':11434/')) env.LLM_API_URL = ctx.model.containerUrl;
  env.SCHEDULER_SHUTDOWN_GRACE = '5s';
  env.SCHEDULER_MAX_CONCURRENT_RUNS = MAX_CONCURRENT_RUNS;
  const stack: Stack = {
    ctx,
    cwd: path.join(ctx.root, 'deploy'),
    env,
    lb: (route) => `http://localhost:${ctx.ports.lb}${route}`,
  };
  onCleanup(`cd deploy && ${composeLabel(FILE, ['down', '-v'])}`, () =>
    composeOk(ctx, FILE, ['down', '-v', '--remove-orphans'], { cwd: stack.cwd, env }),
  );
  const up = await report.step(
    `cd deploy && ${composeLabel(FILE, ['up', '-d'])}: 3 replicas + nginx on :${ctx.ports.lb}`,
    async () => {
      await composeOk(ctx, FILE, ['up', '-d'], { cwd: stack.cwd, env });
      const healthy = await until(
        async () => {
          const states = await Promise.all(REPLICAS.map(stateOf));
          return states.every((s) => s === 'healthy');
        },
        120_000,
        1000,
      );
      expect(healthy, `replicas: ${(await Promise.all(REPLICAS.map(stateOf))).join(', ')}`);
      const ready = await until(
        async () => (await http(stack.lb('/health/ready'))).status === 200,
        30_000,
        500,
      );
      expect(ready, 'nginx /health/ready never answered 200');
      return `${REPLICAS.join(', ')} healthy; hermesx-mr-lb answers /health/ready`;
    },
    ALL,
  );
  if (!up) return;
  const jobId = await createJobs(stack);
  if (!jobId) return;
  await verifyCounts(stack, jobId);
  await verifyKill(stack);
  await verifyRedisStop(stack);
  await report.step('end: the duplicate query returns 0 rows', () => duplicatesNone());
  await report.step(`${composeLabel(FILE, ['down', '-v'])} leaves nothing behind`, async () => {
    await composeOk(ctx, FILE, ['down', '-v', '--remove-orphans'], { cwd: stack.cwd, env });
    const left = await dockerOk([
      'ps',
      '-a',
      '-q',
      '--filter',
      'label=com.docker.compose.project=deploy',
    ]);
    const volumes = await dockerOk([
      'volume',
      'ls',
      '-q',
      '--filter',
      'label=com.docker.compose.project=deploy',
    ]);
    const networks = await dockerOk([
      'network',
      'ls',
      '-q',
      '--filter',
      'label=com.docker.compose.project=deploy',
    ]);
    const rest = [left, volumes, networks].map((s) => s.trim().split('\n').filter(Boolean).length);
    expect(
      rest.every((n) => n === 0),
      `left: ${rest[0]} containers, ${rest[1]} volumes, ${rest[2]} networks`,
    );
    return 'no container, volume or network of the project left';
  });
}

async function duplicatesNone(): Promise<string> {
  const out = await dockerOk(['exec', 'hermesx-mr-pg', 'psql', '-U', 'hermesx', '-c', DUPLICATES]);
  expect(out.includes('(0 rows)'), out);
  return '(0 rows)';
}

/** The guide's chat through nginx, plus the fast jobs and one slow job (for the kill). */
async function createJobs(stack: Stack): Promise<string | undefined> {
  let jobId: string | undefined;
  await stack.ctx.report.step(
    `curl -X POST localhost:${stack.ctx.ports.lb}/v1/chat/completions -H "Authorization: Bearer ${KEY}" through nginx`,
    async () => {
      const res = await http(stack.lb('/v1/chat/completions'), {
        token: KEY,
        body: guideChat('Create a cron job that reports the current time every minute'),
        timeoutMs: 60_000,
      });
      expect(res.status === 200, `HTTP ${res.status}: ${res.text.slice(0, 300)}`);
      const jobs = await http(stack.lb('/v1/cron-jobs'), { token: KEY });
      const list = (jobs.json as { data?: { id: string; schedule: string }[] }).data ?? [];
      jobId = list.find((j) => j.schedule === '* * * * *')?.id;
      expect(jobId, `no every-minute job: ${jobs.text.slice(0, 300)}`);
      const patch = await http(stack.lb(`/v1/tenants/${DEFAULT_TENANT}`), {
        method: 'PATCH',
        token: ADMIN,
        body: { min_schedule_interval_seconds: 5 },
      });
      expect(
        patch.status === 200,
        `PATCH tenant: HTTP ${patch.status} ${patch.text.slice(0, 200)}`,
      );
      for (let i = 1; i <= FAST_JOBS; i++) {
        const body = {
          name: `busy #${i}`,
          schedule: '*/10 * * * * *',
          prompt: 'Report the time.',
        };
        const made = await http(stack.lb('/v1/cron-jobs'), { token: KEY, body });
        expect(
          made.status === 201,
          `POST /v1/cron-jobs: HTTP ${made.status} ${made.text.slice(0, 200)}`,
        );
      }
      const slow = {
        name: 'slow (held by the model)',
        schedule: '*/10 * * * * *',
        prompt: 'Think long.',
      };
      const made = await http(stack.lb('/v1/cron-jobs'), { token: KEY, body: slow });
      expect(made.status === 201, `POST slow job: HTTP ${made.status} ${made.text.slice(0, 200)}`);
      return `HTTP 200, job ${jobId} '* * * * *'; plus (REST, tenant allowed 5 s) ${FAST_JOBS} jobs every 10 s and one slow job`;
    },
    REPLICAS,
  );
  return jobId;
}

async function logCounts(): Promise<number[]> {
  return Promise.all(
    REPLICAS.map(async (name) => countLines(await logsOf(name), /cron job executed/)),
  );
}

async function verifyCounts(stack: Stack, jobId: string): Promise<void> {
  const { report } = stack.ctx;
  await report.step(
    "after two minutes: the guide's every-minute job has run twice",
    async () => {
      const t0 = Date.now();
      const done = await until(
        async () => {
          const rows = await psqlRows(
            'hermesx-mr-pg',
            `SELECT count(*) FROM cron_job_runs WHERE cron_job_id = '${jobId}' AND status = 'success'`,
          );
          return Number(rows[0]?.[0]) >= 2;
        },
        150_000,
        1000,
      );
      expect(done, `fewer than 2 successful runs after ${secs(Date.now() - t0)}`);
      return `2 successful runs after ${secs(Date.now() - t0)}`;
    },
    REPLICAS,
  );
  await report.step(
    'docker logs hermesx-mr-N 2>&1 | grep "cron job executed" | wc -l (N = 1..3) sums to the finished runs',
    async () => {
      let detail = '';
      // Runs go on finishing; take both counts until one sample sees them agree.
      const agreed = await until(
        async () => {
          const before = await logCounts();
          const rows = await psqlRows(
            'hermesx-mr-pg',
            "SELECT count(*) FROM cron_job_runs WHERE status <> 'running'",
          );
          const after = await logCounts();
          const table = Number(rows[0]?.[0]);
          const sum = before.reduce((a, b) => a + b, 0);
          detail = `${before.join(' + ')} = ${sum} lines; ${table} finished runs in cron_job_runs`;
          return before.join() === after.join() && sum === table;
        },
        30_000,
        300,
      );
      expect(agreed, detail);
      const counts = (await logCounts()).filter((n) => n > 0).length;
      expect(counts >= 2, `only ${counts} replica(s) ran anything: ${detail}`);
      return `${detail}; ${counts} replicas worked`;
    },
    REPLICAS,
  );
  await report.step(`docker exec hermesx-mr-pg psql -U hermesx -c "${DUPLICATES}"`, () =>
    duplicatesNone(),
  );
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
