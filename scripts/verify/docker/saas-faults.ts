// The guide's Fault Recovery Verification on docker-compose.saas.yml (Redis stopped and started
// under the running API), and its middleware-only start without any .env.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { composeLabel, composeOk, http, type Context } from './context.js';
import { countLines, docker, dockerOk, logsOf, stateOf } from './engine.js';
import { expect, secs } from './report.js';
import { SAAS_CONTAINERS, SAAS_FILE, saasApi as api } from './saas.js';
import { until } from '../harness.js';

/** The guide's Fault Recovery Verification, on this stack. */
export async function verifyRedisFault(ctx: Context): Promise<void> {
  const { report } = ctx;
  report.section = 'Fault Recovery Verification (docker-compose.saas.yml)';
  const startedBefore = countLines(await logsOf('hermesx-saas'), /msg="scheduler started"/);
  const stopped = await report.step('docker stop hermesx-redis', async () => {
    await dockerOk(['stop', 'hermesx-redis']);
    return 'stopped';
  });
  if (!stopped) return;
  await report.step(
    `curl -s http://localhost:${ctx.ports.api}/health/ready: HTTP 200, "redis":"error"`,
    async () => {
      let last = '';
      const ok = await until(
        async () => {
          const res = await http(api(ctx, '/health/ready'), { timeoutMs: 10_000 });
          last = `${res.status} ${res.text}`;
          const body = res.json as { checks?: { redis?: string; database?: string } } | undefined;
          return (
            res.status === 200 && body?.checks?.redis === 'error' && body.checks.database === 'ok'
          );
        },
        30_000,
        500,
      );
      expect(ok, `last answer: ${last}`);
      return last;
    },
    ['hermesx-saas'],
  );
  await report.step('API keeps serving: GET /v1/cron-jobs with Bearer my-api-key', async () => {
    const res = await http(api(ctx, '/v1/cron-jobs'), { token: 'my-api-key' });
    expect(res.status === 200, `HTTP ${res.status}: ${res.text.slice(0, 200)}`);
    return `HTTP 200`;
  });
  await report.step(
    'docker logs hermesx-saas: level=WARN msg="scheduler disabled: redis unavailable"',
    async () => {
      const line = await until(
        async () => {
          const logs = await logsOf('hermesx-saas');
          return logs
            .split('\n')
            .find((l) => l.includes('msg="scheduler disabled: redis unavailable"'));
        },
        45_000,
        500,
      );
      expect(line, 'no such line');
      return line.trim();
    },
    ['hermesx-saas'],
  );
  await report.step(
    'docker start hermesx-redis; "scheduler started" again within 30 s (guide: ≤30s)',
    async () => {
      await dockerOk(['start', 'hermesx-redis']);
      const started = Date.now();
      const again = await until(
        async () => {
          const logs = await logsOf('hermesx-saas');
          return countLines(logs, /msg="scheduler started"/) > startedBefore;
        },
        30_000,
        250,
      );
      expect(again, 'no new "scheduler started" line within 30 s');
      const tail = (await logsOf('hermesx-saas'))
        .split('\n')
        .filter((l) => l.includes('scheduler'));
      return `after ${secs(Date.now() - started)}: ${tail.at(-1)?.trim()}`;
    },
    ['hermesx-saas', 'hermesx-redis'],
  );
}

/** `up -d postgres redis` with no .env at all: the middleware alone. Takes the stack down first. */
export async function verifyMiddlewareOnly(ctx: Context): Promise<void> {
  const { report } = ctx;
  report.section = 'Middleware Only (docker-compose.saas.yml)';
  const down = await report.step(composeLabel(SAAS_FILE, ['down', '-v']), async () => {
    await composeOk(ctx, SAAS_FILE, ['down', '-v', '--remove-orphans'], { cwd: ctx.root });
    const left = (await Promise.all(SAAS_CONTAINERS.map(stateOf))).filter((s) => s !== 'missing');
    expect(left.length === 0, `${left.length} containers left`);
    return 'no container left';
  });
  if (!down) return;
  rmSync(path.join(ctx.root, '.env'), { force: true });
  const env = {
    ...process.env,
    PG_HOST_PORT: String(ctx.ports.pg),
    REDIS_HOST_PORT: String(ctx.ports.redis),
  };
  await report.step(
    `${composeLabel(SAAS_FILE, ['up', '-d', 'postgres', 'redis'])} (no .env)`,
    async () => {
      await composeOk(ctx, SAAS_FILE, ['up', '-d', 'postgres', 'redis'], { cwd: ctx.root, env });
      const states = await Promise.all(SAAS_CONTAINERS.map(stateOf));
      const running = SAAS_CONTAINERS.filter((_, i) => states[i] !== 'missing');
      expect(
        running.join() === 'hermesx-pg,hermesx-redis',
        `running: ${running.join(', ') || 'none'}`,
      );
      const pg = await until(
        async () => {
          const out = await docker(['exec', 'hermesx-pg', 'pg_isready', '-U', 'hermesx']);
          return out.code === 0 && out.stdout.includes('accepting connections');
        },
        60_000,
        500,
      );
      expect(pg, 'pg_isready -U hermesx never answered "accepting connections"');
      const pong = (await dockerOk(['exec', 'hermesx-redis', 'redis-cli', 'ping'])).trim();
      expect(pong === 'PONG', `redis-cli ping: ${pong}`);
      return 'hermesx-pg accepting connections, hermesx-redis PONG, nothing else started';
    },
    ['hermesx-pg', 'hermesx-redis'],
  );
  await report.step(`${composeLabel(SAAS_FILE, ['down', '-v'])} (middleware)`, async () => {
    await composeOk(ctx, SAAS_FILE, ['down', '-v', '--remove-orphans'], { cwd: ctx.root, env });
    return 'stopped';
  });
}
