// The scheduler and the LLM, in process: what a scheduled run sends to the model and what it
// records from the answer (startService wires the real cron runner and OpenAI client).
import OpenAI from 'openai';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startService, type RunningService } from '../../src/main.js';
import { cronCallOf, insertJob, runsOf, type RunRow } from '../helpers/cluster.js';
import { createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, FAKE_MODEL, type FakeLlm } from '../helpers/fake-llm.js';
import { capturingLogger, loggedLine } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';

let databaseUrl: string;
let db: pg.Client;
let llm: FakeLlm;
let service: RunningService;
const logged = capturingLogger('json');

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  llm = await startFakeLlm();
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    REDIS_URL: inject('redisUrl'),
    LLM_API_URL: llm.url,
    LLM_MODEL: 'scheduler-test-model',
    SAAS_API_PORT: '0',
    SAAS_API_HOST: '127.0.0.1',
    HERMES_POD_ID: `llm-test-${Math.random().toString(36).slice(2, 8)}`,
    SCHEDULER_POLL_INTERVAL: '2s',
    SCHEDULER_SHUTDOWN_GRACE: '1s',
  });
  service = await startService(config, logged.log);
  await waitFor(() => expect(service.scheduler?.running).toBe(true), {
    timeoutMs: 10_000,
    what: 'the scheduler to start',
  });
});

afterEach(async () => {
  await db.query('DELETE FROM cron_jobs');
  llm.setHandler(() => ({ content: 'ok' }));
});

afterAll(async () => {
  await service?.stop();
  await db?.end();
  await llm?.close();
});

function firstFinishedRun(jobId: string): Promise<RunRow> {
  return waitFor(
    async () => {
      const run = (await runsOf(db, [jobId])).find(
        (r) => r.status !== 'running' && r.status !== 'claimed',
      );
      if (!run) throw new Error('no finished run yet');
      return run;
    },
    { timeoutMs: 10_000, intervalMs: 100, what: 'a finished run' },
  );
}

/** "YYYY-MM-DD HH:MM:SS" wall time of an instant in a zone, computed independently of the product. */
function wallTime(instant: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('sv-SE', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).format(instant);
}

