// The image itself: the build, its size, its user, and (full form) a container of it run
// read-only beside the saas stack's PostgreSQL and Redis: its HEALTHCHECK, `docker stop` with a
// run in flight, and a rebuild after a source-only change that must reuse the dependency layers.
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { http, type Context } from './context.js';
import { docker, dockerOk, psqlRows, run, runOk, stateOf } from './engine.js';
import { expect, secs } from './report.js';
import { onCleanup, until } from '../harness.js';

export const IMAGE = 'hermesx:local';
const CHECK_CONTAINER = 'hermesx-imagecheck';
const CHECK_DB = 'imagecheck';
const SHUTDOWN_GRACE_S = 5;
const STOP_TIMEOUT_S = 30;
const buildEnv = () => ({ ...process.env, DOCKER_BUILDKIT: '0' });

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;

export async function verifyImageBuild(ctx: Context): Promise<boolean> {
  const { report } = ctx;
  report.section = 'Image';
  const built = await report.step(`DOCKER_BUILDKIT=0 docker build -t ${IMAGE} .`, async () => {
    const out = await run('nice', ['docker', 'build', '-t', IMAGE, '.'], {
      cwd: ctx.root,
      env: buildEnv(),
      timeoutMs: 900_000,
    });
    expect(
      out.code === 0,
      `exit ${out.code}\n${`${out.stdout}${out.stderr}`.trim().split('\n').slice(-20).join('\n')}`,
    );
    const cached = out.stdout.split('\n').filter((l) => l.includes('Using cache')).length;
    return `built (${cached} steps from cache)`;
  });
  if (!built) return false;
  await report.step('image size', async () => {
    const size = Number((await dockerOk(['image', 'inspect', '-f', '{{.Size}}', IMAGE])).trim());
    const base = Number(
      (await dockerOk(['image', 'inspect', '-f', '{{.Size}}', 'node:22-bookworm-slim'])).trim(),
    );
    return `${mb(size)} (base node:22-bookworm-slim ${mb(base)}, HermesX layers ${mb(size - base)})`;
  });
  await report.step('runs as uid 1000 (USER 1000:1000)', async () => {
    const user = (await dockerOk(['image', 'inspect', '-f', '{{.Config.User}}', IMAGE])).trim();
    const id = (await dockerOk(['run', '--rm', '--entrypoint', 'id', IMAGE])).trim();
    expect(user === '1000:1000' && id.startsWith('uid=1000('), `USER ${user}; id: ${id}`);
    return `USER ${user}; id: ${id}`;
  });
  return true;
}

/** Needs the saas stack up (its PostgreSQL and Redis, on its network). */
export async function verifyImageRuntime(ctx: Context): Promise<void> {
  const { report } = ctx;
  report.section = 'Image: read-only container, HEALTHCHECK, docker stop, rebuild';
  const network = (
    await dockerOk([
      'inspect',
      '-f',
      '{{range $k, $v := .NetworkSettings.Networks}}{{$k}}{{end}}',
      'hermesx-pg',
    ])
  ).trim();
  const port = ctx.ports.imageCheck;
  const url = `http://127.0.0.1:${port}`;
  onCleanup(`docker rm -f ${CHECK_CONTAINER}`, () => docker(['rm', '-f', CHECK_CONTAINER]));
  const started = await report.step(
    `docker run --read-only --tmpfs /tmp ${IMAGE}: HEALTHCHECK reaches healthy`,
    async () => {
      await docker([
        'exec',
        'hermesx-pg',
        'psql',
        '-U',
        'hermesx',
        '-c',
        `CREATE DATABASE ${CHECK_DB}`,
      ]);
      await dockerOk([
        'run',
        '-d',
        '--name',
        CHECK_CONTAINER,
        '--read-only',
        '--tmpfs',
        '/tmp',
        '--network',
        network,
        '--add-host',
        'host.docker.internal:host-gateway',
        '-p',
        `127.0.0.1:${port}:18080`,
        '-e',
        `DATABASE_URL=postgres://hermesx:hermesx@hermesx-pg:5432/${CHECK_DB}?sslmode=disable`,
        '-e',
        'REDIS_URL=redis://hermesx-redis:6379/1',
        '-e',
        'HERMES_API_KEY=image-check-key-0123456789abcdef0123',
        '-e',
        `LLM_API_URL=${ctx.model.containerUrl}`,
        '-e',
        `SCHEDULER_SHUTDOWN_GRACE=${SHUTDOWN_GRACE_S}s`,
        '-e',
        'HERMES_POD_ID=imagecheck',
        IMAGE,
      ]);
      const t0 = Date.now();
      const healthy = await until(
        async () => (await stateOf(CHECK_CONTAINER)) === 'healthy',
        90_000,
        500,
      );
      expect(healthy, `state ${await stateOf(CHECK_CONTAINER)} after ${secs(Date.now() - t0)}`);
      const write = await docker(['exec', CHECK_CONTAINER, 'sh', '-c', 'touch /app/probe']);
      expect(write.code !== 0, 'a write to /app succeeded: the root filesystem is not read-only');
      return `healthy after ${secs(Date.now() - t0)}; writing /app fails (${write.stderr.trim().split('\n')[0]})`;
    },
    [CHECK_CONTAINER],
  );
  if (started) await verifyStop(ctx, url);
  await verifyRebuild(ctx);
}

