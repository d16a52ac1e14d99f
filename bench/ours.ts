// HermesX under test: three `saas-api` replicas; jobs inserted with bulk SQL as the superuser
// (valid jobs, picked up through LISTEN/NOTIFY); runs read from cron_job_runs.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { occurrenceKey, type JobSpec, type RunRecord } from './analysis.js';
import type { BenchBudgets } from './budgets.js';
import { fetchText, metric, startPod, type PodProcess } from './infra.js';
import { kill, procSample, stop } from './procs.js';
import type { NewJobSample, Progress, ScaleLimits, ScaleResult, System } from './system.js';
import { firstRunSample } from './watch.js';

export interface HermesOptions {
  databaseUrl: string;
  redisUrl: string;
  llmUrl: string;
  replicas: number;
  maxConcurrentRuns: number;
  /** SCHEDULER_CLAIM_AHEAD (absent: the product's default). */
  claimAhead?: number;
  /** Replicas run the built service (dist/) rather than src/ through tsx. */
  fromDist: boolean;
  db: pg.Client;
  redisMemory: () => Promise<number>;
  cpuProfileDir?: string;
  nodeFlags?: string[];
  /** Budgets on every call (the `hermesx-budget` system); absent: none. */
  budgets?: BenchBudgets | undefined;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const errorText = (err: unknown) =>
  (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';

/** Retries a statement that PostgreSQL chose as a deadlock victim (40P01). */
async function retryDeadlock<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if ((err as { code?: string }).code !== '40P01' || attempt >= 5) throw err;
      await sleep(200 * attempt);
    }
  }
}

export class Hermes implements System {
  readonly name: 'hermesx' | 'hermesx-budget';
  readonly kind = 'hermesx' as const;
  readonly label: string;
  private pods: (PodProcess | undefined)[] = [];
  private readonly ids: string[];

  constructor(private readonly o: HermesOptions) {
    this.ids = Array.from({ length: o.replicas }, (_, i) => `bench-pod-${i + 1}`);
    this.name = o.budgets ? 'hermesx-budget' : 'hermesx';
    this.label = o.budgets ? 'HermesX (budgets on)' : 'HermesX';
  }

  private podSettings(podId: string) {
    const { databaseUrl, redisUrl, llmUrl, maxConcurrentRuns, cpuProfileDir, nodeFlags } = this.o;
    return {
      databaseUrl,
      redisUrl,
      llmUrl,
      podId,
      maxConcurrentRuns,
      fromDist: this.o.fromDist,
      ...(this.o.claimAhead === undefined ? {} : { claimAhead: this.o.claimAhead }),
      ...(cpuProfileDir ? { cpuProfileDir } : {}),
      ...(nodeFlags ? { nodeFlags } : {}),
      ...(this.o.budgets ? { modelPricesFile: this.o.budgets.pricesFile } : {}),
    };
  }

  private live(): PodProcess[] {
    return this.pods.filter((p): p is PodProcess => p !== undefined && p.child.running());
  }

  async start(): Promise<void> {
    // The bench tenants are shared by the systems: their budgets are set for this one only.
    await this.setTenantBudgets(this.o.budgets?.tenantMonthlyMicros ?? null);
    this.pods = await Promise.all(this.ids.map((id) => startPod(this.podSettings(id))));
  }

  private async setTenantBudgets(monthlyMicros: number | null): Promise<void> {
    if (!this.o.budgets) return;
    await this.o.db.query(
      `UPDATE tenants SET monthly_budget_micros = $1 WHERE name LIKE 'bench tenant %'`,
      [monthlyMicros],
    );
  }

  /** With budgets: how many model calls the ledger priced (each one reserved and settled). */
  async pricedCalls(): Promise<{ priced: number; unpriced: number; refused: number }> {
    const { rows } = await this.o.db.query<{ priced: number; unpriced: number; refused: number }>(
      `SELECT (SELECT count(*) FROM model_usage WHERE cost_micros IS NOT NULL)::int AS priced,
              (SELECT count(*) FROM model_usage WHERE cost_micros IS NULL)::int AS unpriced,
              (SELECT count(*) FROM cron_job_runs WHERE error_kind = 'budget_exhausted')::int
                AS refused`,
    );
    return rows[0] ?? { priced: 0, unpriced: 0, refused: 0 };
  }

