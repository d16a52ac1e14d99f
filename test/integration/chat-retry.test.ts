// Clients retry: the official SDK retries a 5xx twice by default. A turn that changed state must
// not answer 5xx, and an Idempotency-Key must return the first answer instead of a second change.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sweepIdempotencyKeys } from '../../src/http/idempotency-sweeper.js';
import { MAX_KEYS_PER_TENANT } from '../../src/http/idempotency.js';
import {
  DEFAULT_TENANT_KEY,
  bearer,
  buildTestApp,
  createTenantWithKey,
  DEFAULT_TENANT_ID,
  expectError,
  type TestApp,
} from '../helpers/api.js';
import { createTestDatabase, withOwner } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { capturingLogger } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';

const createCall = (name: string) => ({
  toolCalls: [
    {
      name: 'cronjob',
      arguments: JSON.stringify({ action: 'create', name, schedule: '@hourly', prompt: 'hi' }),
    },
  ],
});

describe('retries of a chat turn', () => {
  let databaseUrl: string;
  let llm: FakeLlm;
  let api: TestApp;
  let baseUrl: string;
  const logged = capturingLogger('json');

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    llm = await startFakeLlm();
    api = await buildTestApp({ databaseUrl, config: { LLM_API_URL: llm.url }, log: logged.log });
    await api.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await api?.close();
    await llm?.close();
  });
  beforeEach(() => {
    llm.calls.length = 0;
  });

  const jobsNamed = async (name: string) =>
    (
      await withOwner(databaseUrl, (c) =>
        c.query('SELECT id FROM cron_jobs WHERE name = $1', [name]),
      )
    ).rows;
  const sdk = () => new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: DEFAULT_TENANT_KEY });

  it('creates the job once when the model fails after the tool ran (SDK default retries)', async () => {
    llm.setHandler((_body, index) => (index === 0 ? createCall('once') : { status: 500 }));
    const completion = await sdk().chat.completions.create({
      model: 'fake-model',
      messages: [{ role: 'user', content: 'hourly hi' }],
    });
    const content = completion.choices[0]?.message.content ?? '';
    expect(content).toContain('created job "once"');
    expect(content).toContain('the model server then failed');
    expect(content).toContain('do not repeat them');
    expect(await jobsNamed('once')).toHaveLength(1);
    expect(llm.calls).toHaveLength(2);
    const warning = logged.lines.find((line) => line.includes('chat: model call failed'));
    expect(warning).toContain('"request_id":"req_');
    expect(warning).toContain('after the turn changed state');
  });

  it('answers a model failure before any change with a 502 naming the logged request id', async () => {
    llm.setHandler(() => ({ status: 500 }));
    const response = await api.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: bearer(DEFAULT_TENANT_KEY),
      payload: { messages: [{ role: 'user', content: 'hi' }] },
    });
    const message = expectError(response, 502, 'llm_unavailable');
    const id = response.headers['x-request-id'] as string;
    expect(message).toContain(`request id ${id}`);
    expect(message).not.toContain('fake error');
    expect(logged.lines.some((line) => line.includes(id) && line.includes('fake error 500'))).toBe(
      true,
    );
  });

  it('replays the answer for the same Idempotency-Key and body, and refuses another body', async () => {
    llm.setHandler((_body, index) =>
      index % 2 === 0 ? createCall('keyed') : { content: 'Created "keyed".' },
    );
    const send = (content: string, stream = false) =>
      api.app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: { ...bearer(DEFAULT_TENANT_KEY), 'idempotency-key': 'chat-key-1' },
        payload: { messages: [{ role: 'user', content }], ...(stream ? { stream: true } : {}) },
      });
    const first = await send('make keyed');
    expect(first.statusCode).toBe(200);
    const again = await send('make keyed');
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(llm.calls).toHaveLength(2);
    expect(await jobsNamed('keyed')).toHaveLength(1);
    expectError(await send('something else'), 409, 'idempotency_key_reused');
  });

  it('replays a streamed answer as a stream', async () => {
    llm.setHandler(() => ({ content: 'Streamed twice, asked once.' }));
    const client = new OpenAI({
      baseURL: `${baseUrl}/v1`,
      apiKey: DEFAULT_TENANT_KEY,
      defaultHeaders: { 'Idempotency-Key': 'chat-key-stream' },
    });
    const read = async () => {
      const stream = await client.chat.completions.create({
        model: 'fake-model',
        messages: [{ role: 'user', content: 'talk' }],
        stream: true,
      });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      return text;
    };
    expect(await read()).toBe('Streamed twice, asked once.');
    expect(await read()).toBe('Streamed twice, asked once.');
    expect(llm.calls).toHaveLength(1);
  });

  it('keeps the key of a turn cut short after a change, so its retry changes nothing', async () => {
    llm.setHandler((_body, index) => (index === 0 ? createCall('cut short') : { hang: true }));
    const payload = JSON.stringify({ messages: [{ role: 'user', content: 'make cut short' }] });
    const headers = {
      ...bearer(DEFAULT_TENANT_KEY),
      'content-type': 'application/json',
      'idempotency-key': 'chat-key-cut',
    };
    const request = http.request(`${baseUrl}/v1/chat/completions`, { method: 'POST', headers });
    request.on('error', () => {});
    request.end(payload);
    await llm.waitForCalls(2, 10_000);
    request.destroy();
    let retry: Awaited<ReturnType<typeof api.app.inject>> | undefined;
    await waitFor(
      async () => {
        retry = await api.app.inject({
          method: 'POST',
          url: '/v1/chat/completions',
          headers,
          payload,
        });
        expect(retry.statusCode).toBe(200);
      },
      { timeoutMs: 10_000 },
    );
    expect(retry?.json().choices[0].message.content).toContain('created job "cut short"');
    expect(await jobsNamed('cut short')).toHaveLength(1);
    expect(llm.calls).toHaveLength(2);
  });

  it('creates one job for POST /v1/cron-jobs retried with the same key', async () => {
    const post = (body: object) =>
      api.app.inject({
        method: 'POST',
        url: '/v1/cron-jobs',
        headers: { ...bearer(DEFAULT_TENANT_KEY), 'idempotency-key': 'job-key-1' },
        payload: body,
      });
    const body = { name: 'rest once', schedule: '@daily', prompt: 'hello' };
    const first = await post(body);
    expect(first.statusCode).toBe(201);
    const second = await post(body);
    expect(second.statusCode).toBe(201);
    expect(second.json().id).toBe(first.json().id);
    expect(await jobsNamed('rest once')).toHaveLength(1);
    expectError(await post({ ...body, prompt: 'other' }), 409, 'idempotency_key_reused');
    const bad = await api.app.inject({
      method: 'POST',
      url: '/v1/cron-jobs',
      headers: { ...bearer(DEFAULT_TENANT_KEY), 'idempotency-key': 'x'.repeat(300) },
      payload: body,
    });
    expectError(bad, 400, 'invalid_idempotency_key');
  });

  it('forgets answers older than 24 hours, so their keys work again', async () => {
    const body = { name: 'after a day', schedule: '@daily', prompt: 'hello' };
    const post = (key: string) =>
      api.app.inject({
        method: 'POST',
        url: '/v1/cron-jobs',
        headers: { ...bearer(DEFAULT_TENANT_KEY), 'idempotency-key': key },
        payload: body,
      });
    const first = await post('job-key-old');
    await withOwner(databaseUrl, (c) =>
      c.query(
        "UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = 'job-key-old'",
      ),
    );
    expect((await post('job-key-other')).statusCode).toBe(201);
    const left = await withOwner(databaseUrl, (c) =>
      c.query("SELECT 1 FROM idempotency_keys WHERE key = 'job-key-old'"),
    );
    expect(left.rows).toEqual([]);
    const again = await post('job-key-old');
    expect(again.statusCode).toBe(201);
    expect(again.json().id).not.toBe(first.json().id);
  });

  it('lets a retry run again after a failure that changed nothing', async () => {
    const post = () =>
      api.app.inject({
        method: 'POST',
        url: '/v1/cron-jobs',
        headers: { ...bearer(DEFAULT_TENANT_KEY), 'idempotency-key': 'job-key-2' },
        payload: { name: 'bad then', schedule: '61 * * * *', prompt: 'hello' },
      });
    expectError(await post(), 422, 'invalid_schedule');
    expectError(await post(), 422, 'invalid_schedule');
  });

  it('answers, stores and replays a keyed answer holding U+0000, streamed or not, with no timer left', async () => {
    llm.setHandler(() => ({ content: 'before\u0000after' }));
    const send = (key: string, stream: boolean) =>
      api.app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: { ...bearer(DEFAULT_TENANT_KEY), 'idempotency-key': key },
        payload: {
          messages: [{ role: 'user', content: 'nul' }],
          ...(stream ? { stream: true } : {}),
        },
      });
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const timersBefore = timers();
    // The streamed content, whichever way the deltas were cut.
    const contentOf = (body: string) =>
      body
        .split('\n\n')
        .filter((event) => event.startsWith('data: {'))
        .map(
          (event) => JSON.parse(event.slice(6)) as { choices: { delta: { content?: string } }[] },
        )
        .map((chunk) => chunk.choices[0]?.delta.content ?? '')
        .join('');
    for (const stream of [false, true]) {
      const key = `nul-key-${stream}`;
      const first = await send(key, stream);
      expect(first.statusCode, first.body).toBe(200);
      expect(first.body).toContain('before');
      const again = await send(key, stream);
      expect(again.statusCode, again.body).toBe(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      if (stream) {
        expect(contentOf(first.body)).toBe('before\u0000after');
        expect(contentOf(again.body)).toBe('before\u0000after');
      } else {
        expect(first.json()).toMatchObject({
          choices: [{ message: { content: 'before\u0000after' } }],
        });
        // Byte for byte: the replay is the first answer, U+0000 included.
        expect(again.rawPayload.equals(first.rawPayload)).toBe(true);
      }
    }
    expect(timers()).toBeLessThanOrEqual(timersBefore);
  });

  it("renews a long turn's pending lease, so a retry during it gets 409, not a second turn", async () => {
    // A lease of 1 s (renewed every 250 ms) stands for the 10 min one; the turn outlasts it.
    const leaseMs = 1000;
    const short = await buildTestApp({
      databaseUrl,
      config: { LLM_API_URL: llm.url },
      idempotencyLeaseMs: leaseMs,
    });
    let release: (() => void) | undefined;
    llm.setHandler((_body, index) =>
      index === 0
        ? new Promise((resolve) => (release = () => resolve({ content: 'the long answer' })))
        : { content: 'a second turn' },
    );
    const send = () =>
      short.app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: { ...bearer(DEFAULT_TENANT_KEY), 'idempotency-key': 'long-turn-key' },
        payload: { messages: [{ role: 'user', content: 'take your time' }] },
      });
    const pendingRow = async () =>
      (
        await withOwner(databaseUrl, (c) =>
          c.query<{ claimed_ms: number; age_ms: number }>(
            `SELECT extract(epoch FROM created_at) * 1000 AS claimed_ms,
                    extract(epoch FROM now() - created_at) * 1000 AS age_ms
               FROM idempotency_keys WHERE key = 'long-turn-key' AND status_code IS NULL`,
          ),
        )
      ).rows[0];
    try {
      const first = send();
      await waitFor(() => expect(release).toBeDefined(), {
        timeoutMs: 10_000,
        what: 'the turn to reach the model',
      });
      const claimed = await pendingRow();
      expect(claimed).toBeDefined();
      const claimedMs = Number(claimed!.claimed_ms);
      // Until more than a lease has passed since the claim, with the lease renewed meanwhile.
      await waitFor(
        async () => {
          const row = await pendingRow();
          expect(Number(row?.claimed_ms)).toBeGreaterThan(claimedMs);
          expect(Number(row?.claimed_ms) + Number(row?.age_ms) - claimedMs).toBeGreaterThan(
            leaseMs * 1.5,
          );
        },
        { timeoutMs: 20_000, intervalMs: 100, what: 'the lease to be renewed past its length' },
      );
      const retry = await send();
      expectError(retry, 409, 'idempotency_key_in_progress');
      expect(llm.calls).toHaveLength(1);
      release!();
      const answer = await first;
      expect(answer.statusCode, answer.body).toBe(200);
      expect(answer.body).toContain('the long answer');
      const replayed = await send();
      expect(replayed.headers['idempotent-replayed']).toBe('true');
      expect(replayed.body).toContain('the long answer');
      expect(llm.calls).toHaveLength(1);
    } finally {
      release?.();
      await short.close();
    }
  });

  it(`keeps at most ${MAX_KEYS_PER_TENANT} keys per tenant, evicting the oldest answered ones`, async () => {
    const { key: tenantKey, tenant } = await createTenantWithKey(api.app, {
      rate_limit_rpm: 10_000,
    });
    llm.setHandler(() => ({ content: 'x'.repeat(1000) }));
    for (let i = 0; i < MAX_KEYS_PER_TENANT + 20; i++) {
      const response = await api.app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: { ...bearer(tenantKey), 'idempotency-key': `cap-${i}` },
        payload: { messages: [{ role: 'user', content: `n${i}` }] },
      });
      expect(response.statusCode).toBe(200);
    }
    const { rows } = await withOwner(databaseUrl, (c) =>
      c.query<{ count: string; oldest: string | null }>(
        'SELECT count(*), min(key) FILTER (WHERE key = $2) AS oldest FROM idempotency_keys WHERE tenant_id = $1',
        [tenant.id, 'cap-0'],
      ),
    );
    expect(Number(rows[0]?.count)).toBe(MAX_KEYS_PER_TENANT);
    expect(rows[0]?.oldest).toBeNull();
  });

  it('stores a created job and its key in one transaction: a failure between leaves neither', async () => {
    const body = { name: 'one transaction', schedule: '@daily', prompt: 'hello' };
    const post = () =>
      api.app.inject({
        method: 'POST',
        url: '/v1/cron-jobs',
        headers: { ...bearer(DEFAULT_TENANT_KEY), 'idempotency-key': 'job-key-tx' },
        payload: body,
      });
    // Storing the key's answer fails, as a crash right after the job's insert would.
    await withOwner(databaseUrl, (c) =>
      c.query(`
        CREATE FUNCTION test_refuse_answer() RETURNS trigger LANGUAGE plpgsql AS
          $$ BEGIN RAISE EXCEPTION 'no answer stored'; END $$;
        CREATE TRIGGER test_refuse_answer BEFORE UPDATE ON idempotency_keys
          FOR EACH ROW WHEN (NEW.key = 'job-key-tx') EXECUTE FUNCTION test_refuse_answer();`),
    );
    try {
      expect((await post()).statusCode).toBe(500);
      expect(await jobsNamed('one transaction')).toHaveLength(0);
    } finally {
      await withOwner(databaseUrl, (c) =>
        c.query(
          'DROP TRIGGER test_refuse_answer ON idempotency_keys; DROP FUNCTION test_refuse_answer()',
        ),
      );
    }
    expect((await post()).statusCode).toBe(201);
    expect((await post()).headers['idempotent-replayed']).toBe('true');
    expect(await jobsNamed('one transaction')).toHaveLength(1);
  });

  it("sweeps every tenant's expired keys, not only those of a tenant that sends another", async () => {
    const { tenant: quiet } = await createTenantWithKey(api.app);
    await withOwner(databaseUrl, (c) =>
      c.query(
        `INSERT INTO idempotency_keys (tenant_id, scope, key, request_hash, status_code, response, created_at)
         SELECT t, 'chat.completions', 'sweep-' || i, 'h', 200, '{}'::jsonb, now() - interval '25 hours'
           FROM unnest($1::uuid[]) t, generate_series(1, 3) i
         UNION ALL SELECT $2::uuid, 'chat.completions', 'sweep-fresh', 'h', 200, '{}'::jsonb, now()`,
        [[quiet.id, DEFAULT_TENANT_ID], quiet.id],
      ),
    );
    expect(await sweepIdempotencyKeys(api.pool)).toBeGreaterThanOrEqual(6);
    const { rows } = await withOwner(databaseUrl, (c) =>
      c.query<{ key: string }>("SELECT key FROM idempotency_keys WHERE key LIKE 'sweep-%'"),
    );
    expect(rows.map((r) => r.key)).toEqual(['sweep-fresh']);
  });
});
