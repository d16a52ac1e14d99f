// What a measurement window cost: CPU seconds and peak RSS per replica (from /proc), CPU of
// PostgreSQL, Redis and the model server, the machine's busy share, Redis commands (INFO
// commandstats deltas, surviving a Redis restart) and PostgreSQL statements (pg_stat_statements
// calls of the app role, and pg_stat_database.xact_commit).
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { machineCpu, procSample, treeCpuSeconds } from './procs.js';

export interface Replica {
  id: string;
  pid: number;
}

export interface UsageSources {
  replicas: () => Replica[];
  redis: Redis;
  redisPid: () => number;
  postgresPid?: number;
  modelServerPid: number;
  /** A superuser connection to the benchmark database (for the PostgreSQL counters). */
  db?: pg.Client;
  statements: boolean;
}

export interface Usage {
  seconds: number;
  cpu: Record<string, number>;
  peakRss: Record<string, number>;
  postgresCpu: number;
  redisCpu: number;
  modelServerCpu: number;
  /** CPU of this harness process (progress queries, sampling). */
  harnessCpu: number;
  /** Busy share of all cores of the machine, 0..1. */
  machineBusy: number;
  /** Every command Redis executed, including those called inside Lua scripts. */
  redisCommands: number;
  /** EVAL / EVALSHA / FCALL calls: one client round trip each. */
  redisScripts: number;
  redisTop: [string, number][];
  pgStatements: number | null;
  /** The busiest statements: calls, mean execution time, rows returned or written in all. */
  pgTop: { query: string; calls: number; meanMs: number; rows?: number }[];
  xactCommit: number | null;
}

interface StatementRow {
  queryid: string;
  query: string;
  calls: string;
  rows: string;
  total: number;
}

async function statementSnapshot(db: pg.Client): Promise<Map<string, StatementRow>> {
  const { rows } = await db.query<StatementRow>(
    `SELECT s.queryid::text, s.query, s.calls::text, s.rows::text, s.total_exec_time AS total
       FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid
      WHERE r.rolname = 'hermesx_app' AND s.dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`,
  );
  return new Map(rows.map((row) => [row.queryid, row]));
}

async function xactCommit(db: pg.Client): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    'SELECT xact_commit::text AS n FROM pg_stat_database WHERE datname = current_database()',
  );
  return Number(rows[0]?.n ?? 0);
}

interface CommandStats {
  runId: string;
  calls: Map<string, number>;
}

async function commandStats(redis: Redis): Promise<CommandStats | undefined> {
  try {
    const text = await redis.info('server', 'commandstats');
    const calls = new Map<string, number>();
    for (const match of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
      calls.set(match[1] as string, Number(match[2]));
    }
    return { runId: /^run_id:(\S+)/m.exec(text)?.[1] ?? '', calls };
  } catch {
    return undefined; // Redis restarting
  }
}

