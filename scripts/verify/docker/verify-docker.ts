// `npm run verify:docker`: the user guide's Docker path, run for real against the repository's
// Dockerfile and compose files. It starts dockerd when no engine answers (and stops only that
// one, by PID), builds stand-in base images where no registry gives them
// (scripts/verify/docker/standins/build.sh), picks free host ports, serves a fake OpenAI-compatible model
// on the Docker bridge, then runs and asserts every step, printing a PASS/FAIL report with timings.
//
//   npm run verify:docker                 # everything (~12 min)
//   npm run verify:docker -- --quick      # image build, saas stack health, one scheduled run
//   npm run verify:docker -- --replace    # remove leftover hermesx-* containers of a past run first
//   npm run verify:docker -- --json FILE  # also write {passed, failed, steps} to FILE
//   npm run verify:docker -- --only multi # one part: saas, multi or tests (after the image build)
// Exit status: 0 all passed, 1 a step failed, 3 no Docker engine could run at all.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context } from './context.js';
import {
  bridgeGateway,
  composeCommand,
  docker,
  ensureEngine,
  freePort,
  run,
  type Engine,
} from './engine.js';
import { verifyImageBuild, verifyImageRuntime } from './image.js';
import { startContainerModel } from './model.js';
import { finishMultiReplica, verifyMultiReplica } from './multi.js';
import { verifyMultiFaults } from './multi-faults.js';
import { secs, StepReport } from './report.js';
import { SAAS_CONTAINERS, verifySaasStack } from './saas.js';
import { verifyMiddlewareOnly, verifyRedisFault } from './saas-faults.js';
import { verifyTestIntegration } from './tests.js';
import { cleanupAll, onCleanup } from '../harness.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const replace = args.includes('--replace');
const jsonIndex = args.indexOf('--json');
const jsonFile = jsonIndex >= 0 ? args[jsonIndex + 1] : undefined;
const onlyIndex = args.indexOf('--only');
const only = onlyIndex >= 0 ? args[onlyIndex + 1] : undefined;
const runs = (part: 'saas' | 'multi' | 'tests') => only === undefined || only === part;

const startedAt = Date.now();
const say = (line: string) =>
  process.stdout.write(`[verify:docker ${secs(Date.now() - startedAt).padStart(8)}] ${line}\n`);

const OUR_CONTAINERS = [
  ...SAAS_CONTAINERS,
  'hermesx-imagecheck',
  'hermesx-mr-1',
  'hermesx-mr-2',
  'hermesx-mr-3',
  'hermesx-mr-pg',
  'hermesx-mr-redis',
  'hermesx-mr-lb',
  'hermesx-test-pg',
  'hermesx-test-redis',
  'hermesx-test-minio',
];

let engine: Engine | undefined;

async function stopEverything(reason: string, code: number): Promise<never> {
  say(`${reason}: stopping everything started`);
  await cleanupAll(say);
  await engine?.stop();
  process.exit(code);
}
process.once('SIGINT', () => void stopEverything('SIGINT', 130));
process.once('SIGTERM', () => void stopEverything('SIGTERM', 143));
// Whatever breaks, what was started (stacks, dockerd) is stopped and .env put back.
process.once('uncaughtException', (err) => void stopEverything(`uncaught: ${err.stack ?? err}`, 1));

/** Containers left by an earlier run would make `up -d` fail on their fixed names. */
async function checkLeftovers(report: StepReport): Promise<boolean> {
  return report.step(`no leftover ${OUR_CONTAINERS.length} hermesx-* containers`, async () => {
    const out = await docker(['ps', '-a', '--format', '{{.Names}}']);
    const left = out.stdout.split('\n').filter((name) => OUR_CONTAINERS.includes(name));
    if (left.length === 0) return 'none';
    if (!replace)
      throw new Error(
        `already there: ${left.join(', ')} (stop your stack first, or pass --replace to remove them)`,
      );
    await docker(['rm', '-f', '-v', ...left]);
    return `removed ${left.join(', ')} (--replace)`;
  });
}

async function main(): Promise<number> {
  const report = new StepReport(say);
  report.section = 'Preflight';
  const ctx: Partial<Context> = { root: ROOT, report, say, quick };
  const engineRuns = await report.step('Docker engine answers', async () => {
    engine = await ensureEngine(path.join(ROOT, '.cache', 'verify-docker'), say);
    const version = await run('docker', ['version', '--format', '{{.Server.Version}}']);
    return `Docker ${version.stdout.trim()}, ${engine.how}`;
  });
  const ready =
    engineRuns &&
    (await report.step('compose command', async () => {
      ctx.compose = composeCommand();
      const version = await run(ctx.compose[0]!, [...ctx.compose.slice(1), 'version', '--short']);
      return `${ctx.compose.join(' ')} ${version.stdout.trim()}${ctx.compose[0] === 'docker-compose' ? ' (no v2 plugin; the guide\'s "docker compose" runs through it)' : ''}`;
    })) &&
    (await checkLeftovers(report)) &&
    (await report.step('base images (pulled, present, or stand-ins built)', async () => {
      const out = await run('bash', [path.join(ROOT, 'scripts/verify/docker/standins/build.sh')], {
        timeoutMs: 1_200_000,
      });
      if (out.code !== 0) throw new Error(`${out.stdout}${out.stderr}`.trim());
      return out.stdout.trim().split('\n').at(-1) ?? '';
    })) &&
    (await report.step("free host ports (the guide's where free)", async () => {
      ctx.ports = {
        pg: await freePort(5432),
        redis: await freePort(6379),
        api: await freePort(18080),
        minio: await freePort(9000),
        minioConsole: await freePort(9001),
        lb: await freePort(8080),
        imageCheck: await freePort(18081),
      };
      return Object.entries(ctx.ports)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ');
    })) &&
    (await report.step('fake OpenAI-compatible model on the Docker bridge', async () => {
      const gateway = await bridgeGateway();
      ctx.model = await startContainerModel(gateway);
      const model = ctx.model;
      onCleanup('fake model', () => model.fake.close());
      return `${model.fake.url} (containers: LLM_API_URL=${model.containerUrl})`;
    }));
  if (ready) {
    const full = ctx as Context;
    if (await verifyImageBuild(full)) {
      if (runs('saas') && (await verifySaasStack(full)) && !quick) {
        await verifyRedisFault(full);
        await verifyImageRuntime(full);
      }
      if (runs('saas') && !quick) await verifyMiddlewareOnly(full);
      if (runs('multi') && !quick) {
        const stack = await verifyMultiReplica(full);
        if (stack) {
          await verifyMultiFaults(stack);
          await finishMultiReplica(stack);
        }
      }
    }
    await cleanupAll(say);
    if (!quick && runs('tests')) await verifyTestIntegration(full);
  }
  await cleanupAll(say);
  await engine?.stop();

  const header = [
    `verify:docker${quick ? ' --quick' : ''}${only ? ` --only ${only}` : ''}: ${report.passed} passed, ${report.failed} failed, ${secs(Date.now() - startedAt)}`,
    `${new Date().toISOString()}  ${ROOT}`,
  ];
  process.stdout.write(`${report.format(header, [])}\n`);
  if (jsonFile) {
    const body = { passed: report.passed, failed: report.failed, steps: report.steps };
    writeFileSync(jsonFile, `${JSON.stringify(body, null, 2)}\n`);
  }
  // 3: no Docker engine can run here at all (.ci/run tells that apart from a failed check).
  if (!engineRuns) return 3;
  return report.failed === 0 && report.passed > 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  async (err: unknown) => {
    say(`verify:docker: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    await stopEverything('error', 1);
  },
);
