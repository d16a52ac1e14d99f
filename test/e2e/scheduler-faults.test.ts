// Faults with real pods: Redis dies and comes back, a pod dies mid-run, a run overruns its time
// limit, a pod is asked to stop with a run in progress.
import net from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { findFreePort, startRedis, type LocalServer } from '../../src/dev/processes.js';
import {
  cronCallOf,
  duplicateRuns,
  insertJob,
  linesWithMessage,
  logField,
  metricValue,
  runsOf,
  startPod,
  stopAllPods,
  type Pod,
  type PodOptions,
  type RunRow,
} from '../helpers/cluster.js';
import { createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm, type RecordedCall } from '../helpers/fake-llm.js';
import { isAlive, waitFor } from '../helpers/process-wait.js';

const SECOND = 1000;
const EVERY_SECOND = '* * * * * *';

let databaseUrl: string;
let db: pg.Client;
let llm: FakeLlm;
const ownRedis: LocalServer[] = [];

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  llm = await startFakeLlm();
});

afterEach(async () => {
  await stopAllPods(3000);
  for (const server of ownRedis.splice(0)) await server.stop();
  await db.query('DELETE FROM cron_jobs');
  llm.setHandler(() => ({ content: 'ok' }));
});

afterAll(async () => {
  await stopAllPods(3000);
  await db?.end();
  await llm?.close();
});

function pod(options: Partial<PodOptions> & { env?: Record<string, string> } = {}): Promise<Pod> {
  return startPod({
    databaseUrl,
    redisUrl: inject('redisUrl'),
    llmUrl: llm.url,
    podId: `faults-${Math.random().toString(36).slice(2, 8)}`,
    ...options,
  });
}

/** The LLM calls made for this job's occurrence. */
function callsFor(jobId: string, scheduledAt: Date): RecordedCall[] {
  return llm.calls.filter((call) => {
    const info = cronCallOf(call.body);
    return info?.jobId === jobId && info.scheduledAt === scheduledAt.toISOString();
  });
}

/** The first LLM call made for this job's occurrence, if any. */
const callFor = (jobId: string, scheduledAt: Date): RecordedCall | undefined =>
  callsFor(jobId, scheduledAt)[0];

/** Waits for a run of the job matching the predicate, and returns it. */
function waitForRun(
  jobId: string,
  predicate: (run: RunRow) => boolean,
  timeoutMs: number,
  what: string,
): Promise<RunRow> {
  return waitFor(
    async () => {
      const run = (await runsOf(db, [jobId])).find(predicate);
      if (!run) throw new Error(`no such run yet: ${JSON.stringify(await runsOf(db, [jobId]))}`);
      return run;
    },
    { timeoutMs, intervalMs: 100, what },
  );
}

