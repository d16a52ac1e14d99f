// Starts real `hermesx saas-api` processes ("pods") from sources, for multi-replica and fault tests.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { RunRow as StoredRunRow } from '../../src/db/run-history.js';
import { findFreePort } from '../../src/dev/processes.js';
import { cliEnv, REPO_ROOT } from './process-cli.js';

export interface PodOptions {
  databaseUrl: string;
  /** Omit to start without Redis (the scheduler then stays disabled). */
  redisUrl?: string;
  llmUrl: string;
  podId?: string;
  /** Extra settings, e.g. SCHEDULER_EXEC_TIMEOUT; they override the defaults below. */
  env?: Record<string, string>;
  /** What "started" means: the scheduler runs (default with a REDIS_URL), or HTTP listens. */
  waitFor?: 'scheduler' | 'listening';
  startTimeoutMs?: number;
  /** The HTTP port (default: a free one), for settings that must name it (PUBLIC_URL). */
  port?: number;
}

export interface PodExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Pod {
  url: string;
  podId: string;
  pid: number;
  /** Every stdout and stderr line so far, in arrival order. */
  lines: string[];
  /** The first line (already seen or coming) that matches, or a rejection after timeoutMs. */
  waitForLine(regex: RegExp, timeoutMs: number, fromIndex?: number): Promise<string>;
  metrics(): Promise<string>;
  /** Sends the signal and resolves with the exit once the process is gone. */
  kill(signal: NodeJS.Signals): Promise<PodExit>;
  /** SIGTERM, then SIGKILL after graceMs; resolves with the exit. */
  stop(graceMs?: number): Promise<PodExit>;
  exited: Promise<PodExit>;
}

const pods = new Set<Pod>();

export async function startPod(options: PodOptions): Promise<Pod> {
  const podId = options.podId ?? `pod-${randomBytes(4).toString('hex')}`;
  const port = options.port ?? (await findFreePort());
  const settings: Record<string, string> = {
    DATABASE_URL: options.databaseUrl,
    LLM_API_URL: options.llmUrl,
    HERMES_POD_ID: podId,
    SAAS_API_PORT: String(port),
    SAAS_API_HOST: '127.0.0.1',
    SCHEDULER_POLL_INTERVAL: '2s',
    LOG_FORMAT: 'text',
    // Long run results: one directory per test process, shared by its pods (never the repo's).
    OBJECT_STORE_DIR: path.join(os.tmpdir(), `hermesx-test-objects-${process.pid}`),
    ...(options.redisUrl ? { REDIS_URL: options.redisUrl } : {}),
    ...options.env,
  };
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'saas-api'], {
    cwd: REPO_ROOT,
    env: cliEnv(settings),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const listeners = new Set<() => void>();
  const collect = (stream: NodeJS.ReadableStream | null) => {
    let partial = '';
    stream?.on('data', (chunk: Buffer) => {
      const parts = (partial + chunk.toString()).split('\n');
      partial = parts.pop() ?? '';
      lines.push(...parts.filter((line) => line !== ''));
      for (const wake of listeners) wake();
    });
  };
  collect(child.stdout);
  collect(child.stderr);
  const exited = new Promise<PodExit>((resolve) => {
    child.once('exit', (code, signal) => {
      for (const wake of listeners) wake();
      resolve({ code, signal });
    });
  });
  const isRunning = () => child.exitCode === null && child.signalCode === null;
  const url = `http://127.0.0.1:${port}`;

  const waitForLine = (regex: RegExp, timeoutMs: number, fromIndex = 0) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const found = lines.slice(fromIndex).find((line) => regex.test(line));
        if (found === undefined && isRunning()) return;
        clearTimeout(timer);
        listeners.delete(check);
        if (found !== undefined) resolve(found);
        else reject(new Error(`pod ${podId} exited before logging ${regex}:\n${tail(lines)}`));
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`pod ${podId}: no line ${regex} within ${timeoutMs} ms:\n${tail(lines)}`));
      }, timeoutMs);
      listeners.add(check);
      check();
    });

  const kill = async (signal: NodeJS.Signals) => {
    if (isRunning()) {
      try {
        process.kill(child.pid ?? 0, signal);
      } catch {
        // Already gone.
      }
    }
    return exited;
  };

  const pod: Pod = {
    url,
    podId,
    pid: child.pid ?? 0,
    lines,
    waitForLine,
    metrics: async () => {
      const response = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5000) });
      return response.text();
    },
    kill,
    stop: async (graceMs = 10_000) => {
      const timer = setTimeout(() => void kill('SIGKILL'), graceMs);
      const exit = await kill('SIGTERM');
      clearTimeout(timer);
      return exit;
    },
    exited,
  };
  pods.add(pod);
  void exited.then(() => pods.delete(pod));

  const timeoutMs = options.startTimeoutMs ?? 60_000;
  const waitFor = options.waitFor ?? (options.redisUrl ? 'scheduler' : 'listening');
  try {
    await waitForLine(
      waitFor === 'scheduler' ? /msg="scheduler started"/ : /http server listening/,
      timeoutMs,
    );
    await waitForLive(url, timeoutMs);
  } catch (err) {
    await kill('SIGKILL');
    throw err;
  }
  return pod;
}

