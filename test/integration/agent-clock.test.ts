// The clock in a scheduled run (real runner, PostgreSQL; the model is the fake LLM server): the
// model asks for the time in a zone of its choosing and then in one that does not exist; it reads
// now and the occurrence's nominal time back, then a clear error, and both calls are audited as
// having no side effect.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCronRunner } from '../../src/agent/cron-runner.js';
import { createLlm } from '../../src/agent/llm.js';
import type { Pool } from '../../src/db/pool.js';
import { createSecretsVault } from '../../src/secrets/vault.js';
import { createAppPool, createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';

let db: pg.Client;
let pool: Pool;
let llm: FakeLlm;
let tenantId = '';
let jobId = '';

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  pool = createAppPool(databaseUrl);
  llm = await startFakeLlm();
  const tenant = await db.query<{ id: string }>(
    "INSERT INTO tenants (name) VALUES ('clock') RETURNING id",
  );
  tenantId = tenant.rows[0]!.id;
  const job = await db.query<{ id: string }>(
    `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt, timezone)
     VALUES ($1, 'morning', '0 9 * * *', 'What time is it in Tokyo?', 'Europe/Paris')
     RETURNING id`,
    [tenantId],
  );
  jobId = job.rows[0]!.id;
});

afterAll(async () => {
  await llm?.close();
  await pool?.end();
  await db?.end();
});

type Message = { role: string; content?: string | null };

describe('the clock tool in a run', () => {
  it('answers now and the occurrence in the zone asked for; a bad zone is a tool error', async () => {
    llm.setHandler((body) => {
      const messages = (body as { messages: Message[] }).messages;
      const answered = messages.filter((m) => m.role === 'tool').length;
      if (answered === 0) {
        return { toolCalls: [{ name: 'clock', arguments: '{"timezone":"Asia/Tokyo"}' }] };
      }
      if (answered === 1) {
        return { toolCalls: [{ name: 'clock', arguments: '{"timezone":"Tokyo"}' }] };
      }
      return { content: 'It is 18:00 in Tokyo.' };
    });
    const scheduledAt = new Date('2026-12-04T09:00:00.000Z');
    const runId = '00000000-0000-4000-8000-00000000c10c';
    const runner = createCronRunner(createLlm({ url: llm.url, apiKey: '', model: 'fake-model' }), {
      pool,
      vault: createSecretsVault(pool, undefined),
      allowPrivateNetworks: false,
      now: () => new Date('2026-12-04T09:07:30.000Z'),
    });
    const reply = await runner(
      {
        jobId,
        tenantId,
        runId,
        name: 'morning',
        prompt: 'What time is it in Tokyo?',
        timezone: 'Europe/Paris',
        scheduledAt,
      },
      {
        signal: new AbortController().signal,
        deadlineMs: Date.now() + 60_000,
        beforeSend: () => Promise.resolve(),
      },
    );
    expect(reply).toEqual({ ok: true, text: 'It is 18:00 in Tokyo.' });

    const last = llm.calls.at(-1)?.body as { messages: Message[] };
    const results = last.messages
      .filter((m) => m.role === 'tool')
      .map((m) => JSON.parse(m.content ?? '') as unknown);
    expect(results).toEqual([
      {
        ok: true,
        timezone: 'Asia/Tokyo',
        now: {
          utc: '2026-12-04T09:07:30.000Z',
          local: '2026-12-04T18:07:30+09:00',
          weekday: 'Friday',
        },
        occurrence: {
          utc: '2026-12-04T09:00:00.000Z',
          local: '2026-12-04T18:00:00+09:00',
          weekday: 'Friday',
        },
      },
      {
        ok: false,
        error: {
          code: 'unknown_timezone',
          message:
            'unknown time zone "Tokyo": use an IANA name such as "Europe/Paris", "America/New_York" or "UTC"',
        },
      },
    ]);

    const { rows } = await db.query(
      `SELECT seq, tool, arguments, status, error, side_effects FROM cron_run_tool_calls
       WHERE run_id = $1 ORDER BY seq`,
      [runId],
    );
    expect(rows).toEqual([
      {
        seq: 1,
        tool: 'clock',
        arguments: { timezone: 'Asia/Tokyo' },
        status: 'ok',
        error: null,
        side_effects: false,
      },
      {
        seq: 2,
        tool: 'clock',
        arguments: { timezone: 'Tokyo' },
        status: 'error',
        error: expect.stringContaining('unknown time zone "Tokyo"'),
        side_effects: false,
      },
    ]);
  });
});