async function ready(target: Pod): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${target.url}/health/ready`, { signal: AbortSignal.timeout(5000) });
  return { status: response.status, body: await response.json() };
}

describe('Redis outage', () => {
  it('pauses scheduling, keeps the API up (even for a pod booting meanwhile), resumes within the poll interval and catches up once', async () => {
    const port = await findFreePort();
    let redis = await startRedis({ port });
    ownRedis.push(redis);
    const pollMs = 5 * SECOND;
    const settings = { redisUrl: redis.url, env: { SCHEDULER_POLL_INTERVAL: '5s' } };
    const pods = [await pod(settings)];
    const job = await insertJob(db, { name: 'outage', schedule: '*/2 * * * * *', prompt: 'tick' });
    await waitForRun(job.id, (run) => run.status === 'success', 10_000, 'a first run');

    // Kill Redis outright.
    const marks = pods.map((p) => p.lines.length);
    process.kill(redis.pid, 'SIGKILL');
    await waitFor(() => expect(isAlive(redis.pid)).toBe(false), { timeoutMs: 5000 });
    ownRedis.splice(ownRedis.indexOf(redis), 1);
    const killedAt = Date.now();
    for (const [i, p] of pods.entries()) {
      const line = await p.waitForLine(
        /msg="scheduler disabled: redis unavailable"/,
        10_000,
        marks[i],
      );
      expect(line).toMatch(/level=WARN/);
      expect(await ready(p)).toEqual({
        status: 200,
        body: { status: 'degraded', checks: { database: 'ok', redis: 'error' } },
      });
    }
    // A second pod boots while Redis is down: it serves, and its scheduler waits.
    const late = await pod({ ...settings, waitFor: 'listening' });
    pods.push(late);
    await late.waitForLine(/level=WARN msg="scheduler disabled: redis unavailable"/, 10_000);
    expect((await ready(late)).body).toMatchObject({ status: 'degraded' });
    const before = await waitFor(
      async () => {
        const runs = await runsOf(db, [job.id]);
        expect(runs.filter((run) => run.status === 'running' || run.status === 'claimed')).toEqual(
          [],
        );
        return runs;
      },
      { timeoutMs: 5000, what: 'runs in flight at the outage to finish' },
    );
    const lastBefore = before.at(-1)!.scheduled_at.getTime();

    // The outage lasts until three more occurrences were due; the API keeps answering meanwhile.
    await waitFor(
      async () => {
        for (const p of pods) expect((await ready(p)).status).toBe(200);
        expect(Date.now()).toBeGreaterThan(lastBefore + 6 * SECOND + 100);
      },
      { timeoutMs: 15_000, intervalMs: 250, what: 'the outage to span three occurrences' },
    );
    const during = await runsOf(db, [job.id]);
    expect(during, 'no run started while Redis was down').toHaveLength(before.length);
    expect(during.filter((run) => run.started_at.getTime() > killedAt)).toEqual([]);

    // Redis comes back on the same port.
    const restartMarks = pods.map((p) => p.lines.length);
    redis = await startRedis({ port });
    ownRedis.push(redis);
    const restartedAt = Date.now();
    const activations: number[] = [];
    for (const [i, p] of pods.entries()) {
      const line = await p.waitForLine(/msg="scheduler started"/, pollMs + 5000, restartMarks[i]);
      expect(line).toContain('poll_interval=5s');
      activations.push(Date.parse(logField(line, 'time') ?? ''));
    }
    const firstActivation = Math.min(...activations);
    console.log(
      `[scheduler-faults] redis restart -> scheduler started: ${activations.map((at) => at - restartedAt).join(', ')} ms`,
    );
    for (const at of activations) expect(at - restartedAt).toBeLessThanOrEqual(pollMs);
    for (const p of pods) expect((await ready(p)).body).toMatchObject({ status: 'ok' });

    // Runs resume: the latest missed occurrence once, then every occurrence on time.
    await waitForRun(
      job.id,
      (run) =>
        run.status !== 'running' &&
        run.status !== 'claimed' &&
        run.scheduled_at.getTime() >= firstActivation + 4 * SECOND,
      15_000,
      'two regular runs after the restart',
    );
    const after = (await runsOf(db, [job.id])).filter(
      (run) => run.scheduled_at.getTime() > lastBefore,
    );
    const times = after.map((run) => run.scheduled_at.getTime());
    const caughtUp = times[0]!;
    const latestMissed = Math.floor(firstActivation / (2 * SECOND)) * 2 * SECOND;
    // The catch-up is the latest occurrence due at activation (or the one before it when an
    // occurrence fell in the few milliseconds between the sync and the log line).
    expect(caughtUp).toBeGreaterThanOrEqual(latestMissed - 2 * SECOND);
    expect(caughtUp).toBeLessThanOrEqual(latestMissed);
    expect(caughtUp - lastBefore, 'older missed occurrences were skipped').toBeGreaterThan(
      2 * SECOND,
    );
    expect(after[0]!.started_at.getTime() - restartedAt).toBeLessThanOrEqual(pollMs);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBe(2 * SECOND);
    expect(await duplicateRuns(db)).toEqual([]);
    const metrics = await Promise.all(pods.map((p) => p.metrics()));
    const caughtUpTotal = metrics.reduce(
      (sum, text) => sum + metricValue(text, 'hermesx_scheduler_caught_up_total'),
      0,
    );
    expect(caughtUpTotal).toBeGreaterThanOrEqual(1);
  }, 90_000);
});

describe('a pod killed mid-run', () => {
  it('has its run failed and the job run again on another pod within 30 s', async () => {
    let slowCalls = 0;
    llm.setHandler((body) => {
      if (cronCallOf(body)?.prompt === 'slow' && slowCalls++ === 0) return { hang: true };
      return { content: 'ok' };
    });
    const pods = await Promise.all([1, 2].map(() => pod()));
    const job = await insertJob(db, { name: 'slow', schedule: EVERY_SECOND, prompt: 'slow' });
    const stuck = await waitForRun(job.id, (run) => run.status === 'running', 10_000, 'a run');
    await waitFor(() => expect(callFor(job.id, stuck.scheduled_at)).toBeDefined(), {
      timeoutMs: 5000,
      what: 'the run to reach the LLM',
    });
    const victim = pods.find((p) => p.podId === stuck.pod_id)!;
    const survivor = pods.find((p) => p !== victim)!;
    expect(await victim.kill('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
    const killedAt = Date.now();

    const failed = await waitForRun(
      job.id,
      (run) => run.id === stuck.id && run.status === 'failed',
      30_000,
      'the dead pod’s run to be failed',
    );
    const failedAfterMs = Date.now() - killedAt;
    expect(failed.error).toBe('pod crash or lock TTL exceeded');
    const rerun = await waitForRun(
      job.id,
      (run) => run.scheduled_at > stuck.scheduled_at && run.status === 'success',
      Math.max(1000, 30_000 - (Date.now() - killedAt)),
      'the job to run again',
    );
    const rerunAfterMs = Date.now() - killedAt;
    console.log(
      `[scheduler-faults] SIGKILL mid-run: failed after ${failedAfterMs} ms, ran again after ${rerunAfterMs} ms`,
    );
    expect(rerun.pod_id).toBe(survivor.podId);
    expect(rerunAfterMs).toBeLessThan(30_000);
    expect(callFor(job.id, stuck.scheduled_at)?.aborted).toBe(true);
    expect(linesWithMessage(survivor, 'run failed: pod is gone').join('\n')).toContain(stuck.id);
    expect(await duplicateRuns(db)).toEqual([]);
  }, 60_000);
});

describe('a pod restarted under the same id after a crash', () => {
  it('fails its leftover run at once and runs the job again', async () => {
    let calls = 0;
    llm.setHandler((body) => {
      if (cronCallOf(body)?.prompt === 'restart' && calls++ === 0) return { hang: true };
      return { content: 'ok' };
    });
    const podId = `faults-restart-${Math.random().toString(36).slice(2, 8)}`;
    const crashed = await pod({ podId });
    const job = await insertJob(db, { name: 'restart', schedule: EVERY_SECOND, prompt: 'restart' });
    const stuck = await waitForRun(job.id, (run) => run.status === 'running', 10_000, 'a run');
    await waitFor(() => expect(callFor(job.id, stuck.scheduled_at)).toBeDefined(), {
      timeoutMs: 5000,
    });
    await crashed.kill('SIGKILL');
    const restartedAt = Date.now();
    const restarted = await pod({ podId });
    // Failed before the new process claimed anything, not after the liveness key expired.
    const [failed] = (await runsOf(db, [job.id])).filter((run) => run.id === stuck.id);
    expect(failed).toMatchObject({ status: 'failed', error: 'pod crash or lock TTL exceeded' });
    const rerun = await waitForRun(
      job.id,
      (run) => run.scheduled_at > stuck.scheduled_at && run.status === 'success',
      5000,
      'the job to run again',
    );
    expect(rerun.pod_id).toBe(restarted.podId);
    console.log(
      `[scheduler-faults] same-id restart: ran again ${Date.now() - restartedAt} ms after the restart began`,
    );
    expect(await duplicateRuns(db)).toEqual([]);
  }, 60_000);
});

describe('exec timeout', () => {
  it('fails a run that outlives SCHEDULER_EXEC_TIMEOUT and aborts its LLM request', async () => {
    llm.setHandler(() => ({ hang: true }));
    await pod({
      env: {
        SCHEDULER_EXEC_TIMEOUT: '2s',
        SCHEDULER_LOCK_TTL: '10s',
        SCHEDULER_SHUTDOWN_GRACE: '1s',
      },
    });
    const job = await insertJob(db, { name: 'hangs', schedule: EVERY_SECOND, prompt: 'hang' });
    const run = await waitForRun(job.id, (r) => r.status === 'failed', 10_000, 'a timed-out run');
    expect(run.error).toMatch(/^timeout/);
    expect(run.duration_ms).toBeGreaterThanOrEqual(1900);
    expect(run.duration_ms).toBeLessThan(4000);
    await waitFor(() => expect(callFor(job.id, run.scheduled_at)?.aborted).toBe(true), {
      timeoutMs: 5000,
      what: 'the LLM request to be aborted',
    });
  }, 60_000);
});

describe('SIGTERM with a run in progress', () => {
  async function runInProgress(target: Pod, jobId: string): Promise<RunRow> {
    const run = await waitForRun(jobId, (r) => r.status === 'running', 10_000, 'a run');
    await waitFor(() => expect(callFor(jobId, run.scheduled_at)).toBeDefined(), {
      timeoutMs: 5000,
      what: 'the run to reach the LLM',
    });
    expect(run.pod_id).toBe(target.podId);
    return run;
  }

  it('lets the run finish within the grace period and exits 0', async () => {
    llm.setHandler(() => ({ content: 'slow but fine', delayMs: 1500 }));
    const target = await pod({ env: { SCHEDULER_SHUTDOWN_GRACE: '5s' } });
    const job = await insertJob(db, { name: 'drain', schedule: EVERY_SECOND, prompt: 'drain' });
    const run = await runInProgress(target, job.id);
    const exit = await target.kill('SIGTERM');
    expect(exit).toEqual({ code: 0, signal: null });
    const [finished] = (await runsOf(db, [job.id])).filter((r) => r.id === run.id);
    expect(finished).toMatchObject({ status: 'success', result: 'slow but fine', error: null });
    expect(linesWithMessage(target, 'scheduler draining')).toHaveLength(1);
    expect(
      (await runsOf(db, [job.id])).filter((r) => r.status === 'running' || r.status === 'claimed'),
    ).toEqual([]);
  }, 60_000);

  it('aborts a run still going after the grace period, records it and frees its lock', async () => {
    llm.setHandler(() => ({ hang: true }));
    const target = await pod({ env: { SCHEDULER_SHUTDOWN_GRACE: '1s' } });
    const job = await insertJob(db, { name: 'abort', schedule: EVERY_SECOND, prompt: 'abort' });
    const run = await runInProgress(target, job.id);
    const signalledAt = Date.now();
    const exit = await target.kill('SIGTERM');
    expect(exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalledAt).toBeLessThan(10_000);
    const [finished] = (await runsOf(db, [job.id])).filter((r) => r.id === run.id);
    expect(finished).toMatchObject({ status: 'failed', error: 'interrupted by shutdown' });
    expect(callFor(job.id, run.scheduled_at)?.aborted).toBe(true);
    const redis = new Redis(inject('redisUrl'));
    try {
      const value = await redis.get(`hermesx:cron:lock:${job.id}`);
      expect(value ?? '').not.toMatch(/^run\|/);
    } finally {
      redis.disconnect();
    }
  }, 60_000);
});

describe('SIGTERM with runs claimed ahead of the model slot (SCHEDULER_CLAIM_AHEAD)', () => {
  it('hands the claims that never sent back, and another pod runs each of them once', async () => {
    llm.setHandler(() => ({ content: 'done', delayMs: 2500 }));
    const env = {
      SCHEDULER_MAX_CONCURRENT_RUNS: '1',
      SCHEDULER_CLAIM_AHEAD: '2',
      SCHEDULER_SHUTDOWN_GRACE: '10s',
    };
    const leaving = await pod({ env });
    const jobs = [];
    for (const name of ['ahead a', 'ahead b', 'ahead c']) {
      jobs.push(await insertJob(db, { name, schedule: EVERY_SECOND, prompt: name }));
    }
    const ids = jobs.map((job) => job.id);
    // One run calls the model (the pod's one slot); two more are claimed and wait for it.
    const waiting = await waitFor(
      async () => {
        const running = (await runsOf(db, ids)).filter((r) => r.status === 'running');
        const sent = running.filter((r) => callFor(r.cron_job_id, r.scheduled_at));
        expect(sent).toHaveLength(1);
        expect(running).toHaveLength(3);
        return running.filter((r) => !callFor(r.cron_job_id, r.scheduled_at));
      },
      { timeoutMs: 15_000, intervalMs: 50, what: 'one run sending and two claimed ahead' },
    );
    expect(await leaving.kill('SIGTERM')).toEqual({ code: 0, signal: null });

    // Never sent: claimed again (not failed as a run that may have reached the model).
    const after = await runsOf(db, ids);
    for (const run of waiting) {
      expect(after.find((r) => r.id === run.id)).toMatchObject({
        status: 'claimed',
        attempts: 0,
        pod_id: leaving.podId,
      });
      expect(callFor(run.cron_job_id, run.scheduled_at)).toBeUndefined();
    }
    expect(after.filter((r) => r.status === 'failed')).toEqual([]);

    const staying = await pod();
    for (const run of waiting) {
      const done = await waitForRun(
        run.cron_job_id,
        (r) => r.id === run.id && r.status === 'success',
        40_000,
        'the handed-back run, adopted and run',
      );
      expect(done.pod_id).toBe(staying.podId);
      expect(callsFor(run.cron_job_id, run.scheduled_at)).toHaveLength(1);
    }
    expect(await duplicateRuns(db)).toEqual([]);
  }, 90_000);
});

/** A TCP proxy to Redis whose link can be cut (connections dropped, new ones refused) and healed. */
async function startLinkToRedis(redisPort: number) {
  const sockets = new Set<net.Socket>();
  let cut = false;
  const server = net.createServer((client) => {
    if (cut) return void client.destroy();
    const upstream = net.connect(redisPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const cutLink = () => {
    cut = true;
    for (const socket of sockets) socket.destroy();
  };
  return {
    url: `redis://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    cut: cutLink,
    heal() {
      cut = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        cutLink();
        server.close(() => resolve());
      }),
  };
}