async function verifyStop(ctx: Context, url: string): Promise<void> {
  await ctx.report.step(
    `docker stop -t ${STOP_TIMEOUT_S} with a run in flight: exit 0 within the grace, run "interrupted by shutdown"`,
    async () => {
      const created = await http(`${url}/v1/cron-jobs`, {
        token: 'image-check-key-0123456789abcdef0123',
        body: { name: 'slow image check', schedule: '0 0 1 1 *', prompt: 'Take your time.' },
      });
      expect(
        created.status === 201,
        `POST /v1/cron-jobs: HTTP ${created.status} ${created.text.slice(0, 200)}`,
      );
      // Run now: POST /v1/cron-jobs/{id}/trigger.
      const id = (created.json as { id: string }).id;
      const trigger = await http(`${url}/v1/cron-jobs/${id}/trigger`, {
        token: 'image-check-key-0123456789abcdef0123',
        body: {},
      });
      expect(trigger.status < 300, `trigger: HTTP ${trigger.status} ${trigger.text.slice(0, 200)}`);
      const running = await until(
        async () => {
          const rows = await psqlRows(
            'hermesx-pg',
            "SELECT id FROM cron_job_runs WHERE status = 'running'",
            CHECK_DB,
          );
          return rows[0]?.[0];
        },
        30_000,
        250,
      );
      expect(running, 'no run went in flight within 30 s');
      const t0 = Date.now();
      await dockerOk(['stop', '-t', String(STOP_TIMEOUT_S), CHECK_CONTAINER], {
        timeoutMs: 60_000,
      });
      const stopMs = Date.now() - t0;
      const exitCode = (
        await dockerOk(['inspect', '-f', '{{.State.ExitCode}}', CHECK_CONTAINER])
      ).trim();
      const [row] = await psqlRows(
        'hermesx-pg',
        `SELECT status, error FROM cron_job_runs WHERE id = '${running}'`,
        CHECK_DB,
      );
      expect(exitCode === '0', `exit code ${exitCode}`);
      expect(
        stopMs < (SHUTDOWN_GRACE_S + 10) * 1000,
        `took ${secs(stopMs)} (grace ${SHUTDOWN_GRACE_S} s)`,
      );
      expect(
        row?.[0] === 'failed' && row[1] === 'interrupted by shutdown',
        `run ${running}: ${row?.join(' | ')}`,
      );
      return `stopped in ${secs(stopMs)} (SCHEDULER_SHUTDOWN_GRACE=${SHUTDOWN_GRACE_S}s), exit 0; run failed: ${row[1]}`;
    },
    [CHECK_CONTAINER],
  );
  await docker(['rm', '-f', CHECK_CONTAINER]);
}

/** The build context as git sees it (tracked and untracked, not ignored), copied to a temp dir. */
function copyContext(root: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hermesx-context-'));
  const copy = spawnSync(
    'sh',
    [
      '-c',
      `git ls-files -z --cached --others --exclude-standard | tar --null --ignore-failed-read -cf - -T - 2>/dev/null | tar -xf - -C "${dir}"`,
    ],
    { cwd: root },
  );
  if (copy.status !== 0) throw new Error('cannot copy the build context');
  return dir;
}

async function verifyRebuild(ctx: Context): Promise<void> {
  await ctx.report.step(
    'second docker build after a source-only change reuses the dependency layers',
    async () => {
      const dir = copyContext(ctx.root);
      const tag = 'hermesx:verify-rebuild';
      try {
        await runOk('nice', ['docker', 'build', '-t', tag, '.'], {
          cwd: dir,
          env: buildEnv(),
          timeoutMs: 900_000,
        });
        appendFileSync(path.join(dir, 'src', 'cli.ts'), '\n// a source-only change\n');
        const t0 = Date.now();
        const out = await runOk('nice', ['docker', 'build', '-t', tag, '.'], {
          cwd: dir,
          env: buildEnv(),
          timeoutMs: 900_000,
        });
        const ms = Date.now() - t0;
        // Legacy builder output: "Step n/m : RUN npm ci …" then " ---> Using cache" when reused.
        const steps = out.split(/\nStep \d+\/\d+ : /).slice(1);
        const npm = steps.filter((s) => s.startsWith('RUN npm ci'));
        const reused = npm.filter((s) => s.includes('Using cache'));
        const copy = steps.find((s) => s.startsWith('COPY . .'));
        expect(
          npm.length === 2 && reused.length === 2,
          `${reused.length} of ${npm.length} npm ci layers reused`,
        );
        expect(copy && !copy.includes('Using cache'), 'the changed sources were not copied again');
        return `both npm ci layers from cache, sources rebuilt; second build ${secs(ms)}`;
      } finally {
        rmSync(dir, { recursive: true, force: true });
        await docker(['rmi', tag]);
      }
    },
  );
}
