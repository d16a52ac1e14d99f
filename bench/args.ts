// Command-line arguments of `npm run bench` and the size presets.
import type { SystemName } from './system.js';
import type { WorkloadName } from './workloads.js';

export type StandaloneName = 'scale' | 'history';

export interface BenchArgs {
  size: 'tiny' | 'default';
  jobs: number;
  scaleJobs: number;
  durationS: number;
  workloads: WorkloadName[];
  /** HermesX-only workloads with their own PostgreSQL (bench/scale.ts, bench/history.ts). */
  standalone: StandaloneName[];
  /** history: run rows generated before the run list is read. */
  historyRows: number;
  systems: SystemName[];
  latencyMs: number;
  replicas: number;
  concurrency: number;
  /** SCHEDULER_CLAIM_AHEAD of the HermesX replicas (absent: the product's default). */
  claimAhead?: number;
  /** How the HermesX replicas run: the built service (dist/, as shipped) or src/ through tsx. */
  from: 'dist' | 'src';
  /** Second of the minute of the W2 burst; 'auto' picks the next one reachable (saves waiting). */
  burstSecond: number | 'auto';
  databaseUrl?: string;
  redisUrl?: string;
  /** Where the report goes; docs/ (rewriting the results section of docs/benchmarks.md) by default. */
  out?: string;
  progressS: number;
  /** W3: bound of a replica's cold start, and of the wait for notified jobs, in seconds. */
  limitS: number;
  absorbLimitS: number;
  /** Write V8 CPU profiles of the HermesX replicas here (summarised by bench/profile-summary.ts). */
  cpuProf?: string;
  /** More node flags for the HermesX replicas (an experiment: --node-flags "--heap-growing-percent=0"). */
  nodeFlags: string[];
  /** Keep the work directory (worker run logs, Redis and PostgreSQL data) for a look afterwards. */
  keep: boolean;
  /** W5 / W5t (HermesX only): the big tenant's jobs, the small tenants, the model's latency. */
  contentionJobs: number;
  contentionTenants: number;
  contentionLatencyMs: number;
  /** W5t: share of model requests answered 429 (Retry-After: 1). */
  throttleRate: number;
  /** W5 / W5t: consecutive minutes measured, one burst each. */
  contentionBursts: number;
  /** Seeds the W5 job ids and which model requests are throttled: reruns see the same load. */
  seed: number;
}

export const USAGE = `usage: npm run bench -- [options]
  --size tiny|default        presets (default: 10,000 jobs, W3 100,000, 10 s windows, all workloads)
  --jobs N                   jobs in W1, W2 and W4
  --scale-jobs N             jobs loaded in W3
  --duration S               measurement window of W1 and W4, in seconds (the issue's W1: 180)
  --workloads w1,w2,w3,w4    which workloads (default all four); w5 and w5t are opt-in, see below
  --systems hermesx,bullmq   which systems (one after the other); hermesx-budget is HermesX with
                             a priced model and budgets on every tenant and job, never hit (each
                             model call reserved and settled): w1, w2 and w4 only
  --latency-ms N             model server latency (50)
  --replicas N               replicas / workers per system (3)
  --concurrency N            runs in flight per replica / worker (100)
  --claim-ahead N            HermesX: SCHEDULER_CLAIM_AHEAD of the replicas (the default: 0)
  --from dist|src            HermesX replicas: the built service, as the image runs it (dist, built
                             first; the default), or src/ through tsx (compiled at every start)
  --burst-second S|auto      second of the minute of the W2 burst (auto: the first one reachable
                             once the jobs are loaded, so no run waits up to a minute; 0 gives
                             the issue's "0 * * * * *" exactly, same load)
  --database-url URL         use this PostgreSQL 16 instead of an embedded one (migrated; tenants
                             'bench tenant NN' and jobs named 'bench …' are created and removed)
  --redis-url URL            use this Redis instead of a local redis-server (W4 then skips the restart)
  --out DIR                  write the report, chart and JSON to DIR instead of docs/
  --progress S               seconds between progress lines (5)
  --limit S                  W3: bound of a replica's cold start with every job (90)
  --absorb-limit S           W3: bound of the wait for replicas to take the jobs by notification (10)
  --cpu-prof DIR             write V8 CPU profiles of the HermesX replicas into DIR
  --node-flags "FLAGS"       more node flags for the HermesX replicas (e.g. "--heap-growing-percent=0")
  --keep yes                 keep the work directory (BullMQ run logs, data) and print its path
contention (HermesX only; BullMQ is not started when only these are chosen):
  --workloads w5,w5t         w5: one tenant's backlog and small tenants' jobs all due at the same
                             second, slow model; w5t: the same with a share of answers 429
  --contention-jobs N        the big tenant's jobs (2400)
  --contention-tenants N     small tenants, one job each (10)
  --contention-latency-ms N  model latency in w5 / w5t (4000)
  --throttle-rate R          w5t: share of model requests answered 429 with Retry-After: 1 (0.3)
  --contention-bursts N      consecutive minutes measured, one burst each (1)
  --seed N                   seeds the w5 job ids and which requests get a 429 (1)
  e.g. npm run bench -- --workloads w5,w5t --systems hermesx --out /tmp/w5
scale and history (HermesX only, each with its own PostgreSQL; opt-in):
  --workloads scale,history  scale: --scale-jobs jobs written by SQL across 1,000 tenants (1,000 of
                             them every minute), --replicas pods from dist/, 60 s observed
                             (bench/scale.ts); history: --history-rows run rows, the run list read
                             500 + 500 times, 500 runs recorded (bench/history.ts)
  --history-rows N           run rows of the history workload (1,000,000)
  e.g. npm run bench -- --workloads scale,history --scale-jobs 1000000 --out /tmp/scale`;

