// What a run costs PostgreSQL: N occurrences of N jobs (W2's shape: 100 tenants, one nominal
// second) claimed and finished through the scheduler's store in batches of B, at most 300 in
// flight, as a busy pod's batchers send them. Prints PostgreSQL's CPU (every backend and helper
// process) per run for the claim and for the finish, the statements behind it
// (pg_stat_statements, nested ones too unless --top-only) and the row versions written.
//   node --import tsx bench/record-cost.ts --runs 10000 --batch 10 [--finish-batch 100]
// --ahead claims every occurrence (not sent) in batches of 500 first, then marks each sent as its
// slot comes; --explain logs the plans of one claim and one finish mid-burst (auto_explain), at
// the claim batch given by --explain-at (50; a later one sees plans made with more rows);
// --sql FILE runs an experiment's statements on the seeded database first.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migrate } from '../src/db/migrate.js';
import { createPool } from '../src/db/pool.js';
import { createPgJobStore } from '../src/db/job-store.js';
import { createLogger } from '../src/log.js';
import type { RunOutcome } from '../src/domain/run.js';
import { startBenchPostgres, withClient } from './infra.js';
import { numberOption } from './cli-option.js';
import { treeCpuSeconds } from './procs.js';

const log = (line: string) => process.stdout.write(`[record-cost] ${line}\n`);

