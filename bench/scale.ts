// The scale workload: N jobs written straight into cron_jobs by SQL (next_run_at NULL, as an
// import does) across T tenants, M of them every minute (spread over the seconds), the rest
// daily; P replicas and the benchmark's model server. Measures, per replica: spawn -> scheduling,
// peak RSS; for the cluster: how long until every job is planned, the database time spent finding
// due work (pg_stat_statements, per replica and minute), and the per-minute jobs' fire lag with
// duplicates and misses, counted where the model calls arrive.
//   node --import tsx bench/scale.ts --jobs 1000000 --tenants 1000 --per-minute 1000 \
//     --pods 3 --observe-s 120 [--latency-ms 50] [--from dist|src] [--node-flags "--flag ..."]
// Pods run the built service (`node dist/cli.js saas-api`, what a deployment starts; dist/ is
// built first) unless --from src (tsx compiling the sources at every start).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migrate } from '../src/db/migrate.js';
import { createLogger } from '../src/log.js';
import {
  buildService,
  fetchText,
  metric,
  startBenchPostgres,
  startBenchRedis,
  startModelServer,
  startPod,
  withClient,
  type PodProcess,
} from './infra.js';
import { splitNodeFlags } from './args.js';
import { quantile } from './analysis.js';
import { numberOption } from './cli-option.js';
import { procSample, stopAll } from './procs.js';

interface Options {
  jobs: number;
  tenants: number;
  perMinute: number;
  pods: number;
  observeS: number;
  latencyMs: number;
  /** dist: pods run the built service (node dist/cli.js, built first); src: tsx on the sources. */
  from: 'dist' | 'src';
  /** More node flags for each pod (--node-flags "--a --b"). */
  nodeFlags: string[];
}

function parseOptions(argv: string[]): Options {
  return {
    jobs: numberOption('jobs', 1_000_000, argv),
    tenants: numberOption('tenants', 1000, argv),
    perMinute: numberOption('per-minute', 1000, argv),
    pods: numberOption('pods', 3, argv),
    observeS: numberOption('observe-s', 120, argv),
    latencyMs: numberOption('latency-ms', 50, argv),
    from: argv[argv.indexOf('--from') + 1] === 'src' && argv.includes('--from') ? 'src' : 'dist',
    nodeFlags: splitNodeFlags(
      argv.includes('--node-flags') ? argv[argv.indexOf('--node-flags') + 1] : undefined,
    ),
  };
}

const log = (line: string) => process.stdout.write(`[scale] ${line}\n`);

/** Occurrences of the per-minute jobs (job n at second n % 60) in [fromMs, toMs), whole seconds. */
function expectedOccurrences(perMinute: number, fromMs: number, toMs: number): number {
  let n = 0;
  for (let ms = fromMs; ms < toMs; ms += 1000) {
    const second = Math.floor(ms / 1000) % 60;
    // Jobs second, second + 60, second + 120, ... below perMinute.
    n += second < perMinute ? Math.ceil((perMinute - second) / 60) : 0;
  }
  return n;
}

/** Tenants, then jobs in one INSERT … SELECT: the per-minute ones first, at second i % 60. */
async function writeJobs(url: string, o: Options): Promise<number> {
  const startedMs = Date.now();
  await withClient(url, async (c) => {
    await c.query(
      `INSERT INTO tenants (id, name, max_cron_jobs)
       SELECT ('7e000000-0000-4000-8000-' || lpad(n::text, 12, '0'))::uuid, 'bench ' || n, $1
         FROM generate_series(1, $2) AS n`,
      [o.jobs, o.tenants],
    );
    await c.query(
      `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt)
       SELECT ('7e000000-0000-4000-8000-' || lpad((1 + n % $3)::text, 12, '0'))::uuid,
              'scale ' || n,
              CASE WHEN n < $2 THEN (n % 60) || ' * * * * *'
                   ELSE (n % 60) || ' ' || (n / 60 % 60) || ' ' || (n / 3600 % 24) || ' * * *' END,
              'bench prompt'
         FROM generate_series(0, $1 - 1) AS n`,
      [o.jobs, o.perMinute, o.tenants],
    );
    await c.query('ANALYZE cron_jobs');
  });
  return (Date.now() - startedMs) / 1000;
}

async function unplanned(url: string): Promise<number> {
  return withClient(url, async (c) => {
    const { rows } = await c.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM cron_jobs WHERE enabled AND next_run_at IS NULL',
    );
    return rows[0]?.n ?? 0;
  });
}