const CONTENTION = {
  contentionJobs: 2400,
  contentionTenants: 10,
  contentionLatencyMs: 4000,
  throttleRate: 0.3,
  contentionBursts: 1,
  seed: 1,
};

const PRESETS: Record<
  BenchArgs['size'],
  Omit<BenchArgs, 'size' | 'from' | 'databaseUrl' | 'redisUrl' | 'out' | 'keep' | 'nodeFlags'>
> = {
  default: {
    jobs: 10_000,
    scaleJobs: 100_000,
    durationS: 10,
    workloads: ['w1', 'w4', 'w2', 'w3'],
    standalone: [],
    historyRows: 1_000_000,
    systems: ['hermesx', 'bullmq'],
    latencyMs: 50,
    replicas: 3,
    concurrency: 100,
    burstSecond: 'auto',
    progressS: 5,
    limitS: 90,
    absorbLimitS: 10,
    ...CONTENTION,
  },
  tiny: {
    jobs: 120,
    scaleJobs: 500,
    durationS: 8,
    workloads: ['w1'],
    standalone: [],
    historyRows: 10_000,
    systems: ['hermesx', 'bullmq'],
    latencyMs: 50,
    replicas: 3,
    concurrency: 100,
    burstSecond: 'auto',
    progressS: 4,
    limitS: 30,
    absorbLimitS: 10,
    ...CONTENTION,
    contentionJobs: 30,
    contentionTenants: 3,
    contentionLatencyMs: 500,
  },
};

/** The flags of a `--node-flags "--a --b"` option, one per word. */
export const splitNodeFlags = (text: string | undefined): string[] =>
  (text ?? '').split(' ').filter(Boolean);

