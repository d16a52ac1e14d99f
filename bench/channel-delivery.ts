// `node --import tsx bench/channel-delivery.ts`: channel messages under a burst. N runs are
// recorded within one second across T tenants; every run notifies a Slack channel and an email
// channel (rule `always`), so 2N messages go out from two `hermesx saas-api` pods to stand-ins on
// loopback: a Slack incoming-webhook stand-in and an SMTP server (smtp-server, each mail read by
// mailparser), the server's SMTP_URL. Reports the lag from the run's record (the delivery row's
// created_at, written in the recording transaction) to the receiver's arrival, p50/p99 per
// channel kind, and lost or doubled messages. Every process started here is stopped by PID.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migrate } from '../src/db/migrate.js';
import { findFreePort } from '../src/dev/processes.js';
import { createLogger } from '../src/log.js';
import { startMailStandIn, startPlatformStandIn } from '../test/helpers/channel-peers.js';
import { baseEnv, fetchText, startBenchPostgres, withClient } from './infra.js';
import { quantile } from './analysis.js';
import { killAllNow, spawnNode, stopAll, type Child } from './procs.js';

const RUNS = Number(process.env.BENCH_CHANNEL_RUNS ?? 1000);
const TENANTS = Number(process.env.BENCH_CHANNEL_TENANTS ?? 50);
const PODS = Number(process.env.BENCH_CHANNEL_PODS ?? 2);
const BATCHES = 10;
const DEADLINE_MS = 180_000;
const PUBLIC_URL = 'https://hermesx.example.com';

const log = (line: string) =>
  process.stdout.write(`${new Date().toISOString().slice(11, 23)} ${line}\n`);
const tenantId = (i: number) => `d0000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
const RUN_IN_LINK = /\/runs\/([0-9a-f-]{36})/;

async function startPod(databaseUrl: string, index: number, smtpPort: number): Promise<Child> {
  const port = await findFreePort();
  const child = spawnNode(
    `channel-pod-${index}`,
    'src/cli.ts',
    ['saas-api'],
    baseEnv({
      DATABASE_URL: databaseUrl,
      HERMES_POD_ID: `channel-pod-${index}`,
      SAAS_API_PORT: String(port),
      SAAS_API_HOST: '127.0.0.1',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      PUBLIC_URL,
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      SMTP_FROM: 'hermesx@example.com',
      LOG_LEVEL: 'warn',
    }),
  );
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if ((await fetchText(`http://127.0.0.1:${port}/health/live`)) !== undefined) return child;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`channel-pod-${index} did not start`);
}

