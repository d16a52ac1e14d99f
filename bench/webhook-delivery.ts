// `node --import tsx bench/webhook-delivery.ts`: the webhook outbox under a burst. N runs are
// recorded within one second across T tenants (one endpoint each), two `hermesx saas-api` pods
// send them to a local receiver that answers in 50 ms and answers 500 to the first attempt of
// 10 % of the messages (a short retry schedule, 1s,2s). Reports recorded → delivered p50/p99,
// deliveries per second, lost messages and duplicates (which must all be retries of a 500, with
// the same webhook-id). Every process started here is stopped by PID at the end.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { migrate } from '../src/db/migrate.js';
import { findFreePort } from '../src/dev/processes.js';
import { createLogger } from '../src/log.js';
import { generateSecret } from '../src/webhooks/message.js';
import { quantile } from './analysis.js';
import { baseEnv, fetchText, startBenchPostgres, withClient } from './infra.js';
import { killAllNow, spawnNode, stopAll, type Child } from './procs.js';

const RUNS = Number(process.env.BENCH_WEBHOOK_RUNS ?? 10_000);
const TENANTS = Number(process.env.BENCH_WEBHOOK_TENANTS ?? 100);
const PODS = Number(process.env.BENCH_WEBHOOK_PODS ?? 2);
const RECEIVER_DELAY_MS = 50;
const FAILING_SHARE = 0.1;
const BATCHES = 10;
const DEADLINE_MS = 180_000;

const log = (line: string) =>
  process.stdout.write(`${new Date().toISOString().slice(11, 23)} ${line}\n`);
const tenantId = (i: number) => `c0000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

/** 10 % of the messages, picked by their id, fail their first attempt. */
const failsFirst = (id: string) =>
  createHash('sha256').update(id).digest().readUInt32BE(0) / 2 ** 32 < FAILING_SHARE;

interface Seen {
  statuses: number[];
  bodies: Set<string>;
}

async function startReceiver(): Promise<{ url: string; seen: Map<string, Seen>; close(): void }> {
  const seen = new Map<string, Seen>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const id = String(req.headers['webhook-id'] ?? '');
      const entry = seen.get(id) ?? { statuses: [], bodies: new Set<string>() };
      seen.set(id, entry);
      entry.bodies.add(Buffer.concat(chunks).toString('utf8'));
      const status = entry.statuses.length === 0 && failsFirst(id) ? 500 : 200;
      entry.statuses.push(status);
      setTimeout(() => res.writeHead(status).end(), RECEIVER_DELAY_MS);
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, seen, close: () => server.close() };
}

async function startSenderPod(databaseUrl: string, index: number): Promise<Child> {
  const port = await findFreePort();
  const child = spawnNode(
    `webhook-pod-${index}`,
    'src/cli.ts',
    ['saas-api'],
    baseEnv({
      DATABASE_URL: databaseUrl,
      HERMES_POD_ID: `webhook-pod-${index}`,
      SAAS_API_PORT: String(port),
      SAAS_API_HOST: '127.0.0.1',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '1s,2s',
      LOG_LEVEL: 'warn',
    }),
  );
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if ((await fetchText(`http://127.0.0.1:${port}/health/live`)) !== undefined) return child;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`webhook-pod-${index} did not start`);
}

