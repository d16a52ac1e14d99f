// A kill storm: three `saas-api` pods run per-second jobs against a model that answers in
// --latency-ms while one pod after another is SIGKILLed and restarted under the same id. What it
// checks is the run pipeline's promise: no occurrence is run twice, none reaches the model twice,
// and no run is failed without its model call (a claim lost before the request left is adopted
// by another pod, not failed). Standalone:
//   node --import tsx bench/kill-storm.ts [--seconds 60] [--jobs 30] [--every-ms 3000] [--latency-ms 300]
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { migrate } from '../src/db/migrate.js';
import { startPostgres, startRedis } from '../src/dev/processes.js';
import { cronCallOf, insertJob, startPod, stopAllPods, type Pod } from '../test/helpers/cluster.js';
import { startFakeLlm } from '../test/helpers/fake-llm.js';
import { silentLogger } from '../test/helpers/log.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    jobs: { type: 'string', default: '30' },
    'every-ms': { type: 'string', default: '3000' },
    'latency-ms': { type: 'string', default: '300' },
  },
});
const SECONDS = Number(values.seconds);
const JOBS = Number(values.jobs);
const EVERY_MS = Number(values['every-ms']);
const LATENCY_MS = Number(values['latency-ms']);
const POD_IDS = ['storm-1', 'storm-2', 'storm-3'];
const say = (line: string) => console.log(`${new Date().toISOString().slice(11, 23)} ${line}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Outcome {
  status: string;
  error_kind: string | null;
  calls: number;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'hermesx-storm-'));
  const postgres = await startPostgres({ dataDir, persistent: false });
  const redis = await startRedis();
  const llm = await startFakeLlm({ latencyMs: LATENCY_MS });
  const db = new pg.Client({ connectionString: postgres.url });
  try {
    await migrate(postgres.url, silentLogger());
    await db.connect();
    const start = (podId: string) =>
      startPod({
        databaseUrl: postgres.url,
        redisUrl: redis.url,
        llmUrl: llm.url,
        podId,
        env: { SCHEDULER_POLL_INTERVAL: '5s', LOG_LEVEL: 'info' },
      });
    const pods: Pod[] = await Promise.all(POD_IDS.map(start));
    const jobIds: string[] = [];
    for (let i = 0; i < JOBS; i++) {
      const job = await insertJob(db, {
        name: `storm ${i}`,
        schedule: '* * * * * *',
        prompt: 'ok',
      });
      jobIds.push(job.id);
    }
    say(`${JOBS} per-second jobs, model ${LATENCY_MS} ms, a SIGKILL every ${EVERY_MS} ms`);
    const adopted: string[] = [];
    const endMs = Date.now() + SECONDS * 1000;
    let kills = 0;
    while (Date.now() < endMs) {
      await sleep(EVERY_MS * (0.5 + Math.random()));
      const i = Math.floor(Math.random() * pods.length);
      const victim = pods[i] as Pod;
      await victim.kill('SIGKILL');
      kills += 1;
      adopted.push(...victim.lines.filter((line) => line.includes('run adopted')));
      pods[i] = await start(victim.podId);
    }
    // Let every pod's recovery settle what the last kills left (liveness 15 s + recovery 10 s).
    await sleep(30_000);
    for (const pod of pods) adopted.push(...pod.lines.filter((l) => l.includes('run adopted')));
    await stopAllPods();

    const calls = new Map<string, number>();
    for (const call of llm.calls) {
      const cron = cronCallOf(call.body);
      if (!cron) continue;
      const key = `${cron.jobId}|${cron.scheduledAt}`;
      calls.set(key, (calls.get(key) ?? 0) + 1);
    }
    const { rows } = await db.query<{ job: string; at: Date; status: string; error_kind: string }>(
      `SELECT cron_job_id AS job, scheduled_at AS at, status, error_kind FROM cron_job_runs`,
    );
    const outcomes: Outcome[] = rows.map((row) => ({
      status: row.status,
      error_kind: row.error_kind,
      calls: calls.get(`${row.job}|${row.at.toISOString()}`) ?? 0,
    }));
    const count = (test: (o: Outcome) => boolean) => outcomes.filter(test).length;
    const duplicates = await db.query(
      'SELECT cron_job_id, scheduled_at FROM cron_job_runs GROUP BY 1, 2 HAVING count(*) > 1',
    );
    const kinds = new Map<string, number>();
    for (const o of outcomes) {
      const kind = o.error_kind ?? 'none';
      if (o.status === 'failed') kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    }
    const summary = {
      kills,
      runs: outcomes.length,
      success: count((o) => o.status === 'success'),
      failed: count((o) => o.status === 'failed'),
      failedByKind: Object.fromEntries(kinds),
      inFlightLeft: count((o) => o.status === 'claimed' || o.status === 'running'),
      failedWithoutModelCall: count((o) => o.status === 'failed' && o.calls === 0),
      duplicateRuns: duplicates.rowCount,
      occurrencesCalledTwice: [...calls.values()].filter((n) => n > 1).length,
      adoptedRuns: adopted.length,
    };
    console.log(JSON.stringify(summary));
    const ok =
      summary.failedWithoutModelCall === 0 &&
      summary.duplicateRuns === 0 &&
      summary.occurrencesCalledTwice === 0 &&
      summary.inFlightLeft === 0;
    say(ok ? 'PASS' : 'FAIL');
    process.exitCode = ok ? 0 : 1;
  } finally {
    await stopAllPods().catch(() => {});
    await db.end().catch(() => {});
    await llm.close();
    await redis.stop();
    await postgres.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
