// `npm run verify:cluster`: the user guide's "Multi-Pod Mutual Exclusion Verification" and "Fault
// Recovery Verification" on a local stand-in for deploy/docker-compose.multi-replica.yml (no
// Docker): embedded PostgreSQL 16, Redis behind Sentinel (primary, replica, three sentinels), a
// fake model server, three saas-api replicas (hermesx-mr-1..3) behind nginx round robin, all on
// loopback, with short schedules; a job whose runs POST through http_request and a webhook
// endpoint keep side effects in the loop, counted by loopback receivers (side-effects.ts). The
// faults: the Redis primary SIGKILLed (a failover), a replica SIGKILLed, PostgreSQL restarted.
// Prints a report (check, expected, observed, PASS/FAIL) and exits 1 if any check fails. Every
// process it started is stopped by PID and its temp dir removed, also on SIGINT/SIGTERM.
import {
  cleanupAll,
  ensureNginx,
  POLL_INTERVAL,
  SENTINEL_DOWN_AFTER_MS,
  startCluster,
  type Cluster,
} from './infra.js';
import { verifyMutualExclusion } from './exclusion.js';
import { verifyPodKill } from './faults.js';
import { verifyWholeRun } from './final.js';
import { verifyPostgresRestart, type PgRestartTimes } from './pg-restart.js';
import { verifyRedisFailover, type FailoverTimes } from './outage.js';
import { Report, secs } from './report.js';
import { modelHandler } from './scenario.js';
import { startSideEffects, verifySideEffects, type EffectCounts } from './side-effects.js';

/** Every wait is bounded; this only catches a hang nobody foresaw. */
const WATCHDOG_MS = 200_000;

const startedAt = Date.now();
let interrupted = false;
const say = (line: string) => {
  // After a signal, checks still finishing meet stopped processes: their verdicts mean nothing.
  if (interrupted && /^(PASS|FAIL) /.test(line)) return;
  process.stdout.write(`[verify ${secs(Date.now() - startedAt).padStart(7)}] ${line}\n`);
};

/** On a signal or the watchdog: stop what is still registered (cleanups are popped, so a cleanup
 * already under way elsewhere is not repeated), then exit. */
async function stopEverything(reason: string, code: number): Promise<never> {
  interrupted = true;
  say(`${reason}: stopping every process started`);
  await cleanupAll(say);
  process.exit(code);
}
process.once('SIGINT', () => void stopEverything('SIGINT', 130));
process.once('SIGTERM', () => void stopEverything('SIGTERM', 143));

async function main(): Promise<number> {
  const report = new Report(say);
  let cluster: Cluster | undefined;
  let aborted: string | undefined;
  let setupMs = 0;
  let installMs = 0;
  let counts: EffectCounts | undefined;
  let failover: FailoverTimes | undefined;
  let pgRestart: PgRestartTimes | undefined;
  try {
    const installStart = Date.now();
    ensureNginx(say);
    installMs = Date.now() - installStart;
    const watchdog = setTimeout(
      () => void stopEverything(`watchdog: still running after ${secs(WATCHDOG_MS)}`, 1),
      WATCHDOG_MS,
    );
    watchdog.unref();
    cluster = await startCluster(say, modelHandler);
    setupMs = Date.now() - startedAt;
    say(`cluster ready: nginx ${cluster.lbUrl} → ${cluster.pods.map((p) => p.url).join(', ')}`);
    const receivers = await startSideEffects(cluster, say);
    const jobs = await verifyMutualExclusion(cluster, report, say);
    failover = await verifyRedisFailover(cluster, report, say);
    const survivors = await verifyPodKill(cluster, report, say, [...jobs.keys()]);
    // Always run (`--pg-restart`, once needed to ask for it, is still accepted).
    pgRestart = await verifyPostgresRestart(cluster, report, say, survivors);
    await verifyWholeRun(cluster, report, say, survivors);
    counts = await verifySideEffects(cluster, report, say, receivers);
  } catch (err) {
    aborted = err instanceof Error ? (err.stack ?? err.message) : String(err);
    say(`aborted: ${aborted}`);
  } finally {
    say('stopping every process started (by PID) and removing the temp dir');
    await cleanupAll(say);
  }

  const header = [
    'HermesX cluster verification (user guide: Multi-Pod Mutual Exclusion, Fault Recovery)',
    ...(cluster
      ? [
          `nginx        ${cluster.lbUrl}  pid ${cluster.nginxPid}  ${cluster.nginxVersion} (round robin)`,
          ...cluster.pods.map(
            (pod) => `replica      ${pod.podId.padEnd(13)} ${pod.url}  pid ${pod.pid}`,
          ),
          `PostgreSQL   ${redact(cluster.databaseUrl)}  pid ${cluster.postgresPid} (embedded 16; stopped, restarted on this port)`,
          `Redis        primary 127.0.0.1:${cluster.sentinel.primary.port}  pid ${cluster.sentinel.primary.pid} (SIGKILLed); ` +
            `replica 127.0.0.1:${cluster.sentinel.replica.port}  pid ${cluster.sentinel.replica.pid} (promoted)`,
          `Sentinel     ${cluster.sentinel.sentinelList} (quorum 2, down-after ${secs(SENTINEL_DOWN_AFTER_MS)}) ` +
            cluster.sentinel.sentinels.map((s) => ` pid ${s.pid}`).join(','),
          `temp dir     ${cluster.tmpDir} (PostgreSQL data, nginx config and logs; removed at the end)`,
          `fake model   ${cluster.llm.url} (${cluster.llm.calls.length} calls)`,
          `settings     SCHEDULER_POLL_INTERVAL=${POLL_INTERVAL}, HERMES_API_KEY=test-secret-key`,
        ]
      : ['(the cluster did not start)']),
  ];
  const pipeline = counts
    ? [
        `pipeline     runs ${counts.runs}, model calls ${counts.modelCalls}, deliveries ${counts.deliveries}, ` +
          `received ${counts.received}, duplicates ${counts.duplicates} (same id), lost ${counts.lost}`,
      ]
    : [];
  const faults = [
    ...(failover
      ? [
          `failover     Redis primary killed → replica promoted ${optSecs(failover.promotedMs)}, ` +
            `every replica scheduling again ${optSecs(failover.resumedMs)}`,
        ]
      : []),
    ...(pgRestart
      ? [
          `pg restart   PostgreSQL down ${secs(pgRestart.downMs)}; every job run again ` +
            `${optSecs(pgRestart.resumeMs)} after its return`,
        ]
      : []),
  ];
  const footer = [
    ...pipeline,
    ...faults,
    `runtime      ${secs(Date.now() - startedAt)} (set-up ${secs(setupMs)}${installMs > 1000 ? `, nginx install ${secs(installMs)}` : ''})`,
    ...(aborted ? [`ABORTED      ${aborted.split('\n')[0]}`] : []),
  ];
  if (cluster && (!report.passed || aborted)) {
    for (const pod of cluster.pods) {
      process.stdout.write(
        `\n--- last log lines of ${pod.podId}\n${pod.lines.slice(-25).join('\n')}\n`,
      );
    }
  }
  process.stdout.write(`${report.format(header, footer)}\n`);
  return report.passed && !aborted ? 0 : 1;
}

function optSecs(ms: number | undefined): string {
  return ms === undefined ? '(not seen)' : secs(ms);
}

function redact(url: string): string {
  return url.replace(/:[^:@/]+@/, ':***@');
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`verify-cluster: ${String(err)}\n`);
    process.exit(1);
  },
);