/** Kills every pod started here that still runs (for afterAll/afterEach), by PID. */
export async function stopAllPods(graceMs = 10_000): Promise<void> {
  await Promise.all([...pods].map((pod) => pod.stop(graceMs)));
}

/** Polls /health/live until it answers 200. */
async function waitForLive(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(`${url}/health/live`, { signal: AbortSignal.timeout(2000) });
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`${url}/health/live did not answer in time`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function tail(lines: string[]): string {
  return lines.slice(-30).join('\n');
}

/** Lines of a pod's log that carry this message (`msg="..."`). */
export function linesWithMessage(pod: Pod, message: string): string[] {
  return pod.lines.filter((line) => line.includes(`msg="${message}"`));
}

/** One logfmt field of a line (`key=value` or `key="quoted value"`). */
export function logField(line: string, key: string): string | undefined {
  const match = new RegExp(`(?:^|\\s)${key}=("(?:[^"\\\\]|\\\\.)*"|\\S*)`).exec(line);
  const raw = match?.[1];
  if (raw === undefined) return undefined;
  return raw.startsWith('"') ? (JSON.parse(raw) as string) : raw;
}

/** Parses a Prometheus histogram's cumulative buckets from a /metrics text. */
export function histogramBuckets(
  metricsText: string,
  name: string,
): { le: number; count: number }[] {
  const buckets: { le: number; count: number }[] = [];
  const pattern = new RegExp(`^${name}_bucket\\{(?:.*,)?le="([^"]+)"(?:,.*)?\\} (\\S+)$`, 'gm');
  for (const match of metricsText.matchAll(pattern)) {
    const le = match[1] === '+Inf' ? Infinity : Number(match[1]);
    buckets.push({ le, count: Number(match[2]) });
  }
  return buckets.sort((a, b) => a.le - b.le);
}

/** A quantile from cumulative buckets (upper bound of the bucket it falls in, like Prometheus' coarse answer). */
export function bucketQuantile(buckets: { le: number; count: number }[], q: number): number {
  const total = buckets.at(-1)?.count ?? 0;
  if (total === 0) return NaN;
  const rank = q * total;
  let previous = { le: 0, count: 0 };
  for (const bucket of buckets) {
    if (bucket.count >= rank) {
      if (bucket.le === Infinity) return previous.le;
      // Linear interpolation inside the bucket, as histogram_quantile() does.
      const inBucket = bucket.count - previous.count;
      const fraction = inBucket === 0 ? 1 : (rank - previous.count) / inBucket;
      return previous.le + (bucket.le - previous.le) * fraction;
    }
    previous = bucket;
  }
  return previous.le;
}

/** Adds cumulative buckets of several pods (same bucket bounds). */
export function sumBuckets(
  all: { le: number; count: number }[][],
): { le: number; count: number }[] {
  const byLe = new Map<number, number>();
  for (const buckets of all) {
    for (const { le, count } of buckets) byLe.set(le, (byLe.get(le) ?? 0) + count);
  }
  return [...byLe.entries()].map(([le, count]) => ({ le, count })).sort((a, b) => a.le - b.le);
}

/** A counter's value from a /metrics text (0 when absent). */
export function metricValue(metricsText: string, name: string): number {
  const match = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(metricsText);
  return match?.[1] === undefined ? 0 : Number(match[1]);
}

/** What a scheduled run sent to the LLM: the job and occurrence named in its system message. */
export interface CronCall {
  jobId: string;
  scheduledAt: string;
  system: string;
  prompt: string;
}

/** Reads a cron runner request (system message + prompt); undefined for other requests. */
export function cronCallOf(body: unknown): CronCall | undefined {
  const messages = (body as { messages?: { role?: string; content?: unknown }[] } | undefined)
    ?.messages;
  const system = messages?.find((m) => m.role === 'system')?.content;
  const prompt = messages?.find((m) => m.role === 'user')?.content;
  if (typeof system !== 'string' || typeof prompt !== 'string') return undefined;
  const jobId = /\(id ([0-9a-f-]{36})\)/.exec(system)?.[1];
  const scheduledAt = /which is (\S+) UTC/.exec(system)?.[1];
  if (!jobId || !scheduledAt) return undefined;
  return { jobId, scheduledAt, system, prompt };
}

export const DEFAULT_TENANT = '00000000-0000-0000-0000-000000000001';

export interface JobFields {
  name: string;
  schedule: string;
  prompt: string;
  timezone?: string;
  /** Default: the table's own (random). */
  id?: string;
}

/** Inserts a job the way plain SQL would (only the required columns); returns id and created_at. */
export async function insertJob(
  db: Queryable,
  fields: JobFields,
): Promise<{ id: string; createdAt: Date }> {
  const columns: Record<string, string> = {
    tenant_id: DEFAULT_TENANT,
    name: fields.name,
    schedule: fields.schedule,
    prompt: fields.prompt,
    ...(fields.timezone ? { timezone: fields.timezone } : {}),
    ...(fields.id ? { id: fields.id } : {}),
  };
  const names = Object.keys(columns);
  const { rows } = await db.query<{ id: string; created_at: Date }>(
    `INSERT INTO cron_jobs (${names.join(', ')})
     VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING id, created_at`,
    Object.values(columns),
  );
  const row = rows[0];
  if (!row) throw new Error('insert returned no row');
  return { id: row.id, createdAt: row.created_at };
}

/** A run as `runsOf` reads it: the table's row without created_at. */
export type RunRow = Omit<StoredRunRow, 'created_at'>;

/** Runs of the given jobs, oldest occurrence first. */
export async function runsOf(db: Queryable, jobIds: readonly string[]): Promise<RunRow[]> {
  const { rows } = await db.query<RunRow>(
    `SELECT id, cron_job_id, scheduled_at, started_at, finished_at, status, result, error,
            error_kind, attempts, duration_ms, pod_id
       FROM cron_job_runs WHERE cron_job_id = ANY ($1::uuid[]) ORDER BY scheduled_at, cron_job_id`,
    [jobIds],
  );
  return rows;
}

/** The guide's duplicate check: occurrences recorded more than once. */
export async function duplicateRuns(db: Queryable): Promise<unknown[]> {
  const { rows } = await db.query(
    'SELECT cron_job_id, scheduled_at, COUNT(*) FROM cron_job_runs GROUP BY 1,2 HAVING COUNT(*) > 1',
  );
  return rows;
}

export interface Queryable {
  query<R extends object = Record<string, unknown>>(
    text: string,
    values?: unknown[],
  ): Promise<{ rows: R[] }>;
}
