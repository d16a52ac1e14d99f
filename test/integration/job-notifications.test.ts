// Job notifications on real PostgreSQL: a few changed jobs arrive as their ids; a statement that
// inserts or deletes more than MAX_NOTIFIED_IDS jobs sends one '*' (migration 311), and a pod
// never holds more than MAX_NOTIFIED_IDS ids however many rows notify: it re-reads instead.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenForJobChanges, MAX_NOTIFIED_IDS, type JobListener } from '../../src/db/listen.js';
import { createTestDatabase, withOwner } from '../helpers/database.js';
import { silentLogger } from '../helpers/log.js';

const TENANT = '00000000-0000-0000-0000-000000000001';
let url: string;
let listener: JobListener;
const heard: { ids: string[][]; many: number } = { ids: [], many: 0 };

async function until(what: string, done: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${what}: ${JSON.stringify({ many: heard.many, batches: heard.ids.map((b) => b.length) })}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

beforeAll(async () => {
  url = await createTestDatabase();
  let ready = false;
  listener = listenForJobChanges({
    databaseUrl: url,
    log: silentLogger(),
    onJobsChanged: (ids) => {
      if (ids.includes('ready')) ready = true;
      const jobs = ids.filter((id) => id !== 'ready');
      if (jobs.length > 0) heard.ids.push(jobs);
    },
    onManyJobsChanged: () => (heard.many += 1),
    onTrigger: () => {},
    onReconnected: () => {},
    // Wide enough that the notifications of one commit always land in one batch.
    batchMs: 200,
  });
  // LISTEN is in place once a notification sent now is heard.
  const ping = setInterval(() => {
    void withOwner(url, (c) => c.query(`SELECT pg_notify('hermesx_cron_jobs', 'ready')`));
  }, 300);
  try {
    await until('the listener', () => ready);
  } finally {
    clearInterval(ping);
  }
});

afterAll(async () => {
  await listener?.close();
});

const insertJobs = (n: number) =>
  withOwner(url, async (c) => {
    const { rows } = await c.query<{ id: string }>(
      `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt)
       SELECT $1, 'n' || g || '-' || gen_random_uuid(), '0 * * * *', 'p'
         FROM generate_series(1, $2) AS g RETURNING id`,
      [TENANT, n],
    );
    return rows.map((row) => row.id);
  });

describe('job notifications', () => {
  it('names the jobs a small statement inserted or deleted', async () => {
    const ids = await insertJobs(3);
    await until('the three ids', () => heard.ids.flat().length >= 3);
    expect(heard.ids.flat().sort()).toEqual([...ids].sort());
    heard.ids = [];
    await withOwner(url, (c) => c.query('DELETE FROM cron_jobs WHERE id = $1', [ids[0]]));
    await until('the deleted id', () => heard.ids.flat().length >= 1);
    expect(heard.ids.flat()).toEqual([ids[0]]);
    heard.ids = [];
  });

  it('says "many" once for a bulk insert and a bulk delete, naming no id', async () => {
    const before = heard.many;
    const ids = await insertJobs(MAX_NOTIFIED_IDS + 500);
    await until('"many" after the insert', () => heard.many === before + 1);
    await withOwner(url, (c) => c.query('DELETE FROM cron_jobs WHERE id = ANY($1)', [ids]));
    await until('"many" after the delete', () => heard.many === before + 2);
    expect(heard.ids).toEqual([]);
  });

  it('keeps at most MAX_NOTIFIED_IDS ids of rows that notify one by one, then says "many"', async () => {
    await insertJobs(MAX_NOTIFIED_IDS + 200);
    await until('"many" after the insert', () => heard.many > 0);
    const before = heard.many;
    // Row-level notifications (an update of every job), more than the bound, in one commit.
    await withOwner(url, (c) => c.query(`UPDATE cron_jobs SET prompt = prompt || '!'`));
    await until('"many" after the update', () => heard.many === before + 1);
    expect(heard.ids.every((batch) => batch.length <= MAX_NOTIFIED_IDS)).toBe(true);
  });
});
