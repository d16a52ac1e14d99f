// The guide's Multi-Pod Mutual Exclusion Verification on the real
// deploy/docker-compose.multi-replica.yml: three replicas and nginx, the chat through nginx, the
// per-replica "cron job executed" counts against the table, the duplicate query, a replica
// killed mid-run, the stack's Redis stopped and started, and `down -v`.
import path from 'node:path';
import { composeLabel, composeOk, guideChat, http, PROJECTS, type Context } from './context.js';
import { countLines, dockerOk, logsOf, psqlRows, stateOf } from './engine.js';
import { expect, secs } from './report.js';
import { onCleanup, until } from '../harness.js';

export const FILE = 'docker-compose.multi-replica.yml';
export const REPLICAS = ['hermesx-mr-1', 'hermesx-mr-2', 'hermesx-mr-3'];
const ALL = [...REPLICAS, 'hermesx-mr-pg', 'hermesx-mr-redis', 'hermesx-mr-lb'];
const DUPLICATES =
  'SELECT cron_job_id, scheduled_at, COUNT(*) FROM cron_job_runs GROUP BY 1,2 HAVING COUNT(*) > 1;';
export const KEY = 'test-secret-key';
const ADMIN = 'test-admin-token';
const DEFAULT_TENANT = '00000000-0000-0000-0000-000000000001';
/**
 * Jobs besides the guide's, every 10 s (the default tenant is allowed that first), each run
 * taking 2 s, with SCHEDULER_MAX_CONCURRENT_RUNS=2: one replica cannot take them all, so two
 * minutes give more than one replica work.
 */
const FAST_JOBS = 4;
const MAX_CONCURRENT_RUNS = '2';

export interface Stack {
  ctx: Context;
  cwd: string;
  env: NodeJS.ProcessEnv;
  lb: (route: string) => string;
}

/** The stack up, the guide's chat through nginx and the per-replica counts; the stack to go on. */
export async function verifyMultiReplica(ctx: Context): Promise<Stack | undefined> {
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
  if (!up) return undefined;
  const jobId = await createJobs(stack);
  if (!jobId) return undefined;
  await verifyCounts(stack, jobId);
  return stack;
}

/** The end: no duplicate, and `down -v` leaves nothing of the project. */
export async function finishMultiReplica(stack: Stack): Promise<void> {
  const { ctx, env } = stack;
  const { report } = ctx;
  const label = `label=com.docker.compose.project=${PROJECTS[FILE]}`;
  await report.step('end: the duplicate query returns 0 rows', () => duplicatesNone());
  await report.step(`${composeLabel(FILE, ['down', '-v'])} leaves nothing behind`, async () => {
    await composeOk(ctx, FILE, ['down', '-v', '--remove-orphans'], { cwd: stack.cwd, env });
    const left = await dockerOk(['ps', '-a', '-q', '--filter', label]);
    const volumes = await dockerOk(['volume', 'ls', '-q', '--filter', label]);
    const networks = await dockerOk(['network', 'ls', '-q', '--filter', label]);
    const rest = [left, volumes, networks].map((s) => s.trim().split('\n').filter(Boolean).length);
    expect(
      rest.every((n) => n === 0),
      `left: ${rest[0]} containers, ${rest[1]} volumes, ${rest[2]} networks`,
    );
    return 'no container, volume or network of the project left';
  });
}

export async function duplicatesNone(): Promise<string> {
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
