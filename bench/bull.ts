// The peer under test: BullMQ Job Schedulers (queue.upsertJobScheduler with the same cron
// patterns) and three worker processes (bench/bullmq-worker.ts), each with the same concurrency
// as a HermesX replica, running the same agent runner against the same model server.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { occurrenceKey, type JobSpec, type RunRecord } from './analysis.js';
import { startWorker, type WorkerProcess } from './infra.js';
import { kill, procSample, stop } from './procs.js';
import type { NewJobSample, Progress, ScaleLimits, ScaleResult, System } from './system.js';
import { firstRunSample } from './watch.js';

export interface BullOptions {
  /** A Redis URL naming its own database (e.g. /1), apart from HermesX's keys. */
  redisUrl: string;
  prefix: string;
  llmUrl: string;
  replicas: number;
  concurrency: number;
  outDir: string;
  redisMemory: () => Promise<number>;
}

const QUEUE = 'bench';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Line {
  j: string;
  n: number;
  /** Start ms (start lines) or finish ms (finish lines). */
  s?: number;
  f?: number;
  w: string;
}

export class Bull implements System {
  readonly name = 'bullmq' as const;
  readonly kind = 'bullmq' as const;
  readonly label = 'BullMQ';
  private workers: (WorkerProcess | undefined)[] = [];
  private readonly ids: string[];
  private readonly connection: Redis;
  private readonly queue: Queue;
  private startedBase = new Map<string, number>();

  constructor(private readonly o: BullOptions) {
    this.ids = Array.from({ length: o.replicas }, (_, i) => `bull-worker-${i + 1}`);
    this.connection = new Redis(o.redisUrl, { maxRetriesPerRequest: null, lazyConnect: true });
    this.connection.on('error', () => {});
    this.queue = new Queue(QUEUE, { connection: this.connection, prefix: o.prefix });
    this.queue.on('error', () => {});
  }

  private file(id: string) {
    return path.join(this.o.outDir, `${id}.jsonl`);
  }

  private startOne(id: string) {
    return startWorker({
      redisUrl: this.o.redisUrl,
      queue: QUEUE,
      prefix: this.o.prefix,
      llmUrl: this.o.llmUrl,
      workerId: id,
      concurrency: this.o.concurrency,
      outFile: this.file(id),
    });
  }

  private live(): WorkerProcess[] {
    return this.workers.filter((w): w is WorkerProcess => w !== undefined && w.child.running());
  }

  async start(): Promise<void> {
    for (const id of this.ids) rmSync(this.file(id), { force: true });
    await this.queue.obliterate({ force: true }).catch(() => {});
    this.workers = await Promise.all(this.ids.map((id) => this.startOne(id)));
  }

  async stop(): Promise<void> {
    await this.unload().catch(() => {});
    await Promise.all(this.live().map((w) => stop(w.child, 10_000)));
    this.workers = [];
    await this.queue.close().catch(() => {});
    this.connection.disconnect();
  }

  replicas() {
    return this.live().map((w) => ({ id: w.workerId, pid: w.child.pid }));
  }

  private async upsert(jobs: JobSpec[]): Promise<void> {
    for (let i = 0; i < jobs.length; i += 2000) {
      await Promise.all(
        jobs.slice(i, i + 2000).map((job) =>
          this.queue.upsertJobScheduler(
            job.id,
            { pattern: job.schedule },
            {
              name: 'bench',
              data: { jobId: job.id, tenantId: job.tenantId, prompt: job.prompt },
              opts: { removeOnComplete: true, removeOnFail: 1000 },
            },
          ),
        ),
      );
    }
  }

  async load(jobs: JobSpec[]): Promise<number> {
    await this.upsert(jobs);
    return Date.now();
  }

  async unload(): Promise<void> {
    // Everything of this queue: schedulers, delayed, waiting and finished jobs.
    await this.queue.obliterate({ force: true });
    await this.queue.resume();
  }

