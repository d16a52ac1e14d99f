// Three real `saas-api` pods on one database, one Redis and one fake LLM: every occurrence runs
// exactly once, on some pod, at its nominal time; job changes take effect at once.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  bucketQuantile,
  cronCallOf,
  duplicateRuns,
  histogramBuckets,
  insertJob,
  linesWithMessage,
  logField,
  metricValue,
  runsOf,
  startPod,
  stopAllPods,
  sumBuckets,
  type Pod,
  type RunRow,
} from '../helpers/cluster.js';
import { jobIdsSpreadOver } from '../helpers/owned-job-id.js';
import { createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { waitFor } from '../helpers/process-wait.js';

const SECOND = 1000;
const EVERY_SECOND = '* * * * * *';

let databaseUrl: string;
let db: pg.Client;
let llm: FakeLlm;

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  llm = await startFakeLlm();
});

afterAll(async () => {
  await stopAllPods();
  await db?.end();
  await llm?.close();
});

function startPods(count: number, env: Record<string, string> = {}): Promise<Pod[]> {
  const tag = Math.random().toString(36).slice(2, 8);
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      startPod({
        databaseUrl,
        redisUrl: inject('redisUrl'),
        llmUrl: llm.url,
        podId: `cluster-${tag}-${i + 1}`,
        env,
      }),
    ),
  );
}

/** LLM calls made for these jobs, keyed "jobId|scheduledAt ISO". */
function callsByOccurrence(jobIds: readonly string[]) {
  const byKey = new Map<string, { prompt: string; count: number }>();
  for (const call of llm.calls) {
    const info = cronCallOf(call.body);
    if (!info || !jobIds.includes(info.jobId)) continue;
    const key = `${info.jobId}|${info.scheduledAt}`;
    const seen = byKey.get(key);
    byKey.set(key, { prompt: info.prompt, count: (seen?.count ?? 0) + 1 });
  }
  return byKey;
}

const occurrenceKey = (run: RunRow) => `${run.cron_job_id}|${run.scheduled_at.toISOString()}`;

function executedLines(pods: Pod[], jobIds: readonly string[]) {
  return pods.flatMap((pod) =>
    linesWithMessage(pod, 'cron job executed')
      .filter((line) => jobIds.includes(logField(line, 'job_id') ?? ''))
      .map((line) => ({ pod, line })),
  );
}