/** Starts sampling now; stop() returns the window's usage. */
export async function startUsage(
  src: UsageSources,
  sampleMs = 500,
): Promise<{ stop(): Promise<Usage> }> {
  const startedMs = Date.now();
  const machine0 = machineCpu();
  // Per replica: CPU seen on its current PID, plus that of PIDs it had before (a respawn).
  const cpu = new Map<string, { pid: number; first: number; last: number; earlier: number }>();
  const peakRss: Record<string, number> = {};
  const sampleReplicas = (initial: boolean) => {
    for (const replica of src.replicas()) {
      const sample = procSample(replica.pid);
      if (sample.rssBytes === 0) continue; // gone (killed)
      const known = cpu.get(replica.id);
      if (!known) {
        const first = initial ? sample.cpuSeconds : 0;
        cpu.set(replica.id, { pid: replica.pid, first, last: sample.cpuSeconds, earlier: 0 });
      } else if (known.pid !== replica.pid) {
        known.earlier += known.last - known.first;
        Object.assign(known, { pid: replica.pid, first: 0, last: sample.cpuSeconds });
      } else {
        known.last = sample.cpuSeconds;
      }
      peakRss[replica.id] = Math.max(peakRss[replica.id] ?? 0, sample.rssBytes);
    }
  };
  sampleReplicas(true);
  const pg0 = src.postgresPid ? treeCpuSeconds(src.postgresPid) : 0;
  // Per redis-server PID (a restart makes a new one): first and last CPU seen.
  const redisCpu = new Map<number, { first: number; last: number }>();
  const sampleRedis = (first: boolean) => {
    const pid = src.redisPid();
    const now = procSample(pid).cpuSeconds;
    if (now === 0) return;
    const known = redisCpu.get(pid);
    if (known) known.last = now;
    else redisCpu.set(pid, { first: first ? now : 0, last: now });
  };
  sampleRedis(true);
  const model0 = procSample(src.modelServerPid).cpuSeconds;
  const harness0 = procSample(process.pid).cpuSeconds;
  const statements0 = src.db && src.statements ? await statementSnapshot(src.db) : undefined;
  const xact0 = src.db ? await xactCommit(src.db) : undefined;

  const commands = new Map<string, number>();
  let lastStats = await commandStats(src.redis);
  const addCommands = async () => {
    const now = await commandStats(src.redis);
    if (!now) return;
    // A restarted Redis (another run_id) counts from zero again.
    const before = lastStats?.runId === now.runId ? lastStats.calls : new Map<string, number>();
    for (const [name, calls] of now.calls) {
      commands.set(name, (commands.get(name) ?? 0) + calls - (before.get(name) ?? 0));
    }
    lastStats = now;
  };
  const sampleOnce = () => {
    sampleReplicas(false);
    sampleRedis(false);
  };
  const timer = setInterval(() => {
    sampleOnce();
    void addCommands();
  }, sampleMs);

  return {
    async stop(): Promise<Usage> {
      clearInterval(timer);
      sampleOnce();
      await addCommands();
      const seconds = (Date.now() - startedMs) / 1000;
      const cpuSeconds: Record<string, number> = {};
      for (const [id, c] of cpu) cpuSeconds[id] = c.earlier + c.last - c.first;
      const machine1 = machineCpu();
      // The benchmark's own INFO and connection commands are not the systems' work.
      for (const own of ['info', 'client|setinfo', 'client|setname', 'select', 'ping'])
        commands.delete(own);
      const redisTop = [...commands.entries()].sort((a, b) => b[1] - a[1]);
      let pgStatements: number | null = null;
      let pgTop: Usage['pgTop'] = [];
      if (src.db && statements0) {
        const statements1 = await statementSnapshot(src.db);
        const deltas = [...statements1.values()].map((row) => {
          const before = statements0.get(row.queryid);
          const calls = Number(row.calls) - Number(before?.calls ?? 0);
          const total = row.total - (before?.total ?? 0);
          return {
            query: row.query.replace(/\s+/g, ' ').slice(0, 90),
            calls,
            meanMs: calls > 0 ? total / calls : 0,
            rows: Number(row.rows) - Number(before?.rows ?? 0),
          };
        });
        pgStatements = deltas.reduce((sum, d) => sum + d.calls, 0);
        pgTop = deltas
          .filter((d) => d.calls > 0)
          .sort((a, b) => b.calls - a.calls)
          .slice(0, 6);
      }
      const xact1 = src.db ? await xactCommit(src.db) : undefined;
      return {
        seconds,
        cpu: cpuSeconds,
        peakRss,
        postgresCpu: src.postgresPid ? treeCpuSeconds(src.postgresPid) - pg0 : 0,
        redisCpu: [...redisCpu.values()].reduce((sum, c) => sum + c.last - c.first, 0),
        modelServerCpu: procSample(src.modelServerPid).cpuSeconds - model0,
        harnessCpu: procSample(process.pid).cpuSeconds - harness0,
        machineBusy: (machine1.busy - machine0.busy) / Math.max(1, machine1.total - machine0.total),
        redisCommands: redisTop.reduce((sum, [, n]) => sum + n, 0),
        redisScripts: redisTop
          .filter(([name]) => /^(eval|evalsha|eval_ro|evalsha_ro|fcall|fcall_ro)$/.test(name))
          .reduce((sum, [, n]) => sum + n, 0),
        redisTop: redisTop.slice(0, 6),
        pgStatements,
        pgTop,
        xactCommit: xact0 !== undefined && xact1 !== undefined ? xact1 - xact0 : null,
      };
    },
  };
}

/** Busy share of the machine not explained by the processes measured here (other load). */
export function outsideShare(u: Usage, nproc: number): number {
  const ours =
    Object.values(u.cpu).reduce((a, b) => a + b, 0) +
    u.postgresCpu +
    u.redisCpu +
    u.modelServerCpu +
    u.harnessCpu;
  return Math.max(0, u.machineBusy - ours / (u.seconds * nproc));
}