  async progress(sinceMs: number): Promise<Progress> {
    const inFlight: Record<string, number> = {};
    for (const w of this.live()) inFlight[w.workerId] = w.status().inFlight;
    const runs = this.read().filter((line) => line.s !== undefined && line.n >= sinceMs).length;
    return { runs, inFlight };
  }

  private read(): Line[] {
    const lines: Line[] = [];
    for (const id of this.ids) {
      if (!existsSync(this.file(id))) continue;
      for (const text of readFileSync(this.file(id), 'utf8').split('\n')) {
        if (text === '') continue;
        try {
          lines.push(JSON.parse(text) as Line);
        } catch {
          // A line cut short by SIGKILL.
        }
      }
    }
    return lines;
  }

  async runs(fromMs: number, toMs: number): Promise<RunRecord[]> {
    const lines = this.read().filter((line) => line.n >= fromMs && line.n < toMs);
    const finished = new Map<string, number>();
    for (const line of lines) {
      if (line.f !== undefined) finished.set(`${occurrenceKey(line.j, line.n)}|${line.w}`, line.f);
    }
    return lines
      .filter((line): line is Line & { s: number } => line.s !== undefined)
      .map((line) => {
        const f = finished.get(`${occurrenceKey(line.j, line.n)}|${line.w}`);
        return {
          jobId: line.j,
          nominalMs: line.n,
          lagMs: line.s - line.n,
          replica: line.w,
          ...(f === undefined ? {} : { heldMs: f - line.s }),
        };
      });
  }

  async inFlightOf(_replicaId: string): Promise<string[]> {
    // Called right after the kill. A live worker's job stays active for about the model latency;
    // jobs still active a moment later, started before the kill, belong to the dead worker.
    const killedAtMs = Date.now();
    await sleep(1500);
    const active = await this.queue.getActive(0, 10_000);
    return active
      .filter((job) => (job.processedOn ?? Infinity) < killedAtMs)
      .map((job) =>
        occurrenceKey((job.data as { jobId: string }).jobId, Number(job.opts.prevMillis)),
      );
  }

  /** A dead worker's jobs are settled once another worker has started them again (stalled). */
  async resolved(keys: string[], deadReplica: string): Promise<number> {
    const rerun = new Set(
      this.read()
        .filter((line) => line.s !== undefined && line.w !== deadReplica)
        .map((line) => occurrenceKey(line.j, line.n)),
    );
    return keys.filter((key) => rerun.has(key)).length;
  }

  async killOne(): Promise<string> {
    const worker = this.workers[this.workers.length - 1];
    if (!worker) throw new Error('no worker to kill');
    await kill(worker.child);
    return worker.workerId;
  }

  async respawn(): Promise<void> {
    await Promise.all(
      this.ids.map(async (id, i) => {
        const worker = this.workers[i];
        if (!worker || !worker.child.running()) this.workers[i] = await this.startOne(id);
      }),
    );
  }

  async eventLoopMaxMs(): Promise<Record<string, number>> {
    return {};
  }

  async scale(jobs: JobSpec[], newJob: () => JobSpec, _limits: ScaleLimits): Promise<ScaleResult> {
    const t0 = Date.now();
    await this.upsert(jobs);
    const createSeconds = (Date.now() - t0) / 1000;
    const newJobs: NewJobSample[] = [];
    for (let i = 0; i < 3; i++) newJobs.push(await this.newJobSample(newJob()));
    const rssBytes: Record<string, number> = {};
    for (const r of this.replicas()) rssBytes[r.id] = procSample(r.pid).rssBytes;
    return {
      jobs: jobs.length,
      createSeconds,
      absorbSeconds: null,
      syncSeconds: {},
      startSeconds: {},
      rssBytes,
      redisMemoryBytes: await this.o.redisMemory(),
      newJobs,
      notes: [],
    };
  }

  private async newJobSample(job: JobSpec): Promise<NewJobSample> {
    await sleep(Math.random() * 1000);
    const createdMs = Date.now();
    await this.upsert([job]);
    const sample = await firstRunSample(this, job.id, createdMs);
    await this.queue.removeJobScheduler(job.id);
    return sample;
  }
}