describe('three pods sharing one database, one Redis and one LLM', () => {
  afterAll(() => stopAllPods());

  it('runs every occurrence of five per-second jobs exactly once for 10+ s', async () => {
    const pods = await startPods(3);
    // Owners spread over the pods, so "the work was shared" below is not left to chance.
    const ownedIds = jobIdsSpreadOver(
      pods.map((pod) => pod.podId),
      5,
    );
    const jobs = [];
    for (let i = 0; i < 5; i++) {
      jobs.push(
        await insertJob(db, {
          name: `cluster job ${i}`,
          schedule: EVERY_SECOND,
          prompt: `job ${i}`,
          id: ownedIds[i],
        }),
      );
    }
    const ids = jobs.map((job) => job.id);

    // Until every job has 12+ consecutive occurrences recorded (a window of 11+ s).
    await waitFor(
      async () => {
        const runs = await runsOf(db, ids);
        for (const id of ids) {
          const mine = runs.filter((run) => run.cron_job_id === id);
          const first = mine[0]?.scheduled_at.getTime() ?? Infinity;
          const last = mine.at(-1)?.scheduled_at.getTime() ?? -Infinity;
          expect(last - first, `job ${id} window`).toBeGreaterThanOrEqual(11 * SECOND);
        }
      },
      { timeoutMs: 40_000, intervalMs: 250, what: '12 occurrences of every job' },
    );
    await db.query('UPDATE cron_jobs SET enabled = false WHERE id = ANY ($1::uuid[])', [ids]);
    // Until the last runs are finished and logged.
    const runs = await waitFor(
      async () => {
        const all = await runsOf(db, ids);
        expect(all.filter((run) => run.status === 'running' || run.status === 'claimed')).toEqual(
          [],
        );
        expect(executedLines(pods, ids)).toHaveLength(all.length);
        return all;
      },
      { timeoutMs: 15_000, intervalMs: 200, what: 'the last runs to finish and be logged' },
    );

    expect(await duplicateRuns(db)).toEqual([]);
    for (const run of runs) expect(run.scheduled_at.getTime() % SECOND, 'nominal').toBe(0);
    for (const [i, job] of jobs.entries()) {
      const first = runs.find((run) => run.cron_job_id === job.id)?.scheduled_at.getTime();
      // The first occurrence is the first whole second after the job was created.
      expect(firstOccurrences(job.createdAt), `job ${i}`).toContain(first);
    }
    const { occurrences, overlapped } = checkOccurrences(runs, ids);
    expect(runs.every((run) => run.status === 'success')).toBe(true);

    // Exactly one LLM call per run, for that very occurrence, and none for anything else.
    const calls = callsByOccurrence(ids);
    expect(calls.size).toBe(runs.length);
    for (const run of runs)
      expect(calls.get(occurrenceKey(run))?.count, occurrenceKey(run)).toBe(1);
    const llmCalls = [...calls.values()].reduce((sum, call) => sum + call.count, 0);

    // The work was shared, and each pod logged exactly the runs it recorded.
    const byPod = new Map<string, number>();
    for (const run of runs) byPod.set(run.pod_id ?? '', (byPod.get(run.pod_id ?? '') ?? 0) + 1);
    expect(byPod.size).toBeGreaterThan(1);
    const lines = executedLines(pods, ids);
    expect(lines).toHaveLength(runs.length);
    for (const pod of pods) {
      const mine = lines.filter((entry) => entry.pod === pod);
      expect(mine.length, `log lines of ${pod.podId}`).toBe(byPod.get(pod.podId) ?? 0);
      for (const { line } of mine) {
        expect(logField(line, 'pod')).toBe(pod.podId);
        expect(logField(line, 'status')).toBe('success');
        for (const key of ['tenant_id', 'run_id', 'scheduled_at', 'duration_ms']) {
          expect(logField(line, key), key).toBeTruthy();
        }
      }
    }

    // Fire lag, from each pod's histogram (catch-up runs are counted apart, not as lag).
    const texts = await Promise.all(pods.map((pod) => pod.metrics()));
    for (const text of texts) expect(text).toContain('hermesx_scheduler_fire_lag_seconds_bucket');
    const histograms = texts.map((text) =>
      histogramBuckets(text, 'hermesx_scheduler_fire_lag_seconds'),
    );
    const overlapSkips = texts.reduce(
      (sum, text) => sum + metricValue(text, 'hermesx_scheduler_overlap_skips_total'),
      0,
    );
    expect(overlapSkips, 'overlap skips counted').toBeGreaterThanOrEqual(overlapped.length);
    const caughtUp = texts.reduce(
      (sum, text) => sum + metricValue(text, 'hermesx_scheduler_caught_up_total'),
      0,
    );
    const total = sumBuckets(histograms);
    expect(total.at(-1)?.count).toBe(runs.length - caughtUp);
    const ms = (q: number, buckets = total) => (bucketQuantile(buckets, q) * 1000).toFixed(1);
    // The same from the database: claim time (started_at) minus nominal time.
    const lags = runs
      .map((run) => run.started_at.getTime() - run.scheduled_at.getTime())
      .sort((a, b) => a - b);
    const dbLag = (q: number) => lags[Math.min(lags.length - 1, Math.floor(q * lags.length))];
    console.log(
      `[scheduler-cluster] pods=3 jobs=5 occurrences=${occurrences} runs=${runs.length} ` +
        `llm_calls=${llmCalls} missed=${occurrences - runs.length - overlapped.length} ` +
        `overlap_skipped=${overlapped.length}${overlapped.length ? `(${overlapped.join(',')})` : ''} duplicates=0 ` +
        `caught_up=${caughtUp} runs_by_pod=${JSON.stringify(Object.fromEntries(byPod))} ` +
        `fire_lag_p50_ms=${ms(0.5)} fire_lag_p99_ms=${ms(0.99)} ` +
        `per_pod_p50/p99_ms=${histograms.map((h) => `${ms(0.5, h)}/${ms(0.99, h)}`).join(',')} ` +
        `db_claim_lag_ms_p50/p99/max=${dbLag(0.5)}/${dbLag(0.99)}/${lags.at(-1)}`,
    );
  }, 90_000);
});