async function main(): Promise<void> {
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'hermesx-channel-bench-'));
  const postgres = await startBenchPostgres(workDir);
  const databaseUrl = postgres.url;
  const slack = await startPlatformStandIn('slack');
  const mail = await startMailStandIn();
  const slackArrivals = new Map<string, number[]>();
  const mailArrivals = new Map<string, number[]>();
  try {
    await migrate(databaseUrl, createLogger({ format: 'text', level: 'warn' }));
    await withClient(databaseUrl, async (c) => {
      for (let i = 1; i <= TENANTS; i++) {
        await c.query(`INSERT INTO tenants (id, name) VALUES ($1, $2)`, [tenantId(i), `t${i}`]);
        const { rows } = await c.query<{ slack: string; email: string }>(
          `WITH s AS (INSERT INTO notify_channels (tenant_id, kind, name, config)
                      VALUES ($1, 'slack', 'ops', $2) RETURNING id),
                e AS (INSERT INTO notify_channels (tenant_id, kind, name, config)
                      VALUES ($1, 'email', 'on-call', '{"to":["oncall@example.com"]}') RETURNING id)
           SELECT s.id AS slack, e.id AS email FROM s, e`,
          [tenantId(i), JSON.stringify({ url: `${slack.url}/services/T/B/${i}` })],
        );
        await c.query(
          `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt, enabled, notify_rules)
           VALUES ($1, 'digest', '0 8 * * *', 'p', false, $2)`,
          [
            tenantId(i),
            JSON.stringify([
              { channel: rows[0]!.slack, when: 'always' },
              { channel: rows[0]!.email, when: 'always' },
            ]),
          ],
        );
      }
    });
    const pods = await Promise.all(
      Array.from({ length: PODS }, (_, i) => startPod(databaseUrl, i + 1, mail.port)),
    );
    log(`${PODS} pods up; recording ${RUNS} runs across ${TENANTS} tenants within 1 s`);
    const perBatch = Math.ceil(RUNS / BATCHES);
    const startedMs = Date.now();
    await withClient(databaseUrl, async (c) => {
      for (let batch = 0; batch < BATCHES; batch++) {
        // Finished runs, as the scheduler records them: the trigger queues their messages.
        await c.query(
          `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, pod_id,
                                      finished_at, result, duration_ms)
           SELECT j.id, j.tenant_id, now() - make_interval(secs => n), 'success', 'bench', now(),
                  '**All quiet.** Checked ' || n || ' components; nothing changed.', 1
             FROM generate_series($1::int, $2::int) AS n
             JOIN cron_jobs j ON j.tenant_id = ('d0000000-0000-4000-8000-' ||
                                 lpad((1 + n % $3)::text, 12, '0'))::uuid`,
          [batch * perBatch, Math.min(RUNS, (batch + 1) * perBatch) - 1, TENANTS],
        );
        const waitMs = startedMs + ((batch + 1) * 1000) / BATCHES - Date.now();
        if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
      }
    });
    log(`recorded in ${Date.now() - startedMs} ms; waiting for every message`);
    const deadline = Date.now() + DEADLINE_MS;
    while (Date.now() < deadline) {
      if (slack.messages.length >= RUNS && mail.mails.length >= RUNS) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    for (const message of slack.messages) {
      const runId = RUN_IN_LINK.exec(message.raw)?.[1] ?? '';
      slackArrivals.set(runId, [...(slackArrivals.get(runId) ?? []), message.receivedAtMs]);
    }
    for (const received of mail.mails) {
      const runId = RUN_IN_LINK.exec(received.text ?? '')?.[1] ?? '';
      mailArrivals.set(runId, [...(mailArrivals.get(runId) ?? []), received.arrivedAtMs]);
    }
    const rows = await withClient(databaseUrl, async (c) => {
      const { rows: all } = await c.query<{ run_id: string; kind: string; created_ms: number }>(
        `SELECT d.run_id, c.kind, extract(epoch FROM d.created_at) * 1000 AS created_ms
           FROM channel_deliveries d JOIN notify_channels c ON c.id = d.channel_id`,
      );
      return all;
    });
    const report = (kind: 'slack' | 'email', arrivals: Map<string, number[]>) => {
      const lags = rows
        .filter((row) => row.kind === kind && arrivals.has(row.run_id))
        .map((row) => arrivals.get(row.run_id)![0]! - Number(row.created_ms))
        .sort((a, b) => a - b);
      const lost = rows.filter((row) => row.kind === kind && !arrivals.has(row.run_id)).length;
      const doubled = [...arrivals.values()].filter((times) => times.length > 1).length;
      log(
        `${kind}: ${lags.length} received, lost ${lost}, doubled ${doubled}; record -> receiver p50 ${quantile(lags, 0.5).toFixed(0)} ms, p99 ${quantile(lags, 0.99).toFixed(0)} ms, max ${quantile(lags, 1).toFixed(0)} ms`,
      );
    };
    log(
      `messages queued: ${rows.length} for ${RUNS} runs; Slack payload problems: ${slack.problems.length}`,
    );
    report('slack', slackArrivals);
    report('email', mailArrivals);
    await Promise.all(pods.map((pod) => pod.proc.kill('SIGTERM')));
  } finally {
    await slack.close();
    await mail.close();
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