async function main(): Promise<void> {
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'hermesx-webhook-bench-'));
  const postgres = await startBenchPostgres(workDir);
  const databaseUrl = postgres.url;
  const receiver = await startReceiver();
  try {
    await migrate(databaseUrl, createLogger({ format: 'text', level: 'warn' }));
    await withClient(databaseUrl, async (c) => {
      for (let i = 1; i <= TENANTS; i++) {
        await c.query(`INSERT INTO tenants (id, name) VALUES ($1, $2)`, [tenantId(i), `t${i}`]);
        await c.query(
          `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt, enabled)
           VALUES ($1, 'digest', '0 8 * * *', 'p', false)`,
          [tenantId(i)],
        );
        await c.query(
          `INSERT INTO webhook_endpoints (tenant_id, url, secret) VALUES ($1, $2, $3)`,
          [tenantId(i), receiver.url, generateSecret()],
        );
      }
    });
    const pods = await Promise.all(
      Array.from({ length: PODS }, (_, i) => startSenderPod(databaseUrl, i + 1)),
    );
    log(`${PODS} pods up; recording ${RUNS} runs across ${TENANTS} tenants within 1 s`);
    const perBatch = Math.ceil(RUNS / BATCHES);
    const startedMs = Date.now();
    await withClient(databaseUrl, async (c) => {
      for (let batch = 0; batch < BATCHES; batch++) {
        // Finished runs, as the scheduler records them: the trigger queues their deliveries.
        await c.query(
          `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, pod_id,
                                      finished_at, result, duration_ms)
           SELECT j.id, j.tenant_id, now() - make_interval(secs => n), 'success', 'bench', now(),
                  'ok', 1
             FROM generate_series($1::int, $2::int) AS n
             JOIN cron_jobs j ON j.tenant_id = ('c0000000-0000-4000-8000-' ||
                                 lpad((1 + n % $3)::text, 12, '0'))::uuid`,
          [batch * perBatch, Math.min(RUNS, (batch + 1) * perBatch) - 1, TENANTS],
        );
        const waitMs = startedMs + ((batch + 1) * 1000) / BATCHES - Date.now();
        if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
      }
    });
    log(`recorded in ${Date.now() - startedMs} ms; waiting for every delivery`);
    const deadline = Date.now() + DEADLINE_MS;
    let pending = RUNS;
    while (Date.now() < deadline) {
      pending = await withClient(databaseUrl, async (c) => {
        const { rows } = await c.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM webhook_deliveries WHERE status <> 'delivered'`,
        );
        return rows[0]?.n ?? 0;
      });
      if (pending === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const stats = await withClient(databaseUrl, async (c) => {
      const { rows } = await c.query<{ ms: number; attempts: number; first: Date; last: Date }>(
        `SELECT extract(epoch FROM delivered_at - created_at) * 1000 AS ms, attempts,
                created_at AS first, delivered_at AS last
           FROM webhook_deliveries WHERE status = 'delivered'`,
      );
      const { rows: runs } = await c.query<{ n: number; queued: number }>(
        `SELECT count(*)::int AS n,
                count(*) FILTER (WHERE EXISTS (SELECT 1 FROM webhook_deliveries d
                                               WHERE d.run_id = r.id))::int AS queued
           FROM cron_job_runs r`,
      );
      return { rows, runs: runs[0] };
    });
    const all = stats.rows.map((r) => Number(r.ms)).sort((a, b) => a - b);
    const firstTry = stats.rows
      .filter((r) => r.attempts === 1)
      .map((r) => Number(r.ms))
      .sort((a, b) => a - b);
    const firstMs = Math.min(...stats.rows.map((r) => r.first.getTime()));
    const lastMs = Math.max(...stats.rows.map((r) => r.last.getTime()));
    const answered = [...receiver.seen.values()].filter((s) => s.statuses.includes(200)).length;
    const repeats = [...receiver.seen.entries()].filter(([, s]) => s.statuses.length > 1);
    const badRepeats = repeats.filter(
      ([, s]) => s.statuses[0] !== 500 || s.bodies.size !== 1 || s.statuses.length > 2,
    );
    const lines = [
      `runs recorded: ${stats.runs?.n}, with a queued delivery: ${stats.runs?.queued}`,
      `delivered: ${stats.rows.length}, not delivered: ${pending}, lost (never answered 200 at the receiver): ${RUNS - answered}`,
      `recorded -> delivered (all): p50 ${quantile(all, 0.5).toFixed(0)} ms, p99 ${quantile(all, 0.99).toFixed(0)} ms, max ${quantile(all, 1).toFixed(0)} ms`,
      `recorded -> delivered (first attempt): p50 ${quantile(firstTry, 0.5).toFixed(0)} ms, p99 ${quantile(firstTry, 0.99).toFixed(0)} ms`,
      `throughput: ${((stats.rows.length * 1000) / (lastMs - firstMs)).toFixed(0)} deliveries/s over ${((lastMs - firstMs) / 1000).toFixed(1)} s`,
      `messages received twice: ${repeats.length} (all retries of a 500 with the same webhook-id and body: ${badRepeats.length === 0})`,
    ];
    for (const line of lines) log(line);
    if (process.env.BENCH_WEBHOOK_STATEMENTS && postgres.statements) {
      await withClient(databaseUrl, async (c) => {
        const { rows } = await c.query<{
          query: string;
          calls: string;
          mean: number;
          total: number;
        }>(
          `SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS query, calls,
                  mean_exec_time AS mean, total_exec_time AS total
             FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 8`,
        );
        for (const row of rows) {
          log(
            `${row.total.toFixed(0)} ms total, ${row.calls} calls, ${row.mean.toFixed(2)} ms: ${row.query}`,
          );
        }
      });
    }
    await Promise.all(pods.map((pod) => pod.proc.kill('SIGTERM')));
  } finally {
    receiver.close();
    await stopAll(5000);
    await postgres.stop();
    rmSync(workDir, { recursive: true, force: true });
  }
}

process.on('SIGINT', () => {
  killAllNow();
  process.exit(130);
});

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    killAllNow();
    process.exit(1);
  },
);
