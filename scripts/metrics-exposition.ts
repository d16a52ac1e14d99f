// What GET /metrics serves, with every metric family of the service registered as src/main.ts
// registers them (no database, Redis or model server needed), for
// `node --import tsx scripts/metrics-exposition.ts | promtool check metrics`.
import { pathToFileURL } from 'node:url';
import { createModelMetrics } from '../src/agent/model-metrics.js';
import { loadConfig } from '../src/config.js';
import { createPool } from '../src/db/pool.js';
import { buildApp } from '../src/http/app.js';
import { createServiceRegistry } from '../src/http/metrics.js';
import { createLogger } from '../src/log.js';
import { countRedisFailovers } from '../src/redis/metrics.js';
import { createSchedulerMetrics } from '../src/scheduler/metrics.js';
import { createWebhookMetrics } from '../src/webhooks/metrics.js';

export async function readMetricsExposition(): Promise<string> {
  const log = createLogger({ format: 'json', level: 'error', write: () => undefined });
  const pool = createPool('postgres://metrics@127.0.0.1:1/metrics', log, { max: 1 });
  const registry = createServiceRegistry();
  createModelMetrics(registry);
  createSchedulerMetrics(registry);
  countRedisFailovers(registry);
  createWebhookMetrics(registry);
  const app = await buildApp({ config: loadConfig({}), pool, redis: undefined, log, registry });
  try {
    // A few requests, so the HTTP families have series.
    await app.inject({ method: 'GET', url: '/health/live' });
    await app.inject({ method: 'GET', url: '/v1/cron-jobs' });
    return (await app.inject({ method: 'GET', url: '/metrics' })).body;
  } finally {
    await app.close();
    await pool.end();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(await readMetricsExposition());
}
