// The guide's "make test-integration" with a Docker engine: the integration and e2e tests run
// against docker-compose.test.yml (PostgreSQL :5433, Redis :6380, MinIO :9002, or free ports
// when those are taken here, passed as PG_HOST_PORT / REDIS_HOST_PORT / MINIO_HOST_PORT).
import type { Context } from './context.js';
import { freePort, run, stateOf } from './engine.js';
import { expect } from './report.js';

const ESC = String.fromCharCode(27);
const stripColours = (line: string) =>
  line
    .split(ESC)
    .map((part, i) => (i === 0 ? part : part.replace(/^\[[0-9;]*m/, '')))
    .join('');

export async function verifyTestIntegration(ctx: Context): Promise<void> {
  ctx.report.section = 'Integration Tests (make test-integration, docker-compose.test.yml)';
  const pg = await freePort(5433);
  const redis = await freePort(6380);
  const minio = await freePort(9002);
  await ctx.report.step(
    `make test-integration (PostgreSQL :${pg}, Redis :${redis}, MinIO :${minio} in Docker)`,
    async () => {
      const env = {
        ...process.env,
        PG_HOST_PORT: String(pg),
        REDIS_HOST_PORT: String(redis),
        MINIO_HOST_PORT: String(minio),
        TEST_DATABASE_URL: `postgres://postgres:postgres@127.0.0.1:${pg}/postgres`,
        TEST_REDIS_URL: `redis://127.0.0.1:${redis}`,
      };
      const out = await run('nice', ['make', 'test-integration'], {
        cwd: ctx.root,
        env,
        timeoutMs: 1_200_000,
      });
      const text = `${out.stdout}${out.stderr}`;
      const summary = text
        .split('\n')
        .map((l) => stripColours(l).trim())
        .filter((l) => /^(Test Files|Tests)\s/.test(l));
      expect(
        text.includes('starting docker-compose.test.yml'),
        `the middleware did not come from Docker:\n${text.split('\n').slice(0, 10).join('\n')}`,
      );
      expect(out.code === 0, `exit ${out.code}\n${text.trim().split('\n').slice(-25).join('\n')}`);
      const left = await Promise.all(['hermesx-test-pg', 'hermesx-test-redis'].map(stateOf));
      expect(
        left.every((s) => s === 'missing'),
        `left running: ${left.join(', ')}`,
      );
      return `${summary.join('; ')}; the test stack is gone afterwards`;
    },
  );
}
