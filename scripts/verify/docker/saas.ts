// The guide's single-machine path on the real docker-compose.saas.yml: its .env block, `up -d`,
// the readiness checks, the chat-created job and its scheduled runs, the Redis fault, and the
// middleware-only start.
import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { composeLabel, composeOk, guideChat, http, type Context } from './context.js';
import { countLines, docker, dockerOk, logsOf, stateOf } from './engine.js';
import { GUIDE_MODEL_PORT } from './model.js';
import { expect, secs } from './report.js';
import { onCleanup, until } from '../harness.js';
import { GUIDE_ENV } from '../../../test/helpers/guide-env.js';

export const SAAS_FILE = 'docker-compose.saas.yml';
export const SAAS_CONTAINERS = ['hermesx-pg', 'hermesx-redis', 'hermesx-minio', 'hermesx-saas'];
const READY_OK = { status: 'ok', checks: { database: 'ok', redis: 'ok' } };
export const STARTED_LINE = 'level=INFO msg="scheduler started" poll_interval=30s';
const GUIDE_RUNS_QUERY =
  'SELECT id, status, scheduled_at, duration_ms FROM cron_job_runs ORDER BY created_at DESC LIMIT 5;';

/** The guide's .env, plus the host ports this machine has free; any .env there is put back. */
function writeGuideEnv(ctx: Context): string {
  const file = path.join(ctx.root, '.env');
  const backup = path.join(ctx.root, '.env.verify-docker-backup');
  if (existsSync(file) && !existsSync(backup)) renameSync(file, backup);
  onCleanup('restore .env', async () => {
    rmSync(file, { force: true });
    if (existsSync(backup)) renameSync(backup, file);
  });
  let text = GUIDE_ENV;
  const notes: string[] = [];
  if (ctx.model.port !== GUIDE_MODEL_PORT) {
    text = text.replace(':11434/v1', `:${ctx.model.port}/v1`);
    notes.push(`model on :${ctx.model.port} (11434 taken)`);
  }
  const ports = {
    PG_HOST_PORT: ctx.ports.pg,
    REDIS_HOST_PORT: ctx.ports.redis,
    API_HOST_PORT: ctx.ports.api,
    MINIO_HOST_PORT: ctx.ports.minio,
    MINIO_CONSOLE_HOST_PORT: ctx.ports.minioConsole,
  };
  const lines = Object.entries(ports).map(([key, port]) => `${key}=${port}`);
  text += `# Host ports free on this machine (the guide's are the defaults)\n${lines.join('\n')}\n`;
  writeFileSync(file, text);
  return [`13 guide lines + ${lines.join(' ')}`, ...notes].join('; ');
}

export const saasApi = (ctx: Context, route: string) => `http://localhost:${ctx.ports.api}${route}`;
const api = saasApi;

