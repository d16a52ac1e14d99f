// The job.paused webhook event in a running service (real scheduler, sender, PostgreSQL, Redis;
// the model is the fake LLM server, the receiver a loopback server verifying signatures): sent
// when the system pauses a job (pause_after_failures after model 500s) and when a user does.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startService, type RunningService } from '../../src/main.js';
import { cronCallOf } from '../helpers/cluster.js';
import { createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { silentLogger } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

const KEY = 'job-paused-test-key-0123456789abcdef';
let db: pg.Client;
let llm: FakeLlm;
let receiver: Receiver;
let service: RunningService;

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  receiver = await startReceiver();
  llm = await startFakeLlm({
    handler: (body) =>
      cronCallOf(body)?.prompt === 'fails'
        ? { status: 500, errorMessage: 'boom' }
        : { content: 'ok' },
  });
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    REDIS_URL: inject('redisUrl'),
    LLM_API_URL: llm.url,
    SAAS_API_PORT: '0',
    SAAS_API_HOST: '127.0.0.1',
    HERMES_API_KEY: KEY,
    HERMES_POD_ID: `job-paused-${Math.random().toString(36).slice(2, 8)}`,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '1s,1s',
    SCHEDULER_POLL_INTERVAL: '2s',
    SCHEDULER_SHUTDOWN_GRACE: '1s',
  });
  service = await startService(config, silentLogger());
  await waitFor(() => expect(service.scheduler?.running).toBe(true), {
    timeoutMs: 10_000,
    what: 'the scheduler to start',
  });
});

afterAll(async () => {
  await service?.stop();
  await db?.end();
  await llm?.close();
  await receiver?.close();
});

async function api(method: string, url: string, body?: unknown) {
  const response = await fetch(`${service.url}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${KEY}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

interface PausedEvent {
  type: string;
  timestamp: string;
  data: { job_id: string; paused_by: string; stopped_by: string | null; paused_reason: string };
}

const pausedEvents = (jobId: string): PausedEvent[] =>
  receiver.received
    .map((message) => message.verified as PausedEvent | null)
    .filter(
      (event): event is PausedEvent => event?.type === 'job.paused' && event.data.job_id === jobId,
    );

describe('job.paused', () => {
  it('is delivered, signed, when the system pauses a job and when a user does', async () => {
    const endpoint = await api('POST', '/v1/webhooks', {
      url: `${receiver.url}/hooks`,
      events: ['job.paused'],
    });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    receiver.secrets.push(endpoint.body.secret as string);
    expect(endpoint.body.events).toEqual(['job.paused']);

    // Every second: below the API's minimum interval, so written as plain SQL would.
    const { rows: inserted } = await db.query<{ id: string }>(
      `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt, pause_after_failures)
       VALUES ('00000000-0000-0000-0000-000000000001', 'fails', '* * * * * *', 'fails', 2)
       RETURNING id`,
    );
    const flakyId = inserted[0]!.id;
    await waitFor(() => expect(pausedEvents(flakyId)).toHaveLength(1), {
      timeoutMs: 20_000,
      what: 'the system pause to be delivered',
    });
    expect(pausedEvents(flakyId)[0]).toMatchObject({
      data: { paused_by: 'system', stopped_by: 'pause_after_failures' },
    });
    expect(pausedEvents(flakyId)[0]!.data.paused_reason).toMatch(/^2 consecutive failed runs/);

    const calm = await api('POST', '/v1/cron-jobs', {
      name: 'calm',
      schedule: '0 0 1 1 *',
      prompt: 'ok',
    });
    const calmId = calm.body.id as string;
    const paused = await api('PATCH', `/v1/cron-jobs/${calmId}`, {
      enabled: false,
      paused_reason: 'holiday',
    });
    expect(paused.status).toBe(200);
    await waitFor(() => expect(pausedEvents(calmId)).toHaveLength(1), {
      timeoutMs: 10_000,
      what: 'the user pause to be delivered',
    });
    expect(pausedEvents(calmId)[0]).toMatchObject({
      data: { paused_by: 'user', stopped_by: null, paused_reason: 'holiday' },
    });
    // Only the event the endpoint asked for: no run.failed of the failing job.
    expect(receiver.received.every((m) => (m.verified as PausedEvent).type === 'job.paused')).toBe(
      true,
    );
    const { rows } = await db.query<{ event_type: string; run_id: string | null }>(
      "SELECT event_type, run_id FROM webhook_deliveries WHERE event_type = 'job.paused'",
    );
    expect(rows).toHaveLength(2);
    expect(rows.every((row) => row.run_id === null)).toBe(true);
  });
});