describe('Redis unreachable while a run is in progress', () => {
  it('does not leave the job blocked by its own stale lock once Redis is reachable again', async () => {
    const redis = await startRedis({ port: await findFreePort() });
    ownRedis.push(redis);
    const link = await startLinkToRedis(redis.port);
    let first = true;
    llm.setHandler((body) => {
      if (cronCallOf(body)?.prompt !== 'blip' || !first) return { content: 'ok' };
      first = false;
      return { content: 'slow', delayMs: 3000 };
    });
    try {
      const target = await pod({ redisUrl: link.url });
      const job = await insertJob(db, { name: 'blip', schedule: EVERY_SECOND, prompt: 'blip' });
      const stuck = await waitForRun(job.id, (run) => run.status === 'running', 10_000, 'a run');
      await waitFor(() => expect(callFor(job.id, stuck.scheduled_at)).toBeDefined(), {
        timeoutMs: 5000,
      });
      const mark = target.lines.length;
      link.cut();
      await target.waitForLine(/msg="scheduler disabled: redis unavailable"/, 10_000, mark);
      // The run ends while Redis is unreachable: recorded in PostgreSQL, its lock not released.
      await target.waitForLine(/msg="cannot release lock"/, 15_000, mark);
      const direct = new Redis(redis.url);
      try {
        expect(await direct.get(`hermesx:cron:lock:${job.id}`)).toMatch(/^run\|/);
      } finally {
        direct.disconnect();
      }
      const healed = target.lines.length;
      link.heal();
      await target.waitForLine(/msg="scheduler started"/, 10_000, healed);
      const resumedAt = Date.now();
      const next = await waitForRun(
        job.id,
        (run) => run.scheduled_at.getTime() > resumedAt && run.status === 'success',
        10_000,
        'the job to run again after Redis came back',
      );
      expect(next.pod_id).toBe(target.podId);
      expect(await duplicateRuns(db)).toEqual([]);
    } finally {
      await link.close();
    }
  }, 60_000);
});