  async stop(): Promise<void> {
    const dir = this.o.cpuProfileDir;
    await Promise.all(
      this.live().map(async (pod) => {
        // Writing a CPU profile at exit takes a while: give it time, and note when the process
        // ended so profile-summary.ts can map profile time to wall-clock windows.
        await stop(pod.child, dir ? 120_000 : 25_000);
        if (dir) {
          const file = path.join(dir, pod.podId, `exit-${pod.child.pid}.json`);
          mkdirSync(path.dirname(file), { recursive: true });
          writeFileSync(file, JSON.stringify({ pid: pod.child.pid, exitMs: Date.now() }));
        }
      }),
    );
    this.pods = [];
    await this.setTenantBudgets(null);
  }

  replicas() {
    return this.live().map((pod) => ({ id: pod.podId, pid: pod.child.pid }));
  }

  /** Each live replica's /metrics text, by pod id. */
  async metrics(): Promise<Map<string, string>> {
    const texts = await Promise.all(
      this.live().map((pod) => fetchText(`${pod.url}/metrics`, 10_000)),
    );
    const out = new Map<string, string>();
    this.live().forEach((pod, i) => out.set(pod.podId, texts[i] ?? ''));
    return out;
  }

  async slotHeldBuckets(): Promise<Map<number, number>> {
    const sums = new Map<number, number>();
    const line = /^hermesx_scheduler_model_slot_seconds_bucket\{le="([^"]+)"\} (\S+)$/gm;
    for (const text of (await this.metrics()).values()) {
      for (const [, le, count] of text.matchAll(line)) {
        const bound = le === '+Inf' ? Infinity : Number(le);
        sums.set(bound, (sums.get(bound) ?? 0) + Number(count));
      }
    }
    return sums;
  }

  /** A replica that exited, with the reason it printed last (e.g. heap out of memory). */
  private crashed(): string | undefined {
    const dead = this.pods.find((p) => p !== undefined && !p.child.running());
    if (!dead) return undefined;
    const { exitCode, signalCode } = dead.child.proc;
    const reason = dead.child.lines.find((l) => /FATAL ERROR|heap out of memory/i.test(l));
    return `${dead.podId} exited (${signalCode ?? `code ${exitCode}`})${reason ? `: ${reason}` : ''}`;
  }

  /**
   * Waits (bounded) until every live replica holds exactly `count` jobs; with watchCrashes, throws
   * as soon as a replica exits (W3), rather than counting only the survivors.
   */
  /**
   * With due-window scheduling a replica holds only the jobs due within its look-ahead, so
   * "loaded" means: every replica has read the due window at least once and the database has
   * planned every bench job (next_run_at set). `count` 0 waits for replicas holding none.
   */
  private async waitLoaded(count: number, timeoutMs: number, watchCrashes = false): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let held = '';
    while (Date.now() < deadline) {
      const crash = watchCrashes ? this.crashed() : undefined;
      if (crash) throw new Error(crash);
      const texts = [...(await this.metrics()).values()];
      if (count === 0) {
        held = texts.map((t) => metric(t, 'hermesx_scheduler_jobs_loaded')).join(' / ');
        if (texts.every((t) => t !== '' && metric(t, 'hermesx_scheduler_jobs_loaded') === 0))
          return;
      } else {
        const reading = texts.every(
          (t) => t !== '' && metric(t, 'hermesx_scheduler_sync_duration_seconds_count') > 0,
        );
        const { rows } = await this.o.db.query<{ planned: number }>(
          `SELECT count(*)::int AS planned FROM cron_jobs
            WHERE name LIKE 'bench %' AND next_run_at IS NOT NULL`,
        );
        const planned = rows[0]?.planned ?? 0;
        held = `${planned} of ${count} planned, replicas reading the window: ${reading}`;
        if (reading && planned >= count) return;
      }
      await sleep(100);
    }
    throw new Error(`replicas did not take ${count} jobs within ${timeoutMs / 1000} s (${held})`);
  }

  private async insert(jobs: JobSpec[]): Promise<void> {
    // Tenants retired by an unload that did not finish must be live again.
    await this.o.db.query(
      `UPDATE tenants SET deleted_at = NULL WHERE name LIKE 'bench tenant %' AND deleted_at IS NOT NULL`,
    );
    for (let i = 0; i < jobs.length; i += 50_000) {
      const chunk = jobs.slice(i, i + 50_000);
      await this.o.db.query(
        `INSERT INTO cron_jobs (id, tenant_id, name, schedule, prompt, daily_budget_micros,
                               max_run_tokens)
         SELECT id, tenant_id, 'bench ' || schedule, schedule, prompt, $5, $6
           FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[]) AS j(id, tenant_id, schedule, prompt)`,
        [
          chunk.map((j) => j.id),
          chunk.map((j) => j.tenantId),
          chunk.map((j) => j.schedule),
          chunk.map((j) => j.prompt),
          this.o.budgets?.jobDailyMicros ?? null,
          this.o.budgets?.jobRunTokens ?? null,
        ],
      );
    }
  }

  async load(jobs: JobSpec[]): Promise<number> {
    await this.insert(jobs);
    await this.waitLoaded(jobs.length, 120_000);
    return Date.now();
  }

  async unload(): Promise<void> {
    // Retire the bench tenants first (the tenants trigger notifies every job of theirs, and the
    // replicas drop jobs of deleted tenants): that touches no row the replicas' batched records
    // lock, whereas a bulk UPDATE or DELETE of the jobs deadlocks with them.
    await retryDeadlock(() =>
      this.o.db.query(`UPDATE tenants SET deleted_at = now() WHERE name LIKE 'bench tenant %'`),
    );
    await this.waitLoaded(0, 120_000);
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const texts = [...(await this.metrics()).values()];
      if (texts.every((t) => metric(t, 'hermesx_scheduler_runs_in_flight') === 0)) break;
      await sleep(200);
    }
    await retryDeadlock(() => this.o.db.query(`DELETE FROM cron_jobs WHERE name LIKE 'bench %'`));
    await this.o.db.query(`UPDATE tenants SET deleted_at = NULL WHERE name LIKE 'bench tenant %'`);
  }

  async progress(sinceMs: number): Promise<Progress> {
    const { rows } = await this.o.db.query<{ n: string }>(
      'SELECT count(*)::text AS n FROM cron_job_runs WHERE scheduled_at >= to_timestamp($1 / 1000.0)',
      [sinceMs],
    );
    const inFlight: Record<string, number> = {};
    for (const [id, text] of await this.metrics()) {
      inFlight[id] = metric(text, 'hermesx_scheduler_runs_in_flight');
    }
    const activity = await this.o.db.query<{ k: string; n: number }>(
      `SELECT coalesce(wait_event, state, '?') AS k, count(*)::int AS n FROM pg_stat_activity
        WHERE application_name = 'hermesx' AND state <> 'idle' GROUP BY 1 ORDER BY 2 DESC`,
    );
    const note = `db busy: ${activity.rows.map((r) => `${r.k}=${r.n}`).join(' ') || 'none'}`;
    return { runs: Number(rows[0]?.n ?? 0), inFlight, note };
  }

  async runs(fromMs: number, toMs: number): Promise<RunRecord[]> {
    const { rows } = await this.o.db.query<{
      job: string;
      nominal: number;
      lag: number;
      pod: string;
      status: string;
      kind: string | null;
      held: number | null;
    }>(
      `SELECT cron_job_id::text AS job, extract(epoch FROM scheduled_at)::float8 * 1000 AS nominal,
              extract(epoch FROM started_at - scheduled_at)::float8 * 1000 AS lag,
              extract(epoch FROM finished_at - started_at)::float8 * 1000 AS held,
              pod_id AS pod, status, error_kind AS kind
         FROM cron_job_runs
        WHERE scheduled_at >= to_timestamp($1 / 1000.0) AND scheduled_at < to_timestamp($2 / 1000.0)`,
      [fromMs, toMs],
    );
    return rows.map((r) => ({
      jobId: r.job,
      nominalMs: Math.round(r.nominal),
      lagMs: r.lag,
      replica: r.pod,
      failed: r.status === 'failed',
      ...(r.status === 'failed' ? { errorKind: r.kind ?? 'none' } : {}),
      ...(r.held === null ? {} : { heldMs: r.held }),
    }));
  }

  async inFlightOf(replicaId: string): Promise<string[]> {
    const { rows } = await this.o.db.query<{ job: string; nominal: number }>(
      `SELECT cron_job_id::text AS job, extract(epoch FROM scheduled_at)::float8 * 1000 AS nominal
         FROM cron_job_runs WHERE status IN ('claimed', 'running') AND pod_id = $1`,
      [replicaId],
    );
    return rows.map((r) => occurrenceKey(r.job, Math.round(r.nominal)));
  }

  /** A dead pod's runs are settled once recovery has marked them failed. */
  async resolved(keys: string[], deadReplica: string): Promise<number> {
    const running = new Set(await this.inFlightOf(deadReplica));
    return keys.filter((key) => !running.has(key)).length;
  }

  async killOne(): Promise<string> {
    const index = this.pods.length - 1;
    const pod = this.pods[index];
    if (!pod) throw new Error('no pod to kill');
    await kill(pod.child);
    return pod.podId;
  }

  async respawn(): Promise<void> {
    await Promise.all(
      this.ids.map(async (id, i) => {
        const pod = this.pods[i];
        if (!pod || !pod.child.running()) this.pods[i] = await startPod(this.podSettings(id));
      }),
    );
  }

  async eventLoopMaxMs(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const [id, text] of await this.metrics()) {
      out[id] = metric(text, 'nodejs_eventloop_lag_max_seconds') * 1000;
    }
    return out;
  }

  async scale(jobs: JobSpec[], newJob: () => JobSpec, limits: ScaleLimits): Promise<ScaleResult> {
    await this.respawn();
    const notes: string[] = [];
    const rssBytes: Record<string, number> = {};
    const sampleRss = () => {
      for (const r of this.replicas()) rssBytes[r.id] = procSample(r.pid).rssBytes;
    };
    const t0 = Date.now();
    await this.insert(jobs);
    const createSeconds = (Date.now() - t0) / 1000;
    let absorbSeconds: number | null = null;
    try {
      await this.waitLoaded(jobs.length, limits.absorbMs, true);
      absorbSeconds = (Date.now() - t0) / 1000;
    } catch (err) {
      notes.push(`through notifications: ${errorText(err)}`);
    }
    sampleRss();
    // A cold start with every job in the database: the first full sync of each replica. (Replicas
    // that could not keep up are stopped with a short grace: they are busy, not draining runs.)
    await Promise.all(this.live().map((pod) => stop(pod.child, 5000)));
    const startSeconds: Record<string, number> = {};
    const syncSeconds: Record<string, number> = {};
    const newJobs: NewJobSample[] = [];
    try {
      const startOne = async (id: string) => {
        const spawned = Date.now();
        const pod = await startPod(this.podSettings(id), limits.startMs);
        startSeconds[id] = (Date.now() - spawned) / 1000;
        return pod;
      };
      // The first replica alone (its figures are the cleanest), then the others together, as a
      // rolling restart would: three full syncs at once on two cores would measure the CPU share.
      const [firstId, ...restIds] = this.ids as [string, ...string[]];
      const started = [
        ...(await Promise.allSettled([startOne(firstId)])),
        ...(await Promise.allSettled(restIds.map(startOne))),
      ];
      this.pods = started.map((s) => (s.status === 'fulfilled' ? s.value : undefined));
      const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (failed) throw failed.reason;
      await this.waitLoaded(jobs.length, limits.startMs, true);
      for (const [id, text] of await this.metrics()) {
        const count = metric(text, 'hermesx_scheduler_sync_duration_seconds_count');
        syncSeconds[id] =
          metric(text, 'hermesx_scheduler_sync_duration_seconds_sum') / Math.max(1, count);
      }
      sampleRss();
      for (let i = 0; i < 3; i++) newJobs.push(await this.newJobSample(newJob()));
    } catch (err) {
      notes.push(`cold start: ${errorText(err)}`);
    }
    return {
      jobs: jobs.length,
      createSeconds,
      absorbSeconds,
      syncSeconds,
      startSeconds,
      rssBytes,
      redisMemoryBytes: await this.o.redisMemory(),
      newJobs,
      notes,
    };
  }

  /** Creates one every-second job and waits for its first run. */
  private async newJobSample(job: JobSpec): Promise<NewJobSample> {
    // A random point inside a second, so the sample does not always land just after a tick.
    await sleep(Math.random() * 1000);
    const { rows } = await this.o.db.query<{ created: number }>(
      `INSERT INTO cron_jobs (id, tenant_id, name, schedule, prompt) VALUES ($1, $2, 'bench new', $3, $4)
       RETURNING extract(epoch FROM created_at)::float8 * 1000 AS created`,
      [job.id, job.tenantId, job.schedule, job.prompt],
    );
    const sample = await firstRunSample(this, job.id, rows[0]?.created ?? Date.now());
    await this.o.db.query(`UPDATE cron_jobs SET enabled = false WHERE id = $1`, [job.id]);
    return sample;
  }
}
