// In-memory stand-ins for what the scheduler core talks to (PostgreSQL, Redis, the agent) and a
// fake clock, so the scheduler's behaviour can be tested deterministically without real time.
import { randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import type { Logger } from '../../src/log.js';
import { createSchedulerMetrics, type SchedulerMetrics } from '../../src/scheduler/metrics.js';
import type {
  ActiveRun,
  AdoptedRun,
  RunOrigin,
  RunOutcome,
  RunHistoryUpkeep,
} from '../../src/domain/run.js';
import type {
  AgentRunner,
  ClaimAnswer,
  JobStore,
  LockAttempt,
  LockHolder,
  LockStore,
  RunContext,
  RunReply,
  PlanDecider,
  RecordAnswer,
  RunRequest,
} from '../../src/scheduler/ports.js';
import type { Clock } from '../../src/services/clock.js';
import type { ErrorKind } from '../../src/domain/vocabulary.js';
import type { DueKey, StoredJob } from '../../src/domain/job.js';
import { livenessKey, lockKey, parseHolder } from '../../src/redis/lock.js';
import { lockValueOf } from '../../src/domain/vocabulary.js';
import { SchedulerEvents, type SchedulerEventMap } from '../../src/scheduler/events.js';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import type { SchedulerSettings } from '../../src/scheduler/settings.js';
import { silentLogger } from './log.js';

/**
 * Lets every pending promise chain run: a macrotask turn starts only once the microtask queue is
 * empty, and the scheduler core waits on nothing but promises and the Clock.
 */
export async function flushAsync(rounds = 1): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

// ---------------------------------------------------------------------------------------------
// Clock

interface FakeTimer {
  id: number;
  dueMs: number;
  fn: () => void;
}

export interface FakeClockOptions {
  /**
   * Timers due at the same instant normally run in the order they were set. With a seed they run
   * in a (reproducible) random order, as separate processes would.
   */
  tieSeed?: number;
  /**
   * Timers longer than this fire this much early, as Node's may when compared with Date.now()
   * (timers count from the event loop's cached time, which lags the wall clock).
   */
  earlyMs?: number;
}

/** A Clock whose time only moves when the test says so; due timers run in time order. */
export class FakeClock implements Clock {
  private nowMs: number;
  private readonly timers = new Map<number, FakeTimer>();
  private nextId = 1;
  private readonly random: (() => number) | null;
  private readonly earlyMs: number;

  constructor(startMs: number, options: FakeClockOptions = {}) {
    this.nowMs = startMs;
    this.random = options.tieSeed === undefined ? null : mulberry32(options.tieSeed);
    this.earlyMs = options.earlyMs ?? 0;
  }

  now(): number {
    return this.nowMs;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    const delay = Number.isFinite(ms) ? Math.max(0, ms) : 0;
    const early = delay > this.earlyMs ? this.earlyMs : 0;
    this.timers.set(id, { id, dueMs: this.nowMs + delay - early, fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    if (typeof handle === 'number') this.timers.delete(handle);
  }

  /** Timers set and not yet run or cleared. */
  get pendingTimers(): number {
    return this.timers.size;
  }

  /** Due time of the earliest timer, if any. */
  nextTimerMs(): number | undefined {
    let earliest: number | undefined;
    for (const timer of this.timers.values()) {
      if (earliest === undefined || timer.dueMs < earliest) earliest = timer.dueMs;
    }
    return earliest;
  }

  async advance(ms: number): Promise<void> {
    await this.advanceTo(this.nowMs + ms);
  }

  /** Moves time forward to targetMs, running every timer due on the way, async work in between. */
  async advanceTo(targetMs: number): Promise<void> {
    await flushAsync();
    for (let fired = 0; ; fired++) {
      if (fired > 1_000_000) throw new Error('FakeClock: runaway timers');
      const timer = this.nextDue(targetMs);
      if (!timer) break;
      this.timers.delete(timer.id);
      this.nowMs = Math.max(this.nowMs, timer.dueMs);
      timer.fn();
      await flushAsync();
    }
    this.nowMs = Math.max(this.nowMs, targetMs);
    await flushAsync();
  }

  /**
   * Advances timer by timer until the condition holds; fails once `withinMs` of fake time passed
   * without it (a deadline, not a sleep). Returns the fake time at which it held.
   */
  async until(condition: () => boolean, withinMs: number, what = 'condition'): Promise<number> {
    const deadline = this.nowMs + withinMs;
    await flushAsync();
    for (;;) {
      if (condition()) return this.nowMs;
      const next = this.nextTimerMs();
      if (next === undefined || next > deadline) {
        await this.advanceTo(deadline);
        if (condition()) return this.nowMs;
        throw new Error(`FakeClock: ${what} did not hold within ${withinMs} ms`);
      }
      await this.advanceTo(next);
    }
  }

  private nextDue(limitMs: number): FakeTimer | undefined {
    let earliest: FakeTimer[] = [];
    for (const timer of this.timers.values()) {
      if (timer.dueMs > limitMs) continue;
      const first = earliest[0];
      if (!first || timer.dueMs < first.dueMs) earliest = [timer];
      else if (timer.dueMs === first.dueMs) earliest.push(timer);
    }
    if (earliest.length <= 1 || !this.random) return earliest[0];
    return earliest[Math.floor(this.random() * earliest.length)];
  }
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---------------------------------------------------------------------------------------------
// JobStore (what migrations/functions/ do in PostgreSQL; test/contract/ checks both alike)

export interface FakeJob {
  id: string;
  tenantId: string;
  name: string;
  schedule: string;
  timezone: string;
  prompt: string;
  enabled: boolean;
  dueFrom: Date;
  createdAt: Date;
  updatedAt: Date;
  nextRunAt: Date | null;
  lastRunAt: Date | null;
  lastRunSuccess: boolean | null;
  lastRunError: string | null;
  lastRunErrorKind: ErrorKind | null;
  runCount: number;
}

export interface FakeRun {
  id: string;
  jobId: string;
  tenantId: string;
  scheduledAt: Date;
  status: 'claimed' | 'running' | 'success' | 'failed';
  podId: string;
  startedAt: Date;
  finishedAt: Date | null;
  result: string | null;
  error: string | null;
  errorKind: ErrorKind | null;
  attempts: number;
  durationMs: number | null;
}

const inFlight = (run: FakeRun) => run.status === 'claimed' || run.status === 'running';

/** next_run_at 'infinity': a job the planning sweep parked (no occurrence, invalid schedule). */
export const PARKED = new Date(8.64e15);

export type JobStoreMethod = keyof JobStore;

export const DEFAULT_TENANT = '00000000-0000-0000-0000-000000000001';

export class FakeJobStore implements JobStore {
  readonly jobs = new Map<string, FakeJob>();
  readonly runs = new Map<string, FakeRun>();
  /** tenants.max_concurrent_runs by tenant (absent, null or 0: unlimited). */
  readonly tenantCaps = new Map<string, number | null>();
  /** Database down: every call rejects. */
  down = false;
  /** Only these calls reject (a partial failure). */
  readonly failing = new Set<JobStoreMethod>();
  /** Fake-clock latency of every call (a slow database). */
  latencyMs = 0;
  /** Extra fake-clock latency of some calls only. */
  readonly methodLatencyMs: Partial<Record<JobStoreMethod, number>> = {};
  readonly calls: Record<JobStoreMethod, number> = {
    loadJobs: 0,
    dueJobs: 0,
    planJobs: 0,
    advanceJob: 0,
    claimRun: 0,
    markSent: 0,
    finishRun: 0,
    failRuns: 0,
    activeRuns: 0,
    adoptRuns: 0,
    cleanupStaleRuns: 0,
    maintainRunHistory: 0,
    noteProgress: 0,
    claimWaiting: 0,
    cancelOlderRuns: 0,
    startWaiting: 0,
    takeQueuedRuns: 0,
    requeueRuns: 0,
  };

  constructor(private readonly clock: Clock) {}

  // --- test-side writes (what the API or plain SQL would do) ---

  addJob(fields: {
    schedule: string;
    prompt?: string;
    name?: string;
    timezone?: string;
    tenantId?: string;
    enabled?: boolean;
    id?: string;
    /** As the API writes it; absent (NULL), the planning sweep plans it, as for plain SQL. */
    nextRunAt?: Date | null;
  }): FakeJob {
    const now = new Date(this.clock.now());
    const job: FakeJob = {
      id: fields.id ?? randomUUID(),
      tenantId: fields.tenantId ?? DEFAULT_TENANT,
      name: fields.name ?? 'job',
      schedule: fields.schedule,
      timezone: fields.timezone ?? 'UTC',
      prompt: fields.prompt ?? 'say hello',
      enabled: fields.enabled ?? true,
      dueFrom: now,
      createdAt: now,
      updatedAt: now,
      nextRunAt: fields.nextRunAt ?? null,
      lastRunAt: null,
      lastRunSuccess: null,
      lastRunError: null,
      lastRunErrorKind: null,
      runCount: 0,
    };
    this.jobs.set(job.id, job);
    return job;
  }

  /**
   * An UPDATE through the cron_jobs_track_definition trigger: keeps updatedAt and dueFrom true,
   * and a schedule, zone or re-enabling change that does not write next_run_at clears it.
   */
  updateJob(
    id: string,
    patch: Partial<Pick<FakeJob, 'name' | 'schedule' | 'timezone' | 'prompt' | 'enabled'>>,
  ): FakeJob {
    const old = this.jobs.get(id);
    if (!old) throw new Error(`no job ${id}`);
    const next: FakeJob = { ...old, ...patch };
    const nowMs = this.clock.now();
    if (
      next.schedule !== old.schedule ||
      next.timezone !== old.timezone ||
      (next.enabled && !old.enabled)
    ) {
      next.dueFrom = new Date(nowMs);
      next.nextRunAt = null;
    }
    const fields = ['name', 'schedule', 'timezone', 'prompt', 'enabled'] as const;
    if (fields.some((f) => next[f] !== old[f])) {
      // now() differs between transactions in PostgreSQL; keep it strictly increasing here too.
      next.updatedAt = new Date(Math.max(nowMs, old.updatedAt.getTime() + 1));
    }
    this.jobs.set(id, next);
    return next;
  }

  deleteJob(id: string): void {
    this.jobs.delete(id);
    for (const run of [...this.runs.values()]) if (run.jobId === id) this.runs.delete(run.id);
  }

  job(id: string): FakeJob {
    const job = this.jobs.get(id);
    if (!job) throw new Error(`no job ${id}`);
    return job;
  }

  /** Runs of a job, by scheduled time. */
  runsOf(jobId: string): FakeRun[] {
    return [...this.runs.values()]
      .filter((run) => run.jobId === jobId)
      .sort((a, b) => a.scheduledAt.getTime() - b.scheduledAt.getTime());
  }

  // --- JobStore ---

  async loadJobs(ids: readonly string[]): Promise<StoredJob[]> {
    await this.enter('loadJobs');
    const wanted = new Set(ids);
    return [...this.jobs.values()]
      .filter((job) => job.enabled && wanted.has(job.id))
      .map((job) => this.stored(job));
  }

  async dueJobs(untilMs: number, after: DueKey | null, limit: number): Promise<StoredJob[]> {
    await this.enter('dueJobs');
    const key = (job: FakeJob) => [job.nextRunAt?.getTime() ?? Infinity, job.id] as const;
    const beyond = (job: FakeJob) => {
      if (!after) return true;
      const [atMs, id] = key(job);
      return atMs > after.atMs || (atMs === after.atMs && id > after.id);
    };
    return [...this.jobs.values()]
      .filter((job) => job.enabled && job.nextRunAt !== null)
      .filter((job) => (job.nextRunAt as Date).getTime() <= untilMs && beyond(job))
      .sort((a, b) => {
        const [am, ai] = key(a);
        const [bm, bi] = key(b);
        return am - bm || (ai < bi ? -1 : ai > bi ? 1 : 0);
      })
      .slice(0, limit)
      .map((job) => this.stored(job));
  }

  async planJobs(ids: readonly string[] | null, limit: number, since: Date, decide: PlanDecider) {
    await this.enter('planJobs');
    const wanted = ids ? new Set(ids) : null;
    const jobs = [...this.jobs.values()]
      .filter((job) => job.enabled && job.nextRunAt === null && (!wanted || wanted.has(job.id)))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, limit);
    const nexts = decide(
      jobs.map((job) => ({
        ...this.stored(job),
        lastScheduledAt: this.lastScheduledAt(job.id, since),
      })),
    );
    jobs.forEach((job, i) => {
      job.nextRunAt = nexts[i] ?? PARKED;
    });
    return jobs.length;
  }

  async advanceJob(jobId: string, pastAt: Date, nextRunAt: Date | null): Promise<void> {
    await this.enter('advanceJob');
    const job = this.jobs.get(jobId);
    const next = nextRunAt ?? PARKED;
    if (!job?.nextRunAt || job.nextRunAt > pastAt || next <= job.nextRunAt) return;
    job.nextRunAt = new Date(next);
  }

  private stored(job: FakeJob): StoredJob {
    return {
      id: job.id,
      tenantId: job.tenantId,
      schedule: job.schedule,
      timezone: job.timezone,
      dueFrom: new Date(job.dueFrom),
      updatedAt: new Date(job.updatedAt),
      nextRunAt: job.nextRunAt === null ? null : new Date(job.nextRunAt),
    };
  }

  private lastScheduledAt(jobId: string, since: Date): Date | null {
    let last: number | null = null;
    for (const run of this.runs.values()) {
      if (run.jobId !== jobId || run.scheduledAt < since) continue;
      if (last === null || run.scheduledAt.getTime() > last) {
        last = run.scheduledAt.getTime();
      }
    }
    return last === null ? null : new Date(last);
  }

  async claimRun(
    jobId: string,
    scheduledAt: Date,
    podId: string,
    nextRunAt: Date | null = null,
    sendAs?: RunOrigin,
  ): Promise<ClaimAnswer> {
    await this.enter('claimRun');
    const job = this.jobs.get(jobId);
    if (!job || !job.enabled) return { kind: 'taken' };
    for (const run of this.runs.values()) {
      if (run.jobId !== jobId) continue;
      if (inFlight(run)) return { kind: 'taken' };
      if (run.scheduledAt.getTime() === scheduledAt.getTime()) return { kind: 'taken' }; // ON CONFLICT
    }
    const cap = this.tenantCaps.get(job.tenantId) ?? 0;
    if (cap > 0) {
      const active = [...this.runs.values()].filter(
        (r) => r.tenantId === job.tenantId && inFlight(r),
      );
      if (active.length >= cap) return { kind: 'capped' };
    }
    const run: FakeRun = {
      id: randomUUID(),
      jobId,
      tenantId: job.tenantId,
      scheduledAt: new Date(scheduledAt),
      status: sendAs ? 'running' : 'claimed',
      podId,
      startedAt: new Date(this.clock.now()),
      finishedAt: null,
      result: null,
      error: null,
      errorKind: null,
      attempts: sendAs ? 1 : 0,
      durationMs: null,
    };
    this.runs.set(run.id, run);
    // The claim moves next_run_at on in the same transaction (never backwards).
    if (nextRunAt && job.nextRunAt && job.nextRunAt <= scheduledAt && nextRunAt > job.nextRunAt) {
      job.nextRunAt = new Date(nextRunAt);
    }
    const claimed = { runId: run.id, name: job.name, prompt: job.prompt };
    return { kind: 'claimed', run: sendAs ? { ...claimed, sent: true } : claimed };
  }

  async markSent(runId: string, podId: string): Promise<boolean> {
    await this.enter('markSent');
    const run = this.runs.get(runId);
    if (!run || run.status !== 'claimed' || run.podId !== podId) return false;
    run.status = 'running';
    return true;
  }

  async finishRun(runId: string, outcome: RunOutcome, podId: string): Promise<RecordAnswer> {
    await this.enter('finishRun');
    const run = this.runs.get(runId);
    if (!run || !inFlight(run) || run.podId !== podId) return false;
    const nowMs = this.clock.now();
    run.status = outcome.success ? 'success' : 'failed';
    run.result = outcome.result === null ? null : outcome.result.slice(0, 4096);
    run.error = outcome.error === null ? null : outcome.error.slice(0, 1024);
    run.errorKind = outcome.success ? null : outcome.errorKind;
    run.attempts = outcome.attempts;
    run.finishedAt = new Date(nowMs);
    run.durationMs = nowMs - run.startedAt.getTime();
    const job = this.jobs.get(run.jobId);
    if (job) {
      job.lastRunAt = new Date(run.startedAt);
      job.lastRunSuccess = outcome.success;
      job.lastRunError = run.error;
      job.lastRunErrorKind = run.errorKind;
      job.runCount += 1;
    }
    return 'recorded';
  }

  async failRuns(
    runIds: readonly string[],
    reason: string,
    kind: ErrorKind,
  ): Promise<{ runId: string; jobId: string }[]> {
    await this.enter('failRuns');
    return this.fail(runIds, reason, kind);
  }

  async activeRuns(): Promise<ActiveRun[]> {
    await this.enter('activeRuns');
    return [...this.runs.values()].filter(inFlight).map((run) => ({
      runId: run.id,
      jobId: run.jobId,
      podId: run.podId,
      status: run.status as 'claimed' | 'running',
    }));
  }

  async adoptRuns(
    runs: readonly { runId: string; fromPodId: string }[],
    podId: string,
  ): Promise<AdoptedRun[]> {
    await this.enter('adoptRuns');
    const adopted: AdoptedRun[] = [];
    for (const { runId, fromPodId } of runs) {
      const run = this.runs.get(runId);
      const job = run && this.jobs.get(run.jobId);
      if (!run || !job || run.status !== 'claimed' || run.podId !== fromPodId) continue;
      run.podId = podId;
      adopted.push({
        runId,
        jobId: run.jobId,
        tenantId: run.tenantId,
        scheduledAt: new Date(run.scheduledAt),
        name: job.name,
        prompt: job.prompt,
      });
    }
    return adopted;
  }

  async cleanupStaleRuns(lockTtlMs: number): Promise<number> {
    await this.enter('cleanupStaleRuns');
    const cutoff = this.clock.now() - Math.ceil(lockTtlMs / 1000) * 1000;
    const stale = [...this.runs.values()].filter(
      (run) => inFlight(run) && run.startedAt.getTime() < cutoff,
    );
    return this.fail(
      stale.map((run) => run.id),
      'pod crash or lock TTL exceeded',
      'lock_lost',
    ).length;
  }

  /** Partitions are PostgreSQL's; the fake only counts the calls. */
  async maintainRunHistory(): Promise<RunHistoryUpkeep> {
    await this.enter('maintainRunHistory');
    return { created: 0, dropped: 0, deleted: 0, purgedJobs: [] };
  }

  private fail(
    runIds: readonly string[],
    reason: string,
    kind: ErrorKind,
  ): { runId: string; jobId: string }[] {
    const nowMs = this.clock.now();
    const failed: { runId: string; jobId: string }[] = [];
    for (const id of runIds) {
      const run = this.runs.get(id);
      if (!run || !inFlight(run)) continue;
      run.status = 'failed';
      run.error = reason.slice(0, 1024);
      run.errorKind = kind;
      run.finishedAt = new Date(nowMs);
      run.durationMs = nowMs - run.startedAt.getTime();
      const job = this.jobs.get(run.jobId);
      if (job) {
        job.lastRunAt = new Date(run.startedAt);
        job.lastRunSuccess = false;
        job.lastRunError = run.error;
        job.lastRunErrorKind = kind;
        job.runCount += 1;
      }
      failed.push({ runId: run.id, jobId: run.jobId });
    }
    return failed;
  }

  private async enter(method: JobStoreMethod): Promise<void> {
    this.calls[method] += 1;
    const latencyMs = this.latencyMs + (this.methodLatencyMs[method] ?? 0);
    if (latencyMs > 0) {
      await new Promise<void>((resolve) => this.clock.setTimeout(resolve, latencyMs));
    }
    if (this.down || this.failing.has(method)) {
      throw new Error(`connect ECONNREFUSED (fake database down during ${method})`);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Redis (the Lua scripts of src/redis/lock.ts)

const DONE_MARKER_TTL_MS = 120_000;

export type LockMethod = keyof LockStore;

/**
 * One Redis shared by every pod. `forPod(podId)` is a pod's LockStore (in production each pod has
 * its own client, and its pod id goes into the lock values it writes).
 */
export class FakeRedis {
  /** When false every call rejects and ping() resolves false. */
  available = true;
  /** Only these calls reject (a blip under one command). */
  readonly failing = new Set<LockMethod>();
  readonly calls: Record<LockMethod, number> = {
    acquire: 0,
    release: 0,
    releaseHeldBy: 0,
    publishLiveness: 0,
    livePods: 0,
    ping: 0,
  };
  /** Acquire attempts by job id. */
  readonly acquiresByJob = new Map<string, number>();
  private readonly keys = new Map<string, { value: string; expiresAtMs: number }>();
  /** The peers registry: scheduling pods and when their registration expires. */
  readonly peers = new Map<string, number>();
  private tokenSeq = 0;

  constructor(private readonly clock: Clock) {}

  static lockKey = lockKey;
  static livenessKey = livenessKey;

  get(key: string): string | null {
    const entry = this.keys.get(key);
    if (!entry) return null;
    if (entry.expiresAtMs <= this.clock.now()) {
      this.keys.delete(key);
      return null;
    }
    return entry.value;
  }

  set(key: string, value: string, ttlMs: number): void {
    this.keys.set(key, { value, expiresAtMs: this.clock.now() + ttlMs });
  }

  del(key: string): void {
    this.keys.delete(key);
  }

  /** Who holds a job's lock now, or null when the key is absent. */
  holder(jobId: string): LockHolder | null {
    const value = this.get(FakeRedis.lockKey(jobId));
    return value === null ? null : parseHolder(value);
  }

  /** Remaining time to live of a key in ms, or null when absent. */
  ttl(key: string): number | null {
    if (this.get(key) === null) return null;
    const entry = this.keys.get(key);
    return entry ? entry.expiresAtMs - this.clock.now() : null;
  }

  forPod(podId: string): LockStore {
    return {
      acquire: async (jobId, scheduledAtMs, ttlMs): Promise<LockAttempt> => {
        this.enter('acquire');
        this.acquiresByJob.set(jobId, (this.acquiresByJob.get(jobId) ?? 0) + 1);
        const key = FakeRedis.lockKey(jobId);
        const token = lockValueOf('run', scheduledAtMs, (++this.tokenSeq).toString(16), podId);
        const current = this.get(key);
        if (current !== null) {
          const match = /^([A-Za-z]+)\|(\d+)\|/.exec(current);
          const freeForLater = match?.[1] === 'done' && Number(match[2]) < scheduledAtMs;
          if (!freeForLater) return { acquired: false, holder: parseHolder(current) };
        }
        this.set(key, token, ttlMs);
        return { acquired: true, token };
      },
      release: async (jobId, token, doneAtMs) => {
        this.enter('release');
        const key = FakeRedis.lockKey(jobId);
        if (this.get(key) !== token) return;
        if (doneAtMs === null) this.del(key);
        else this.set(key, lockValueOf('done', doneAtMs, '-', podId), DONE_MARKER_TTL_MS);
      },
      releaseHeldBy: async (jobId, holderPodId) => {
        this.enter('releaseHeldBy');
        const key = FakeRedis.lockKey(jobId);
        const current = this.get(key);
        if (current === null) return;
        const match = /^([A-Za-z]+)\|\d+\|[^|]*\|(.*)$/.exec(current);
        if (match?.[1] === 'run' && match[2] === holderPodId) this.del(key);
      },
      publishLiveness: async (ownPodId, ttlMs, schedules) => {
        this.enter('publishLiveness');
        this.set(FakeRedis.livenessKey(ownPodId), String(this.clock.now()), ttlMs);
        const nowMs = this.clock.now();
        if (schedules) this.peers.set(ownPodId, nowMs + ttlMs);
        else this.peers.delete(ownPodId);
        for (const [peer, untilMs] of this.peers) if (untilMs <= nowMs) this.peers.delete(peer);
        return [...this.peers.keys()].sort();
      },
      livePods: async (podIds) => {
        this.enter('livePods');
        return new Set(podIds.filter((id) => this.get(FakeRedis.livenessKey(id)) !== null));
      },
      ping: async () => {
        this.calls.ping += 1;
        return this.available;
      },
    };
  }

  private enter(method: LockMethod): void {
    this.calls[method] += 1;
    if (!this.available || this.failing.has(method))
      throw new Error('connect ECONNREFUSED (fake redis unavailable)');
  }
}

// ---------------------------------------------------------------------------------------------
// Agent runner

export type RunBehaviour =
  /** Resolves after afterMs of fake time (at once without); rejects on abort unless ignoreSignal. */
  | { kind: 'resolve'; afterMs?: number; result?: string; ignoreSignal?: boolean }
  /** Throws (an agent_error); with errorKind, answers a failure of that kind instead. */
  | { kind: 'reject'; afterMs?: number; error?: string; errorKind?: ErrorKind }
  /** Never resolves by itself; rejects with the signal's reason when aborted. */
  | { kind: 'hang' }
  /** Never settles, whatever the signal does. */
  | { kind: 'ignore' };

export interface RunnerCall {
  podId: string;
  request: RunRequest;
  signal: AbortSignal;
  /** The runner got past beforeSend: its request "reached the model". */
  sent: boolean;
  startedMs: number;
  /** When the runner's promise settled (null while it has not). */
  settledMs: number | null;
}

/** A scripted AgentRunner that records every call. */
export class FakeRunner {
  readonly calls: RunnerCall[] = [];
  /** What the next call does; the default resolves at once with "ok". */
  behaviour: (request: RunRequest, call: number) => RunBehaviour = () => ({ kind: 'resolve' });
  /** Calls whose promise has not settled, in total and by job, with their maxima. */
  active = 0;
  maxActive = 0;
  readonly activeByJob = new Map<string, number>();
  maxActivePerJob = 0;

  constructor(private readonly clock: Clock) {}

  forPod(podId: string): AgentRunner {
    return (request, context) => this.run(podId, request, context);
  }

  callsFor(jobId: string): RunnerCall[] {
    return this.calls.filter((call) => call.request.jobId === jobId);
  }

  private run(podId: string, request: RunRequest, context: RunContext): Promise<RunReply> {
    const { signal } = context;
    const call: RunnerCall = {
      podId,
      request,
      signal,
      sent: false,
      startedMs: this.clock.now(),
      settledMs: null,
    };
    const behaviour = this.behaviour(request, this.calls.length);
    this.calls.push(call);
    this.active += 1;
    this.maxActive = Math.max(this.maxActive, this.active);
    const perJob = (this.activeByJob.get(request.jobId) ?? 0) + 1;
    this.activeByJob.set(request.jobId, perJob);
    this.maxActivePerJob = Math.max(this.maxActivePerJob, perJob);
    const settled = () => {
      call.settledMs = this.clock.now();
      this.active -= 1;
      this.activeByJob.set(request.jobId, (this.activeByJob.get(request.jobId) ?? 1) - 1);
    };
    const answer = this.behave(behaviour, signal);
    answer.catch(() => {});
    const promise = context.beforeSend().then(() => {
      call.sent = true;
      return answer;
    });
    promise.then(settled, settled);
    return promise;
  }

  private behave(behaviour: RunBehaviour, signal: AbortSignal): Promise<RunReply> {
    return new Promise<RunReply>((resolve, reject) => {
      if (behaviour.kind === 'ignore') return;
      const honour =
        behaviour.kind === 'hang' || !('ignoreSignal' in behaviour && behaviour.ignoreSignal);
      let timer: unknown;
      if (honour) {
        const onAbort = () => {
          this.clock.clearTimeout(timer);
          reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
        };
        if (signal.aborted) return onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
      }
      if (behaviour.kind === 'hang') return;
      const finish = () => {
        if (behaviour.kind === 'resolve') resolve({ ok: true, text: behaviour.result ?? 'ok' });
        else if (behaviour.errorKind) {
          const error = behaviour.error ?? 'agent failed';
          resolve({ ok: false, errorKind: behaviour.errorKind, error });
        } else reject(new Error(behaviour.error ?? 'agent failed'));
      };
      if (behaviour.afterMs === undefined) finish();
      else timer = this.clock.setTimeout(finish, behaviour.afterMs);
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Scheduler

export const DEFAULT_SETTINGS: Omit<SchedulerSettings, 'podId'> = {
  pollIntervalMs: 30_000,
  execTimeoutMs: 300_000,
  lockTtlMs: 720_000,
  maxConcurrentRuns: 100,
  catchupWindowMs: 3_600_000,
  livenessIntervalMs: 5_000,
  livenessTtlMs: 15_000,
  recoveryIntervalMs: 10_000,
};

export interface Pod {
  podId: string;
  scheduler: Scheduler;
  events: SchedulerEvents;
  /** Every event the pod announced, in order: what tests wait on (with clock.until). */
  seen: SeenEvent[];
  registry: Registry;
  metrics: SchedulerMetrics;
  locks: LockStore;
  /** Sum of a counter's or gauge's values whose labels include `labels`. */
  metric(name: string, labels?: Record<string, string>): Promise<number>;
}

export type SeenEvent = {
  [K in keyof SchedulerEventMap]: { name: K } & SchedulerEventMap[K][0];
}[keyof SchedulerEventMap];

/** Records every event of the pod's scheduler into `seen`. */
function recordEvents(events: SchedulerEvents): SeenEvent[] {
  const seen: SeenEvent[] = [];
  events.on('claimed', (e) => seen.push({ name: 'claimed', ...e }));
  events.on('recorded', (e) => seen.push({ name: 'recorded', ...e }));
  events.on('skipped', (e) => seen.push({ name: 'skipped', ...e }));
  events.on('recovered', (e) => seen.push({ name: 'recovered', ...e }));
  return seen;
}

/** One simulated deployment: a clock, a database, a Redis and an agent shared by its pods. */
export class World {
  readonly clock: FakeClock;
  readonly store: FakeJobStore;
  readonly redis: FakeRedis;
  readonly runner: FakeRunner;
  readonly pods: Pod[] = [];

  constructor(startMs: number, options: FakeClockOptions = {}) {
    this.clock = new FakeClock(startMs, options);
    this.store = new FakeJobStore(this.clock);
    this.redis = new FakeRedis(this.clock);
    this.runner = new FakeRunner(this.clock);
  }

  /** A pod's Scheduler (not started), with its own metrics registry and a silent logger. */
  pod(
    options: {
      podId?: string;
      settings?: Partial<SchedulerSettings>;
      log?: Logger;
      /** This pod's own view of the database (default: the shared store). */
      store?: JobStore;
      prepareTenants?: (tenantIds: readonly string[]) => void;
      onBulkPlanning?: (underway: boolean) => void;
    } = {},
  ): Pod {
    const podId = options.podId ?? `pod-${this.pods.length + 1}`;
    const registry = new Registry();
    const metrics = createSchedulerMetrics(registry);
    const locks = this.redis.forPod(podId);
    const events = new SchedulerEvents();
    const scheduler = new Scheduler({
      events,
      store: options.store ?? this.store,
      locks,
      runner: this.runner.forPod(podId),
      clock: this.clock,
      log: options.log ?? silentLogger(),
      metrics,
      settings: { ...DEFAULT_SETTINGS, ...options.settings, podId },
      prepareTenants: options.prepareTenants,
      onBulkPlanning: options.onBulkPlanning,
    });
    const pod: Pod = {
      podId,
      scheduler,
      events,
      seen: recordEvents(events),
      registry,
      metrics,
      locks,
      metric: (name, labels) => metricValue(registry, name, labels),
    };
    this.pods.push(pod);
    return pod;
  }
}

/** Sum of a counter's or gauge's values whose labels include `labels` (0 when none). */
export async function metricValue(
  registry: Registry,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (!metric) throw new Error(`no metric ${name}`);
  const { values } = await metric.get();
  return values
    .filter((v) => Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want))
    .reduce((sum, v) => sum + v.value, 0);
}

/**
 * Starts pods and remembers them, so that the test file's afterEach can stop whatever a test left
 * running (without waiting on runs that never end): `afterEach(() => pods.stopAll())`.
 */
export function podStarter(): { start(pod: Pod): Pod; stopAll(): void } {
  const started: Pod[] = [];
  return {
    start(pod) {
      pod.scheduler.start();
      started.push(pod);
      return pod;
    },
    stopAll() {
      for (const pod of started.splice(0)) void pod.scheduler.stop(0);
    },
  };
}