describe('a scheduled run and the LLM', () => {
  it('records the model’s reply and tells the model the job and its occurrence time in the job’s zone', async () => {
    llm.setHandler((body) => ({ content: `reply to ${cronCallOf(body)?.scheduledAt ?? '?'}` }));
    const job = await insertJob(db, {
      name: 'Paris report',
      schedule: '* * * * * *',
      timezone: 'Europe/Paris',
      prompt: 'Say what time it is in Paris.',
    });
    const run = await firstFinishedRun(job.id);
    expect(run).toMatchObject({
      status: 'success',
      error: null,
      result: `reply to ${run.scheduled_at.toISOString()}`,
    });

    const call = llm.calls.find((c) => cronCallOf(c.body)?.jobId === job.id);
    const info = cronCallOf(call?.body)!;
    const body = call?.body as { model: string; messages: { role: string; content: string }[] };
    expect(body.model).toBe('scheduler-test-model');
    expect(body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(info.prompt).toBe('Say what time it is in Paris.');
    expect(info.system).toContain('"Paris report"');
    expect(info.system).toContain(job.id);
    expect(info.system).toContain('Europe/Paris');
    expect(info.system).toContain(wallTime(run.scheduled_at, 'Europe/Paris'));
    // Paris is never at UTC wall time, so the zone was really applied.
    expect(wallTime(run.scheduled_at, 'Europe/Paris')).not.toBe(wallTime(run.scheduled_at, 'UTC'));
    expect(info.scheduledAt).toBe(run.scheduled_at.toISOString());

    const { rows } = await db.query<{ last_run_success: boolean; run_count: string }>(
      'SELECT last_run_success, run_count FROM cron_jobs WHERE id = $1',
      [job.id],
    );
    expect(rows[0]?.last_run_success).toBe(true);
    expect(Number(rows[0]?.run_count)).toBeGreaterThanOrEqual(1);
  });

  it.each([
    {
      what: 'an HTTP 500',
      reply: { status: 500 },
      error: /answered with an error/,
      kind: 'model_error',
    },
    {
      what: 'invalid JSON',
      reply: { rawBody: '{"choices": [' },
      error: /could not be used/,
      kind: 'bad_response',
    },
    {
      what: 'no choices',
      reply: { rawBody: '{"id":"x","choices":[]}' },
      error: /could not be used/,
      kind: 'bad_response',
    },
  ])('records a failed run when the model answers $what', async ({ reply, error, kind }) => {
    llm.setHandler(() => reply);
    const job = await insertJob(db, { name: 'broken', schedule: '* * * * * *', prompt: 'x' });
    const run = await firstFinishedRun(job.id);
    expect(run.status).toBe('failed');
    expect(run.result).toBeNull();
    expect(run.error).toMatch(error);
    expect(run.error_kind).toBe(kind);
    expect(run.attempts).toBe(1);
  });

  it("keeps the model server's secrets out of the run: a generic text, its redacted first line and the run id, details in the log", async () => {
    const upstream =
      'Incorrect API key provided: sk-proj-abc123. https://internal-llm.corp:8443 (org org-42)';
    llm.setHandler(() => ({ status: 401, errorMessage: upstream }));
    const job = await insertJob(db, { name: 'leaky', schedule: '* * * * * *', prompt: 'x' });
    const run = await firstFinishedRun(job.id);
    expect(run).toMatchObject({ status: 'failed', error_kind: 'model_error' });
    expect(run.error).toBe(
      `the model server answered with an error: "Incorrect API key provided: [redacted]. [url] (org [redacted])"; details are in the service log (run id ${run.id})`,
    );
    // The run id is random (it may hold "401" too): the rest of the text is what must be clean.
    const text = (run.error ?? '').replace(run.id, '');
    for (const secret of ['sk-proj', 'internal-llm', 'org-42', '401']) {
      expect(text).not.toContain(secret);
    }
    const { rows } = await db.query<{ last_run_error: string }>(
      'SELECT last_run_error FROM cron_jobs WHERE id = $1',
      [job.id],
    );
    expect(rows[0]?.last_run_error).not.toContain('sk-proj');
    const line = await loggedLine(logged.lines, run.id, 'cron job executed');
    expect(line).toContain('sk-proj-abc123');
  });

  it('sends a throttled request again after Retry-After and records the attempts', async () => {
    const tried = new Map<string, number>();
    llm.setHandler((body) => {
      const at = cronCallOf(body)?.scheduledAt ?? '?';
      const n = (tried.get(at) ?? 0) + 1;
      tried.set(at, n);
      return n === 1
        ? { status: 429, headers: { 'retry-after': '1' }, errorMessage: 'Rate limit reached' }
        : { content: 'after the wait' };
    });
    const job = await insertJob(db, { name: 'throttled', schedule: '* * * * * *', prompt: 'x' });
    const run = await firstFinishedRun(job.id);
    expect(run).toMatchObject({
      status: 'success',
      result: 'after the wait',
      error_kind: null,
      attempts: 2,
    });
    const metrics = await fetch(`${service.url}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/hermesx_model_retries_total\{cause="throttled"\} [1-9]/);
  });

  it('adopts and runs, once, an occurrence a dead pod claimed but never sent to the model', async () => {
    const job = await insertJob(db, { name: 'orphan', schedule: '0 0 1 1 *', prompt: 'adopt me' });
    const scheduledAt = new Date(Date.now() - 5000);
    // The claim a pod made just before it died: no liveness key, no request sent.
    const { rows } = await db.query<{ run_id: string }>(
      `SELECT run_id FROM scheduler_claim($1, $2, $3, 'pod-that-died')`,
      [[job.id], [scheduledAt], [null]],
    );
    const runId = rows[0]?.run_id;
    const run = await waitFor(
      async () => {
        const found = (await runsOf(db, [job.id])).find((r) => r.id === runId);
        if (found?.status !== 'success') throw new Error(`run is ${found?.status}`);
        return found;
      },
      { timeoutMs: 20_000, intervalMs: 200, what: 'the adopted run to succeed' },
    );
    expect(run.pod_id).not.toBe('pod-that-died');
    expect(run).toMatchObject({ error_kind: null, attempts: 1 });
    const calls = llm.calls.filter((call) => cronCallOf(call.body)?.jobId === job.id);
    expect(calls).toHaveLength(1);
    expect(cronCallOf(calls[0]?.body)?.scheduledAt).toBe(scheduledAt.toISOString());
  });

  it('stores an answer holding U+0000 (which PostgreSQL text cannot hold) with the character replaced', async () => {
    llm.setHandler(() => ({ content: 'before\u0000after' }));
    const job = await insertJob(db, { name: 'nul', schedule: '* * * * * *', prompt: 'x' });
    const run = await firstFinishedRun(job.id);
    expect(run).toMatchObject({ status: 'success', result: 'before\uFFFDafter' });
  });

  it('offers a scheduled run only a cronjob tool for its own job: a create is refused', async () => {
    llm.setHandler((body) => {
      const messages = (body as { messages: { role: string }[] }).messages;
      if (messages.at(-1)?.role === 'tool') return { content: 'done without creating' };
      return { toolCalls: [{ id: 'call_1', name: 'cronjob', arguments: '{"action":"create"}' }] };
    });
    const job = await insertJob(db, { name: 'tools', schedule: '* * * * * *', prompt: 'x' });
    const run = await firstFinishedRun(job.id);
    expect(run).toMatchObject({ status: 'success', result: 'done without creating' });
    const requests = llm.calls
      .filter((call) => cronCallOf(call.body)?.jobId === job.id)
      .map(
        (call) =>
          call.body as {
            tools?: {
              function: {
                name: string;
                parameters: { properties: { action: { enum: string[] } } };
              };
            }[];
            messages: { role: string; content: string }[];
          },
      )
      .filter((body) => body.messages.length > 2);
    expect(requests.length).toBeGreaterThan(0);
    const second = requests[0]!;
    // No skills, no allow-list, no notify rule `agent`: the job's own cronjob, which cannot
    // create, and the clock (notify is offered only where a rule would send its message).
    expect(second.tools?.map((tool) => tool.function.name)).toEqual(['cronjob', 'clock']);
    expect(second.tools?.[0]?.function.parameters.properties.action.enum).toEqual([
      'get',
      'list_runs',
      'pause',
    ]);
    expect(second.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(second.messages[3]?.content).toContain('invalid_arguments');
    const { rows } = await db.query('SELECT count(*)::int AS n FROM cron_jobs');
    expect(rows[0]).toEqual({ n: 1 });
  });

  it('fails a run whose model keeps calling tools (step limit)', async () => {
    llm.setHandler(() => ({ toolCalls: [{ name: 'cronjob', arguments: '{}' }] }));
    const job = await insertJob(db, { name: 'loops', schedule: '* * * * * *', prompt: 'x' });
    const run = await firstFinishedRun(job.id);
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/steps/);
    expect(run.error_kind).toBe('tool_limit');
  });
});

describe('the fake LLM', () => {
  it('speaks the OpenAI protocol: models, completions, streaming, tool calls, errors, hangs', async () => {
    const fake = await startFakeLlm({ latencyMs: 5 });
    const client = new OpenAI({ baseURL: fake.url, apiKey: 'none', maxRetries: 0 });
    try {
      expect((await client.models.list()).data.map((m) => m.id)).toEqual([FAKE_MODEL]);

      const completion = await client.chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(completion.object).toBe('chat.completion');
      expect(completion.choices[0]?.message.content).toMatch(/^ok \d{4}-/);
      expect(completion.choices[0]?.finish_reason).toBe('stop');

      fake.setHandler(() => ({
        content: 'streamed reply text',
        toolCalls: [{ id: 'call_1', name: 'cronjob', arguments: '{"a":1}' }],
      }));
      const stream = await client.chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
      });
      let text = '';
      let args = '';
      let chunks = 0;
      let finish: string | null = null;
      for await (const chunk of stream) {
        chunks += 1;
        text += chunk.choices[0]?.delta.content ?? '';
        args += chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      expect(text).toBe('streamed reply text');
      expect(args).toBe('{"a":1}');
      expect(chunks).toBeGreaterThan(3);
      expect(finish).toBe('tool_calls');

      fake.setHandler(() => ({ status: 429 }));
      await expect(
        client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
      ).rejects.toMatchObject({ status: 429 });

      fake.setHandler(() => ({ hang: true }));
      const controller = new AbortController();
      const pending = client.chat.completions.create(
        { model: 'm', messages: [{ role: 'user', content: 'x' }] },
        { signal: controller.signal },
      );
      const index = fake.calls.length;
      await fake.waitForCalls(index + 1, 5000);
      controller.abort();
      await expect(pending).rejects.toThrow();
      await waitFor(() => expect(fake.calls[index]?.aborted).toBe(true), { timeoutMs: 5000 });
      expect(fake.calls[index - 1]?.aborted).toBe(false);
    } finally {
      await fake.close();
    }
  });
});
