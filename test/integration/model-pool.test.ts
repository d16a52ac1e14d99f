// Scheduled runs and chat share one connection pool to the model server per replica, handed out
// fairly across tenants (src/agent/model-gate.ts). With LLM_MAX_CONNECTIONS=2 a tenant's share
// is one connection: while tenant A's scheduled run holds it, A's chat waits for it and tenant
// B's chat goes straight through. The model holds A's run until the test lets it go, so the
// assertions are on the order of events.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startService, type RunningService } from '../../src/main.js';
import { ADMIN_TOKEN, DEFAULT_TENANT_KEY } from '../helpers/api.js';
import { createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm, type FakeReply } from '../helpers/fake-llm.js';
import { silentLogger } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';

let llm: FakeLlm;
let service: RunningService;
const releases: (() => void)[] = [];

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  llm = await startFakeLlm();
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    REDIS_URL: inject('redisUrl'),
    LLM_API_URL: llm.url,
    LLM_MAX_CONNECTIONS: '2',
    HERMES_ACP_TOKEN: ADMIN_TOKEN,
    HERMES_API_KEY: DEFAULT_TENANT_KEY,
    SAAS_API_PORT: '0',
    SAAS_API_HOST: '127.0.0.1',
    HERMES_POD_ID: `pool-test-${Math.random().toString(36).slice(2, 8)}`,
    SCHEDULER_SHUTDOWN_GRACE: '1s',
  });
  service = await startService(config, silentLogger());
  await waitFor(() => expect(service.scheduler?.running).toBe(true), {
    timeoutMs: 10_000,
    what: 'the scheduler to start',
  });
});

afterAll(async () => {
  for (const release of releases) release();
  await service?.stop();
  await llm?.close();
});

async function send(token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

const chat = (key: string, content: string) =>
  send(key, 'POST', '/v1/chat/completions', { messages: [{ role: 'user', content }] });

describe('the model connection pool', () => {
  it("makes a tenant's chat wait behind its own scheduled run, not another tenant's", async () => {
    llm.setHandler((body) => {
      const text = JSON.stringify(body);
      if (!text.includes('running the scheduled job')) return { content: 'chat answered' };
      return new Promise<FakeReply>((resolve) =>
        releases.push(() => resolve({ content: 'run answered' })),
      );
    });
    const job = await send(DEFAULT_TENANT_KEY, 'POST', '/v1/cron-jobs', {
      name: 'held',
      schedule: '0 0 1 1 *',
      prompt: 'say hello',
    });
    expect(job.status).toBe(201);
    const triggered = await send(
      DEFAULT_TENANT_KEY,
      'POST',
      `/v1/cron-jobs/${String(job.json.id)}/trigger`,
      {},
    );
    expect(triggered.status).toBeLessThan(300);
    await waitFor(() => expect(releases).toHaveLength(1), {
      timeoutMs: 30_000,
      what: "A's scheduled run to reach the model",
    });

    // A's chat needs a connection of A's: it waits in A's queue, the model does not see it.
    let aAnswered = false;
    const aChat = chat(DEFAULT_TENANT_KEY, 'hello from A').then((answer) => {
      aAnswered = true;
      return answer;
    });
    const tenant = await send(ADMIN_TOKEN, 'POST', '/v1/tenants', { name: 'tenant b' });
    expect(tenant.status).toBe(201);
    const key = await send(ADMIN_TOKEN, 'POST', '/v1/api-keys', {
      tenant_id: tenant.json.id,
      name: 'b',
    });
    expect(key.status).toBe(201);
    const bAnswer = await chat(String(key.json.key), 'hello from B');
    expect(bAnswer.status).toBe(200);
    // B was answered while A's run still held A's connection and A's chat still waited.
    expect(aAnswered).toBe(false);
    expect(releases).toHaveLength(1);
    const seen = llm.calls.map((c) => JSON.stringify(c.body));
    expect(seen.filter((t) => t.includes('hello from A'))).toHaveLength(0);
    expect(seen.filter((t) => t.includes('hello from B'))).toHaveLength(1);

    releases[0]!();
    const aAnswer = await aChat;
    expect(aAnswer.status).toBe(200);
  }, 60_000);
});