export function parseArgs(argv: string[]): BenchArgs {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i] as string;
    if (name === '--help' || name === '-h') throw new UsageError('');
    if (!name.startsWith('--')) throw new UsageError(`unexpected argument ${name}`);
    const [key, inline] = name.slice(2).split('=', 2) as [string, string | undefined];
    const value = inline ?? argv[++i];
    if (value === undefined) throw new UsageError(`--${key} needs a value`);
    values.set(key, value);
  }
  const size = (values.get('size') ?? 'default') as BenchArgs['size'];
  if (!(size in PRESETS)) throw new UsageError(`--size must be tiny or default`);
  const args: BenchArgs = { size, ...PRESETS[size], from: 'dist', keep: false, nodeFlags: [] };
  const int = (key: string, min: number) => {
    const text = values.get(key);
    if (text === undefined) return undefined;
    const n = Number(text);
    if (!Number.isInteger(n) || n < min)
      throw new UsageError(`--${key} must be a whole number ≥ ${min}`);
    return n;
  };
  args.jobs = int('jobs', 1) ?? args.jobs;
  args.scaleJobs = int('scale-jobs', 1) ?? args.scaleJobs;
  args.durationS = int('duration', 2) ?? args.durationS;
  args.latencyMs = int('latency-ms', 0) ?? args.latencyMs;
  args.replicas = int('replicas', 1) ?? args.replicas;
  args.concurrency = int('concurrency', 1) ?? args.concurrency;
  const claimAhead = int('claim-ahead', 0);
  if (claimAhead !== undefined) args.claimAhead = claimAhead;
  args.progressS = int('progress', 1) ?? args.progressS;
  args.limitS = int('limit', 5) ?? args.limitS;
  args.absorbLimitS = int('absorb-limit', 1) ?? args.absorbLimitS;
  args.contentionJobs = int('contention-jobs', 1) ?? args.contentionJobs;
  args.contentionTenants = int('contention-tenants', 1) ?? args.contentionTenants;
  if (args.contentionTenants > 99) throw new UsageError('--contention-tenants must be ≤ 99');
  args.contentionLatencyMs = int('contention-latency-ms', 0) ?? args.contentionLatencyMs;
  args.contentionBursts = int('contention-bursts', 1) ?? args.contentionBursts;
  // One burst a minute, at minutes listed in an hourly schedule: at most an hour's worth.
  if (args.contentionBursts > 60) throw new UsageError('--contention-bursts must be ≤ 60');
  args.seed = int('seed', 0) ?? args.seed;
  const rate = values.get('throttle-rate');
  if (rate !== undefined) {
    const n = Number(rate);
    if (rate.trim() === '' || !(n >= 0 && n <= 1))
      throw new UsageError('--throttle-rate must be a number from 0 to 1');
    args.throttleRate = n;
  }
  const burst = values.get('burst-second');
  if (burst !== undefined) {
    const n = Number(burst);
    if (burst !== 'auto' && !(Number.isInteger(n) && n >= 0 && n < 60)) {
      throw new UsageError('--burst-second must be 0..59 or auto');
    }
    args.burstSecond = burst === 'auto' ? 'auto' : n;
  }
  const list = <T extends string>(key: string, allowed: readonly T[]): T[] | undefined => {
    const text = values.get(key);
    if (text === undefined) return undefined;
    const items = text
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean);
    const bad = items.find((item) => !allowed.includes(item as T));
    if (bad !== undefined || items.length === 0)
      throw new UsageError(`--${key}: one or more of ${allowed.join(',')}`);
    return items as T[];
  };
  const chosen = list('workloads', [
    'w1',
    'w2',
    'w3',
    'w4',
    'w5',
    'w5t',
    'scale',
    'history',
  ] as const);
  if (chosen) {
    const isStandalone = (w: string): w is StandaloneName => w === 'scale' || w === 'history';
    args.standalone = chosen.filter(isStandalone);
    args.workloads = chosen.filter((w): w is WorkloadName => !isStandalone(w));
  }
  args.historyRows = int('history-rows', 1) ?? args.historyRows;
  args.systems = list('systems', ['hermesx', 'hermesx-budget', 'bullmq'] as const) ?? args.systems;
  args.databaseUrl = values.get('database-url');
  args.redisUrl = values.get('redis-url');
  args.out = values.get('out');
  const from = values.get('from');
  if (from !== undefined && from !== 'dist' && from !== 'src')
    throw new UsageError('--from must be dist or src');
  if (from !== undefined) args.from = from;
  args.cpuProf = values.get('cpu-prof');
  args.nodeFlags = splitNodeFlags(values.get('node-flags'));
  args.keep = values.get('keep') === 'yes';
  const known = new Set([
    'size',
    'jobs',
    'scale-jobs',
    'duration',
    'latency-ms',
    'replicas',
    'concurrency',
    'claim-ahead',
    'from',
    'progress',
    'burst-second',
    'workloads',
    'systems',
    'database-url',
    'redis-url',
    'out',
    'limit',
    'absorb-limit',
    'cpu-prof',
    'node-flags',
    'keep',
    'contention-jobs',
    'contention-tenants',
    'contention-latency-ms',
    'throttle-rate',
    'contention-bursts',
    'seed',
    'history-rows',
  ]);
  for (const key of values.keys())
    if (!known.has(key)) throw new UsageError(`unknown option --${key}`);
  return args;
}

export class UsageError extends Error {}