interface Discovery {
  ms: number;
  calls: number;
  /** Per statement (its function's name): ms and calls. */
  by: Record<string, { ms: number; calls: number }>;
}

const DISCOVERY_FUNCTIONS = [
  'scheduler_due_jobs',
  'scheduler_plan_take',
  'scheduler_plan_set',
  'scheduler_load_schedules',
];

/** Execution time (ms) and calls of the statements that find due work, in all and per function. */
async function discoveryTime(url: string): Promise<Discovery> {
  return withClient(url, async (c) => {
    const { rows } = await c.query<{ query: string; ms: number; calls: number }>(
      `SELECT query, total_exec_time::float AS ms, calls::int AS calls FROM pg_stat_statements`,
    );
    const found: Discovery = { ms: 0, calls: 0, by: {} };
    for (const row of rows) {
      const name = DISCOVERY_FUNCTIONS.find((fn) => row.query.includes(fn));
      if (!name) continue;
      const entry = (found.by[name] ??= { ms: 0, calls: 0 });
      entry.ms += row.ms;
      entry.calls += row.calls;
      found.ms += row.ms;
      found.calls += row.calls;
    }
    return found;
  });
}

const NO_DISCOVERY: Discovery = { ms: 0, calls: 0, by: {} };

/** What was spent between two readings, per function. */
function discoverySince(before: Discovery, after: Discovery): Discovery['by'] {
  return Object.fromEntries(
    Object.entries(after.by).map(([name, { ms, calls }]) => [
      name,
      {
        ms: Math.round(ms - (before.by[name]?.ms ?? 0)),
        calls: calls - (before.by[name]?.calls ?? 0),
      },
    ]),
  );
}

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2));
  log(
    `options ${JSON.stringify(o)}; machine: ${os.cpus().length} cores, load ${os.loadavg()[0]?.toFixed(2)}`,
  );
  if (o.from === 'dist') {
    const builtMs = Date.now();
    await buildService();
    log(`built dist/ in ${((Date.now() - builtMs) / 1000).toFixed(1)} s (not part of any figure)`);
  }
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'hermesx-scale-'));
  const pg = await startBenchPostgres(workDir);
  try {
    const redis = await startBenchRedis(workDir);
    const model = await startModelServer(o.latencyMs);
    await migrate(pg.url, createLogger({ format: 'text', level: 'error' }));
    const insertS = await writeJobs(pg.url, o);
    log(
      `wrote ${o.jobs} jobs (${o.perMinute} per minute) across ${o.tenants} tenants in ${insertS.toFixed(1)} s`,
    );
    if (pg.statements)
      await withClient(pg.url, (c) => c.query('SELECT pg_stat_statements_reset()'));

    const pods: PodProcess[] = [];
    const spawnS: number[] = [];
    const spawnedMs = Date.now();
    await Promise.all(
      Array.from({ length: o.pods }, async (_, i) => {
        const startMs = Date.now();
        const pod = await startPod({
          databaseUrl: pg.url,
          redisUrl: redis.url,
          llmUrl: model.url,
          podId: `scale-${i + 1}`,
          maxConcurrentRuns: 200,
          fromDist: o.from === 'dist',
          nodeFlags: o.nodeFlags,
        });
        spawnS.push((Date.now() - startMs) / 1000);
        pods.push(pod);
      }),
    );
    log(`spawn -> scheduling per replica: ${spawnS.map((s) => s.toFixed(2)).join(', ')} s`);

    const peakRss = new Map<string, number>();
    // What the RSS is made of at each replica's peak: V8 heap used / total and external memory.
    const atPeak = new Map<
      string,
      { heapUsedMb: number; heapTotalMb: number; externalMb: number }
    >();
    const sampleRss = () => {
      for (const pod of pods) {
        const rss = procSample(pod.child.pid).rssBytes;
        if (rss <= (peakRss.get(pod.podId) ?? 0)) continue;
        peakRss.set(pod.podId, rss);
        void fetchText(`${pod.url}/metrics`, 2000).then((text) => {
          if (!text) return;
          const mb = (name: string) => Math.round(metric(text, name) / 1048576);
          atPeak.set(pod.podId, {
            heapUsedMb: mb('nodejs_heap_size_used_bytes'),
            heapTotalMb: mb('nodejs_heap_size_total_bytes'),
            externalMb: mb('nodejs_external_memory_bytes'),
          });
        });
      }
    };
    const rssTimer = setInterval(sampleRss, 500);

    let plannedS = NaN;
    for (;;) {
      const left = await unplanned(pg.url);
      if (left === 0) {
        plannedS = (Date.now() - spawnedMs) / 1000;
        break;
      }
      if (Date.now() - spawnedMs > 600_000) {
        log(`still ${left} unplanned after 600 s`);
        break;
      }
      // Every 5 s: counting a million rows is itself work for the database under test.
      await new Promise((resolve) => setTimeout(resolve, 5000));
    }
    log(`every job planned ${plannedS.toFixed(1)} s after spawn`);

    // Observe whole minutes of the per-minute jobs once everything is planned.
    const fromMs = Math.ceil((Date.now() + 2000) / 1000) * 1000;
    const toMs = fromMs + o.observeS * 1000;
    const before = pg.statements ? await discoveryTime(pg.url) : NO_DISCOVERY;
    await new Promise((resolve) => setTimeout(resolve, toMs - Date.now() + 3000));
    const after = pg.statements ? await discoveryTime(pg.url) : NO_DISCOVERY;
    clearInterval(rssTimer);
    sampleRss();

    const calls = JSON.parse(
      (await fetchText(`${model.control}/calls?from=${fromMs}&to=${toMs - 1}`, 10_000)) ?? '{}',
    ) as { calls?: [string, number, number, number, number][] };
    const perMinuteIds = await withClient(pg.url, async (c) => {
      const { rows } = await c.query<{ id: string }>(
        `SELECT id FROM cron_jobs WHERE schedule LIKE '% * * * * *'`,
      );
      return new Set(rows.map((row) => row.id));
    });
    const perOccurrence = new Map<string, number>();
    const lags: number[] = [];
    for (const [jobId, occurrenceMs, answered, firstMs] of calls.calls ?? []) {
      if (!perMinuteIds.has(jobId)) continue;
      perOccurrence.set(`${jobId}|${occurrenceMs}`, answered);
      lags.push(firstMs - occurrenceMs);
    }
    const expected = expectedOccurrences(o.perMinute, fromMs, toMs);
    const duplicates = [...perOccurrence.values()].filter((n) => n > 1).length;
    const misses = Math.max(0, expected - perOccurrence.size);
    lags.sort((a, b) => a - b);
    const discoveryMsPerPodMinute = (after.ms - before.ms) / o.pods / (o.observeS / 60);
    const fired = await withClient(pg.url, async (c) => {
      const { rows } = await c.query<{ p50: number; p99: number; n: number }>(
        `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY lag) AS p50,
                percentile_cont(0.99) WITHIN GROUP (ORDER BY lag) AS p99, count(*)::int AS n
           FROM (SELECT extract(epoch FROM started_at - scheduled_at) * 1000 AS lag
                   FROM cron_job_runs WHERE scheduled_at >= $1 AND scheduled_at < $2
                    AND cron_job_id = ANY ($3::uuid[])) l`,
        [new Date(fromMs), new Date(toMs), [...perMinuteIds]],
      );
      return rows[0];
    });
    const result = {
      options: o,
      insertS,
      spawnToSchedulingS: spawnS,
      plannedAfterSpawnS: plannedS,
      peakRssMb: Object.fromEntries([...peakRss].map(([k, v]) => [k, Math.round(v / 1048576)])),
      atPeakRss: Object.fromEntries(atPeak),
      discovery: {
        statementMs: after.ms - before.ms,
        calls: after.calls - before.calls,
        msPerPodPerMinute: discoveryMsPerPodMinute,
        shareOfOneCorePerPod: discoveryMsPerPodMinute / 60_000,
        byStatement: discoverySince(before, after),
      },
      modelCalls: { occurrences: perOccurrence.size, expected, duplicates, misses },
      fireLagMs: { p50: quantile(lags, 0.5), p99: quantile(lags, 0.99) },
      runStartLagMs: fired,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
    if (pg.statements) {
      const top = await withClient(pg.url, async (c) => {
        const { rows } = await c.query<{
          query: string;
          calls: number;
          mean: number;
          total: number;
        }>(
          `SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 70) AS query, calls::int,
                  round(mean_exec_time::numeric, 3)::float AS mean,
                  round(total_exec_time::numeric)::float AS total
             FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 8`,
        );
        return rows;
      });
      for (const row of top)
        log(
          `statement ${row.total} ms total, ${row.calls} calls, mean ${row.mean} ms: ${row.query}`,
        );
    }
  } finally {
    await stopAll();
    await pg.stop();
    rmSync(workDir, { recursive: true, force: true });
  }
}

await main();
