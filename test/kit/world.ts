// One simulated deployment: a fake clock, database, Redis and agent shared by the pods it wires,
// each a real Scheduler with its own metrics, events and lock client.
import { Registry } from 'prom-client';
import type { Logger } from '../../src/log.js';
import { createSchedulerMetrics, type SchedulerMetrics } from '../../src/scheduler/metrics.js';
import type { JobStore, LockStore } from '../../src/scheduler/ports.js';
import { SchedulerEvents, type SchedulerEventMap } from '../../src/scheduler/events.js';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import type { SchedulerSettings } from '../../src/scheduler/settings.js';
import { silentLogger } from '../helpers/log.js';
import { FakeClock, type FakeClockOptions } from './clock.js';
import { FakeJobStore } from './job-store.js';
import { FakeRedis } from './redis.js';
import { FakeRunner } from './runner.js';

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
    // What main.ts does with hermesx_run_cancels: the pod running the run stops it.
    this.store.cancelListeners.push((jobId, runId, why) => scheduler.cancelRun(jobId, runId, why));
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