const tenantId = (i: number) => `b0000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

/** A successful run's outcome as the agent leaves it: a short answer, one call with its usage. */
function outcomeOf(startedAt: string): RunOutcome {
  return {
    success: true,
    result: 'ok: the report is ready',
    error: null,
    errorKind: null,
    attempts: 1,
    detail: {
      promptSent: 'Summarise the overnight alerts.',
      model: 'bench-model',
      usage: { promptTokens: 120, completionTokens: 12 },
      attemptLog: [{ startedAt, durationMs: 50, outcome: 'success', model: 'bench-model' }],
      calls: [
        {
          model: 'bench-model',
          promptTokens: 120,
          cachedTokens: 0,
          completionTokens: 12,
          costMicros: 42,
        },
      ],
    },
  } as unknown as RunOutcome;
}

async function seed(url: string, runs: number): Promise<string[]> {
  return withClient(url, async (c) => {
    const tenants = Array.from({ length: 100 }, (_, i) => tenantId(i));
    await c.query(
      `INSERT INTO tenants (id, name, max_concurrent_runs)
       SELECT id, 'bench tenant ' || n, NULL FROM unnest($1::uuid[]) WITH ORDINALITY AS t (id, n)`,
      [tenants],
    );
    const { rows } = await c.query<{ id: string }>(
      `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt)
       SELECT ($1::uuid[])[1 + n % 100], 'job ' || n, '0 * * * * *', 'Summarise the overnight alerts.'
         FROM generate_series(1, $2) AS n RETURNING id`,
      [tenants, runs],
    );
    // An experiment's statements, run on the seeded database before the runs (--sql FILE).
    const sqlAt = process.argv.indexOf('--sql');
    const experiment = sqlAt >= 0 ? readFileSync(process.argv[sqlAt + 1] ?? '', 'utf8') : '';
    // Statements apart on lines of their own reading `-- next` (VACUUM needs its own).
    for (const statement of experiment.split(/^-- next$/m).filter((t) => t.trim())) {
      await c.query(statement);
    }
    await c.query('VACUUM ANALYZE cron_jobs');
    return rows.map((row) => row.id);
  });
}

async function statements(url: string): Promise<string[]> {
  return withClient(url, async (c) => {
    const { rows } = await c.query<{
      q: string;
      calls: number;
      ms: number;
      rows: number;
      hit: number;
      wal: number;
    }>(
      `SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS q, calls::int,
              total_exec_time::float AS ms, rows::int, shared_blks_hit::int AS hit,
              wal_bytes::float AS wal
         FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 14`,
    );
    return rows.map(
      (r) =>
        `${r.ms.toFixed(0).padStart(7)} ms ${String(r.calls).padStart(6)} calls ` +
        `${String(r.rows).padStart(7)} rows ${String(r.hit).padStart(8)} buffers ` +
        `${(r.wal / 1024).toFixed(0).padStart(7)} KiB WAL  ${r.q}`,
    );
  });
}

/** One batch's finish as the pod sends it, with the plans PostgreSQL chose for it (auto_explain). */
async function explainFinish(
  url: string,
  runs: { runId: string }[],
  at: Date,
  claimJobId?: string,
): Promise<void> {
  await withClient(url, async (c) => {
    c.on('notice', (msg) => log(`plan: ${msg.message ?? ''}`));
    await c.query(`LOAD 'auto_explain'`);
    await c.query(`SET auto_explain.log_min_duration = 0`);
    await c.query(`SET auto_explain.log_nested_statements = on`);
    await c.query(`SET auto_explain.log_analyze = on`);
    await c.query(`SET auto_explain.log_buffers = on`);
    await c.query(`SET client_min_messages = log`);
    if (claimJobId) {
      await c.query('SELECT * FROM scheduler_claim($1, $2, $3, $4, $5)', [
        [claimJobId],
        [at],
        [new Date(at.getTime() + 60_000)],
        'bench-pod',
        ['scheduled'],
      ]);
    }
    const startedAt = new Date().toISOString();
    const outcome = outcomeOf(startedAt);
    await c.query('SELECT run_id FROM scheduler_finish($1, $2, $3, $4, $5, $6, $7, $8, $9)', [
      runs.map((r) => r.runId),
      runs.map(() => true),
      runs.map(() => outcome.result),
      runs.map(() => null),
      runs.map(() => null),
      runs.map(() => 1),
      'bench-pod',
      runs.map(() => JSON.stringify({ result_bytes: 23 })),
      runs.map(() => at),
    ]);
  });
}

/** Row versions written per table, and how many were HOT (no index entry). */
async function tableWrites(url: string): Promise<string[]> {
  return withClient(url, async (c) => {
    await c.query('SELECT pg_stat_force_next_flush()');
    const { rows } = await c.query<{
      t: string;
      ins: number;
      upd: number;
      hot: number;
      del: number;
    }>(
      `SELECT relname AS t, n_tup_ins::int AS ins, n_tup_upd::int AS upd, n_tup_hot_upd::int AS hot,
              n_tup_del::int AS del
         FROM pg_stat_user_tables WHERE n_tup_ins + n_tup_upd + n_tup_del > 0 ORDER BY relname`,
    );
    return rows.map(
      (r) => `${r.t}: ${r.ins} inserted, ${r.upd} updated (${r.hot} HOT), ${r.del} deleted`,
    );
  });
}

async function main(): Promise<void> {
  const runs = numberOption('runs', 10_000);
  const batch = numberOption('batch', 100);
  log(
    `runs=${runs} batch=${batch}; ${os.cpus().length} cores, load ${os.loadavg()[0]?.toFixed(2)}`,
  );
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'hermesx-record-cost-'));
  const pg = await startBenchPostgres(workDir);
  const pool = createPool(pg.url, createLogger({ format: 'text', level: 'error' }));
  try {
    await migrate(pg.url, createLogger({ format: 'text', level: 'error' }));
    const ids = await seed(pg.url, runs);
    await withClient(pg.url, async (c) => {
      // Nested statements (inside the functions and triggers) too; their bookkeeping costs some
      // CPU itself, so --top-only measures without it.
      const track = process.argv.includes('--top-only') ? 'top' : 'all';
      await c.query(`ALTER SYSTEM SET pg_stat_statements.track = '${track}'`);
      await c.query('SELECT pg_reload_conf()');
    });
    const store = createPgJobStore(pool, 'bench-pod');
    const at = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 60_000);
    const next = new Date(at.getTime() + 60_000);
    // Planned as the sweep leaves them: due at `at`, so each claim moves next_run_at on.
    await withClient(pg.url, (c) => c.query('UPDATE cron_jobs SET next_run_at = $1', [at]));
    await withClient(pg.url, (c) => c.query('SELECT pg_stat_statements_reset()'));
    const inFlight = numberOption('in-flight', 300);
    const finishBatch = numberOption('finish-batch', batch);
    const ahead = process.argv.includes('--ahead');
    const lsn = () =>
      withClient(pg.url, async (c) => {
        const { rows } = await c.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
        return rows[0]?.lsn ?? '0/0';
      });
    const lsn0 = await lsn();
    const cpu0 = treeCpuSeconds(pg.pid);
    const t0 = performance.now();
    // As a burst goes: batches started while slots are free, the oldest finished to free them.
    const outstanding: { runId: string }[] = [];
    let claimedCount = 0;
    let aheadCpu = 0;
    let claimCpu = 0;
    let finishCpu = 0;
    const cpuOf = async (work: () => Promise<unknown>) => {
      const before = treeCpuSeconds(pg.pid);
      await work();
      return treeCpuSeconds(pg.pid) - before;
    };
    const finishOldest = async () => {
      const slice = outstanding.splice(0, finishBatch);
      const startedAt = new Date().toISOString();
      finishCpu += await cpuOf(() =>
        Promise.all(
          slice.map((r) => store.finishRun(r.runId, outcomeOf(startedAt), 'bench-pod', at)),
        ),
      );
    };
    // --ahead: every occurrence claimed (not sent) in batches of 500 before its second, then
    // each marked sent as its slot comes.
    const aheadRuns: string[] = [];
    if (ahead) {
      for (let i = 0; i < ids.length; i += 500) {
        aheadCpu += await cpuOf(async () => {
          const answers = await Promise.all(
            ids.slice(i, i + 500).map((id) => store.claimRun(id, at, 'bench-pod', next)),
          );
          for (const a of answers) if (a.kind === 'claimed') aheadRuns.push(a.run.runId);
        });
      }
    }
    for (let i = 0; i < ids.length; i += batch) {
      while (outstanding.length >= inFlight) await finishOldest();
      let started: { runId: string }[] = [];
      claimCpu += await cpuOf(async () => {
        if (ahead) {
          const slice = aheadRuns.slice(i, i + batch);
          const sent = await Promise.all(
            slice.map((id) => store.markSent(id, 'bench-pod', 'scheduled', at)),
          );
          started = slice.filter((_, k) => sent[k]).map((runId) => ({ runId }));
          return;
        }
        const answers = await Promise.all(
          ids
            .slice(i, i + batch)
            .map((id) => store.claimRun(id, at, 'bench-pod', next, 'scheduled')),
        );
        started = answers.flatMap((a) => (a.kind === 'claimed' ? [{ runId: a.run.runId }] : []));
      });
      if (i === numberOption('explain-at', 50) * batch && process.argv.includes('--explain')) {
        await explainFinish(pg.url, started, at, ids[ids.length - 1]);
        continue;
      }
      claimedCount += started.length;
      outstanding.push(...started);
    }
    while (outstanding.length > 0) await finishOldest();
    const wallMs = performance.now() - t0;
    const cpu = treeCpuSeconds(pg.pid) - cpu0;
    const walBytes = await withClient(pg.url, async (c) => {
      const { rows } = await c.query<{ n: number }>(
        'SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1)::float AS n',
        [lsn0],
      );
      return rows[0]?.n ?? 0;
    });
    const per = (s: number) => `${((s * 1e6) / claimedCount).toFixed(0)} µs`;
    log(`claimed and finished ${claimedCount} of ${ids.length}, at most ${inFlight} in flight`);
    log(`WAL: ${(walBytes / claimedCount).toFixed(0)} bytes a run`);
    if (ahead) log(`ahead:  PostgreSQL CPU ${aheadCpu.toFixed(2)} s (${per(aheadCpu)} a run)`);
    log(
      `${ahead ? 'mark' : 'claim'}:  PostgreSQL CPU ${claimCpu.toFixed(2)} s (${per(claimCpu)} a run)`,
    );
    log(`finish: PostgreSQL CPU ${finishCpu.toFixed(2)} s (${per(finishCpu)} a run)`);
    log(
      `total:  PostgreSQL CPU ${cpu.toFixed(2)} s (${per(cpu)} a run), wall ${wallMs.toFixed(0)} ms`,
    );
    for (const line of await statements(pg.url)) log(line);
    for (const line of await tableWrites(pg.url)) log(line);
  } finally {
    await pool.end();
    await pg.stop();
    rmSync(workDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