/** The stack up and the guide's checks; true when it came up (the faults can follow). */
export async function verifySaasStack(ctx: Context): Promise<boolean> {
  const { report } = ctx;
  report.section = 'docker-compose.saas.yml (Docker Compose, Manual Functional Verification)';
  await report.step("cat > .env <<'EOF' … EOF (the guide's block)", async () => writeGuideEnv(ctx));
  onCleanup(composeLabel(SAAS_FILE, ['down', '-v']), () =>
    composeOk(ctx, SAAS_FILE, ['down', '-v', '--remove-orphans'], { cwd: ctx.root }),
  );
  const up = await report.step(
    composeLabel(SAAS_FILE, ['up', '-d']),
    async () => {
      await composeOk(ctx, SAAS_FILE, ['up', '-d'], { cwd: ctx.root });
      const states = await Promise.all(SAAS_CONTAINERS.map(stateOf));
      const bad = SAAS_CONTAINERS.filter((_, i) => ['missing', 'exited'].includes(states[i]!));
      expect(bad.length === 0, `not running: ${bad.join(', ')}`);
      return SAAS_CONTAINERS.map((c, i) => `${c}=${states[i]}`).join(' ');
    },
    SAAS_CONTAINERS,
  );
  if (!up) return false;

  await report.step('docker exec hermesx-pg pg_isready -U hermesx', async () => {
    const out = await dockerOk(['exec', 'hermesx-pg', 'pg_isready', '-U', 'hermesx']);
    expect(out.includes('accepting connections'), `answered: ${out.trim()}`);
    return out.trim();
  });
  await report.step('docker exec hermesx-redis redis-cli ping', async () => {
    const out = (await dockerOk(['exec', 'hermesx-redis', 'redis-cli', 'ping'])).trim();
    expect(out === 'PONG', `answered: ${out}`);
    return out;
  });
  const ready = await report.step(
    `curl -s http://localhost:${ctx.ports.api}/health/ready is the guide's JSON`,
    async () => {
      let last = '';
      const ok = await until(
        async () => {
          const res = await http(api(ctx, '/health/ready'), { timeoutMs: 5000 });
          last = `${res.status} ${res.text}`;
          return res.status === 200 && JSON.stringify(res.json) === JSON.stringify(READY_OK);
        },
        120_000,
        500,
      );
      expect(ok, `last answer: ${last || 'none'}`);
      return last;
    },
    ['hermesx-saas'],
  );
  if (!ready) return false;
  await report.step(
    `docker logs hermesx-saas shows ${STARTED_LINE}`,
    async () => {
      const line = await until(
        async () => {
          const logs = await logsOf('hermesx-saas');
          return logs.split('\n').find((l) => l.includes(STARTED_LINE));
        },
        30_000,
        500,
      );
      expect(line, 'no such line');
      return line.trim();
    },
    ['hermesx-saas'],
  );
  await report.step(
    'hermesx-saas health check (compose) reaches healthy',
    async () => {
      const state = await until(
        async () => (await stateOf('hermesx-saas')) === 'healthy',
        60_000,
        500,
      );
      expect(state, `state ${await stateOf('hermesx-saas')}`);
      return 'healthy';
    },
    ['hermesx-saas'],
  );

  const created = await report.step(
    'curl -X POST …/v1/chat/completions -H "Authorization: Bearer my-api-key" (creates the job)',
    async () => {
      const res = await http(api(ctx, '/v1/chat/completions'), {
        token: 'my-api-key',
        body: guideChat(
          'Create a cron job that runs every minute and replies with the current time',
        ),
        timeoutMs: 60_000,
      });
      expect(res.status === 200, `HTTP ${res.status}: ${res.text.slice(0, 300)}`);
      const jobs = await http(api(ctx, '/v1/cron-jobs'), { token: 'my-api-key' });
      const list = (jobs.json as { data?: { id: string; schedule: string }[] } | undefined)?.data;
      const job = list?.find((j) => j.schedule === '* * * * *');
      expect(job, `no every-minute job in GET /v1/cron-jobs: ${jobs.text.slice(0, 300)}`);
      const reply = (res.json as { choices?: { message?: { content?: string } }[] }).choices?.[0]
        ?.message?.content;
      return `HTTP 200, job ${job.id} '* * * * *'; reply: ${String(reply).slice(0, 60)}`;
    },
    ['hermesx-saas'],
  );
  if (created) await verifyScheduledRuns(ctx);
  return true;
}

async function verifyScheduledRuns(ctx: Context): Promise<void> {
  const wanted = ctx.quick ? 1 : 2;
  await ctx.report.step(
    `within 2 minutes: docker exec hermesx-pg psql -U hermesx -c "${GUIDE_RUNS_QUERY}" shows ${wanted} success`,
    async () => {
      const started = Date.now();
      let table = '';
      const ok = await until(
        async () => {
          const out = await docker([
            'exec',
            'hermesx-pg',
            'psql',
            '-U',
            'hermesx',
            '-c',
            GUIDE_RUNS_QUERY,
          ]);
          table = out.stdout;
          return countLines(table, /\|\s*success\s*\|/) >= wanted;
        },
        150_000,
        1000,
      );
      expect(ok, `after ${secs(Date.now() - started)}:\n${table}`);
      const rows = table.trim().split('\n');
      return `${countLines(table, /\|\s*success\s*\|/)} success rows after ${secs(Date.now() - started)}; latest: ${rows[2]?.trim()}`;
    },
    ['hermesx-saas'],
  );
  await ctx.report.step(
    'docker logs hermesx-saas 2>&1 | grep -i "cron\\|scheduler" | tail -10',
    async () => {
      const lines = (await logsOf('hermesx-saas'))
        .split('\n')
        .filter((l) => /cron|scheduler/i.test(l));
      const tail = lines.slice(-10);
      const executed = lines.filter((l) => l.includes('msg="cron job executed"'));
      expect(
        lines.some((l) => l.includes(STARTED_LINE)),
        'no "scheduler started" line',
      );
      expect(
        executed.length >= wanted,
        `${executed.length} "cron job executed" lines:\n${tail.join('\n')}`,
      );
      expect(
        executed.every((l) => / status=success /.test(l)),
        `a run failed:\n${executed.join('\n')}`,
      );
      return `"scheduler started" + ${executed.length} × "cron job executed" (status=success); last: ${executed.at(-1)?.slice(0, 80)}`;
    },
    ['hermesx-saas'],
  );
}