describe('job changes while pods run (poll interval 60 s: notifications only)', () => {
  let pods: Pod[];
  beforeAll(async () => {
    pods = await startPods(2, { SCHEDULER_POLL_INTERVAL: '60s' });
  });
  afterAll(() => stopAllPods());

  it('fires a new job at its first occurrence, uses an edited prompt, stops on pause and delete', async () => {
    const witness = await insertJob(db, { name: 'witness', schedule: EVERY_SECOND, prompt: 'w' });
    const edited = await insertJob(db, { name: 'edited', schedule: EVERY_SECOND, prompt: 'v1' });
    const deleted = await insertJob(db, { name: 'deleted', schedule: EVERY_SECOND, prompt: 'd' });

    // A new job fires at the first whole second after its creation, within ~2 s.
    for (const job of [witness, edited, deleted]) {
      const run = await waitFor(
        async () => {
          const { rows } = await db.query<RunRow>(
            'SELECT * FROM cron_job_runs WHERE cron_job_id = $1 ORDER BY scheduled_at LIMIT 1',
            [job.id],
          );
          expect(rows[0]).toBeDefined();
          return rows[0]!;
        },
        { timeoutMs: 5000, intervalMs: 50, what: 'the first run of a new job' },
      );
      expect(firstOccurrences(job.createdAt)).toContain(run.scheduled_at.getTime());
      expect(run.started_at.getTime() - job.createdAt.getTime()).toBeLessThan(2 * SECOND);
    }

    // Edit the prompt just after an occurrence of the job was sent to the LLM, so the next one
    // is ~1 s away.
    const callsBefore = llm.calls.length;
    await waitFor(
      () => {
        const recent = llm.calls.slice(callsBefore).map((call) => cronCallOf(call.body));
        expect(recent.some((call) => call?.jobId === edited.id)).toBe(true);
      },
      { timeoutMs: 5000, intervalMs: 10, what: 'a call for the edited job' },
    );
    const { rows: editRows } = await db.query<{ now: Date }>(
      "UPDATE cron_jobs SET prompt = 'v2' WHERE id = $1 RETURNING now()",
      [edited.id],
    );
    const editedAt = editRows[0]!.now.getTime();
    let nextOccurrence = Math.ceil(editedAt / SECOND) * SECOND;
    // A notification takes milliseconds; give it 500 ms before asserting on a given occurrence.
    if (nextOccurrence - editedAt < 500) nextOccurrence += SECOND;
    const callTimes = () =>
      [...callsByOccurrence([edited.id]).entries()].map(([key, call]) => ({
        at: Date.parse(key.split('|')[1]!),
        prompt: call.prompt,
      }));
    await waitFor(
      () => expect(callTimes().some(({ at }) => at >= nextOccurrence + SECOND)).toBe(true),
      { timeoutMs: 5000, intervalMs: 50, what: 'two occurrences after the edit' },
    );
    const afterEdit = callTimes().filter(({ at }) => at >= nextOccurrence);
    // The next occurrence, unless a starved machine made it overlap its predecessor (skipped).
    expect(Math.min(...afterEdit.map(({ at }) => at))).toBeLessThanOrEqual(nextOccurrence + SECOND);
    for (const { at, prompt } of callTimes()) {
      if (at >= nextOccurrence) expect(prompt, iso(at)).toBe('v2');
      if (at < editedAt - SECOND) expect(prompt, iso(at)).toBe('v1');
    }

    // Pause one job and delete another; the witness keeps running and marks the window's end.
    const { rows: stopRows } = await db.query<{ now: Date }>(
      'WITH paused AS (UPDATE cron_jobs SET enabled = false WHERE id = $1) SELECT now()',
      [edited.id],
    );
    await db.query('DELETE FROM cron_jobs WHERE id = $1', [deleted.id]);
    const stoppedAt = stopRows[0]!.now.getTime();
    await waitFor(
      async () => {
        const { rows } = await db.query<{ latest: Date | null }>(
          "SELECT max(scheduled_at) AS latest FROM cron_job_runs WHERE cron_job_id = $1 AND status NOT IN ('claimed', 'running')",
          [witness.id],
        );
        expect(rows[0]?.latest?.getTime() ?? 0).toBeGreaterThanOrEqual(stoppedAt + 4 * SECOND);
      },
      { timeoutMs: 10_000, intervalMs: 100, what: 'the witness job to run 4 s past the pause' },
    );
    const limit = stoppedAt + SECOND;
    const late = (await runsOf(db, [edited.id])).filter(
      (run) => run.scheduled_at.getTime() > limit,
    );
    expect(late, 'runs of the paused job').toEqual([]);
    const { rows: deletedRuns } = await db.query(
      'SELECT 1 FROM cron_job_runs WHERE cron_job_id = $1',
      [deleted.id],
    );
    expect(deletedRuns, 'runs of the deleted job (cascade)').toEqual([]);
    for (const id of [edited.id, deleted.id]) {
      const lateCalls = [...callsByOccurrence([id]).keys()].filter(
        (key) => Date.parse(key.split('|')[1]!) > limit,
      );
      expect(lateCalls, `LLM calls of ${id} after it stopped`).toEqual([]);
      const lateLines = executedLines(pods, [id]).filter(
        ({ line }) => Date.parse(logField(line, 'scheduled_at') ?? '') > limit,
      );
      expect(lateLines).toEqual([]);
    }
    expect(await duplicateRuns(db)).toEqual([]);
    await db.query('DELETE FROM cron_jobs WHERE id = $1', [witness.id]);
  }, 90_000);

  it('still sees changes made while its notification connection was cut', async () => {
    const marks = pods.map((pod) => pod.lines.length);
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(pg_terminate_backend(pid))::integer AS n FROM pg_stat_activity
        WHERE application_name = 'hermesx-listen' AND datname = current_database()`,
    );
    expect(rows[0]?.n, 'one notification connection per pod').toBe(pods.length);
    // Created before the pods listen again: only the re-sync after reconnecting can see it.
    const job = await insertJob(db, { name: 'unheard', schedule: EVERY_SECOND, prompt: 'u' });
    for (const [i, pod] of pods.entries()) {
      await pod.waitForLine(/msg="job notifications: listening again"/, 10_000, marks[i]);
    }
    const first = await waitFor(
      async () => {
        const [run] = await runsOf(db, [job.id]);
        expect(run).toBeDefined();
        return run!;
      },
      { timeoutMs: 10_000, intervalMs: 50, what: 'the first run of the unheard job' },
    );
    expect(firstOccurrences(job.createdAt)).toContain(first.scheduled_at.getTime());
    expect(first.started_at.getTime() - job.createdAt.getTime()).toBeLessThan(3 * SECOND);
    await db.query('DELETE FROM cron_jobs WHERE id = $1', [job.id]);
  }, 30_000);
});

describe('pods at their concurrency limit', () => {
  afterAll(() => {
    llm.setLatency(0);
    return stopAllPods();
  });

  it('leave occurrences to pods with room, so none is missed', async () => {
    llm.setLatency(300);
    const pods = await startPods(2, { SCHEDULER_MAX_CONCURRENT_RUNS: '1' });
    const jobs = [];
    for (const name of ['full a', 'full b']) {
      jobs.push(await insertJob(db, { name, schedule: EVERY_SECOND, prompt: name }));
    }
    const ids = jobs.map((job) => job.id);
    await waitFor(
      async () => {
        const runs = await runsOf(db, ids);
        for (const id of ids) {
          const mine = runs.filter((run) => run.cron_job_id === id && run.status === 'success');
          const span =
            (mine.at(-1)?.scheduled_at.getTime() ?? 0) - (mine[0]?.scheduled_at.getTime() ?? 0);
          expect(span).toBeGreaterThanOrEqual(5 * SECOND);
        }
      },
      { timeoutMs: 20_000, intervalMs: 250, what: 'six occurrences of both jobs' },
    );
    await db.query('UPDATE cron_jobs SET enabled = false WHERE id = ANY ($1::uuid[])', [ids]);
    const runs = await waitFor(
      async () => {
        const all = await runsOf(db, ids);
        expect(all.filter((run) => run.status === 'running' || run.status === 'claimed')).toEqual(
          [],
        );
        return all;
      },
      { timeoutMs: 10_000, intervalMs: 200, what: 'the last runs to finish' },
    );
    expect(runs.every((run) => run.status === 'success')).toBe(true);
    const texts = await Promise.all(pods.map((pod) => pod.metrics()));
    const total = (name: string) => texts.reduce((sum, text) => sum + metricValue(text, name), 0);
    expect(total('hermesx_scheduler_capacity_deferrals_total')).toBeGreaterThan(0);
    const { overlapped } = checkOccurrences(runs, ids);
    expect(total('hermesx_scheduler_overlap_skips_total')).toBeGreaterThanOrEqual(
      overlapped.length,
    );
    // Each pod had one model call at a time (its one slot is held from the call to the answer;
    // recording happens after), and both pods worked.
    const podOf = new Map(runs.map((run) => [occurrenceKey(run), run.pod_id]));
    for (const pod of pods) {
      const mine = llm.calls
        .filter((call) => {
          const info = cronCallOf(call.body);
          return info && podOf.get(`${info.jobId}|${info.scheduledAt}`) === pod.podId;
        })
        .sort((a, b) => a.receivedAt - b.receivedAt);
      expect(mine.length, `model calls of ${pod.podId}`).toBeGreaterThan(0);
      for (let k = 1; k < mine.length; k++) {
        expect(mine[k]!.receivedAt).toBeGreaterThanOrEqual(mine[k - 1]!.answeredAt!);
      }
    }
    expect(await duplicateRuns(db)).toEqual([]);
    await db.query('DELETE FROM cron_jobs WHERE id = ANY ($1::uuid[])', [ids]);
  }, 60_000);
});

/**
 * The first whole second at or after a job's creation (its first due occurrence). PostgreSQL keeps
 * microseconds that a Date drops, so a creation at exactly .000 ms may also mean the next second.
 */
function firstOccurrences(createdAt: Date): number[] {
  const ms = createdAt.getTime();
  const first = Math.ceil(ms / SECOND) * SECOND;
  return ms % SECOND === 0 ? [first, first + SECOND] : [first];
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * Every occurrence from a job's first to its last recorded run ran, except where the job's
 * previous run was still running when it came due: such an occurrence is skipped by design (on a
 * starved machine a run can outlast a 1 s period). Returns the count and those skipped ones.
 */
function checkOccurrences(runs: RunRow[], ids: readonly string[]) {
  let occurrences = 0;
  const overlapped: string[] = [];
  for (const [i, id] of ids.entries()) {
    const mine = runs.filter((run) => run.cron_job_id === id);
    const byTime = new Map(mine.map((run) => [run.scheduled_at.getTime(), run]));
    const first = mine[0]?.scheduled_at.getTime() ?? 0;
    const last = mine.at(-1)?.scheduled_at.getTime() ?? -1;
    for (let at = first; at <= last; at += SECOND) {
      occurrences += 1;
      if (byTime.has(at)) continue;
      let previous: RunRow | undefined;
      for (let back = 1; !previous && back <= 10; back++) previous = byTime.get(at - back * SECOND);
      // Finished in PostgreSQL just before its lock was released: allow the release's few ms.
      const stillRunning = (previous?.finished_at?.getTime() ?? 0) > at - 100;
      expect(stillRunning, `job ${i} missed ${iso(at)} though its previous run had ended`).toBe(
        true,
      );
      overlapped.push(`${i}@${iso(at).slice(11, 19)}`);
    }
  }
  return { occurrences, overlapped };
}
