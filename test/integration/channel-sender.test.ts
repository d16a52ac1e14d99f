// Channel messages end to end on real PostgreSQL, against stand-ins for each platform on
// loopback: a recorded run queues its message in the recording transaction (trigger), the
// sender renders it within the platform's limits, sends it, honours the platform's throttling
// (Retry-After, retry_after), treats SMTP 4xx as temporary and 5xx as permanent, keeps secret
// values out of everything it stores, and disables a dead channel with a channel.disabled event.
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as channels from '../../src/channels/channels.js';
import { Registry } from 'prom-client';
import { createChannelMetrics } from '../../src/channels/metrics.js';
import { ChannelSender, type ChannelSenderSettings } from '../../src/channels/sender.js';
import type { Pool } from '../../src/db/pool.js';
import { createSecretsVault, type SecretsVault } from '../../src/secrets/vault.js';
import {
  startMailStandIn,
  startPlatformStandIn,
  type MailStandIn,
  type PlatformKind,
  type PlatformStandIn,
} from '../helpers/channel-peers.js';
import { createAppPool, createTestDatabase } from '../helpers/database.js';
import { silentLogger } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';

/** Polls until `fn` gives a value (undefined: not yet). */
function until<T>(fn: () => Promise<T | undefined>, what: string): Promise<T> {
  return waitFor(
    async () => {
      const value = await fn();
      if (value === undefined) throw new Error('not yet');
      return value;
    },
    { timeoutMs: 15_000, what },
  );
}

const PUBLIC_URL = 'https://hermesx.example.com';
const TELEGRAM_TOKEN = '7301946252:AAH-telegram-SECRET-token_x9';
const SMTP_PASSWORD = 'smtp-SECRET-password-42';

let owner: pg.Client;
let pool: Pool;
let vault: SecretsVault;
let mail: MailStandIn;
let telegram: PlatformStandIn;
let sender: ChannelSender;
const registry = new Registry();
const standIns: PlatformStandIn[] = [];

function settings(): ChannelSenderSettings {
  return {
    podId: 'channel-sender-test',
    retryScheduleMs: [300, 300, 300, 300, 300, 300, 300, 300],
    timeoutMs: 3000,
    maxConcurrent: 20,
    maxPerTenant: 5,
    disableAfterMs: 1500,
    allowPrivateNetworks: true,
    publicUrl: PUBLIC_URL,
    smtpUrl: `smtp://127.0.0.1:${mail.port}`,
    smtpFrom: 'HermesX <hermesx@example.com>',
    telegramApiUrl: telegram.url,
    idlePollMs: 50,
  };
}

const deps = (): channels.ChannelDeps => {
  const s = settings();
  return { ...s, pool, vault, maxChannels: 10 };
};

async function newStandIn(kind: PlatformKind): Promise<PlatformStandIn> {
  const standIn = await startPlatformStandIn(kind);
  standIns.push(standIn);
  return standIn;
}

async function newTenantJob(): Promise<{ tenantId: string; jobId: string }> {
  const tenantId = randomUUID();
  const jobId = randomUUID();
  await owner.query(`INSERT INTO tenants (id, name) VALUES ($1, 'channels')`, [tenantId]);
  await owner.query(
    `INSERT INTO cron_jobs (id, tenant_id, name, schedule, prompt)
     VALUES ($1, $2, 'Status watch', '*/5 * * * *', 'check the status page')`,
    [jobId, tenantId],
  );
  return { tenantId, jobId };
}

async function setRules(jobId: string, rules: unknown[]): Promise<void> {
  await owner.query('UPDATE cron_jobs SET notify_rules = $2 WHERE id = $1', [
    jobId,
    JSON.stringify(rules),
  ]);
}

let minute = 0;
/** A run recorded as the scheduler records it: running, then finished by an UPDATE. */
async function recordRun(
  job: { tenantId: string; jobId: string },
  status: 'success' | 'failed',
  result: string | null,
): Promise<string> {
  minute += 1;
  const scheduledAt = new Date(Date.UTC(2026, 0, 1) + minute * 60_000);
  const { rows } = await owner.query<{ id: string }>(
    `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, pod_id)
     VALUES ($1, $2, $3, 'running', 'pod-a') RETURNING id`,
    [job.jobId, job.tenantId, scheduledAt],
  );
  const runId = rows[0]!.id;
  await owner.query(
    `UPDATE cron_job_runs SET status = $2, finished_at = now(), duration_ms = 5, result = $3,
            error = CASE WHEN $2 = 'failed' THEN 'the model server is unreachable' END,
            error_kind = CASE WHEN $2 = 'failed' THEN 'model_unreachable' END
      WHERE id = $1`,
    [runId, status, result],
  );
  return runId;
}

async function deliveryOf(runId: string) {
  return until(async () => {
    const { rows } = await owner.query<{
      id: string;
      status: string;
      attempts: number;
      last_error: string | null;
      last_response: string | null;
    }>(
      `SELECT id, status, attempts, last_error, last_response FROM channel_deliveries
          WHERE run_id = $1 AND status <> 'pending'`,
      [runId],
    );
    return rows[0];
  }, `the delivery of run ${runId} to finish`);
}

async function attemptsOf(deliveryId: string) {
  const { rows } = await owner.query<{
    outcome: string;
    status_code: number | null;
    error: string | null;
  }>(
    'SELECT outcome, status_code, error FROM channel_delivery_attempts WHERE delivery_id = $1 ORDER BY id',
    [deliveryId],
  );
  return rows;
}

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  owner = new pg.Client({ connectionString: databaseUrl });
  await owner.connect();
  pool = createAppPool(databaseUrl);
  vault = createSecretsVault(pool, randomBytes(32));
  mail = await startMailStandIn();
  telegram = await startPlatformStandIn('telegram', { telegramToken: TELEGRAM_TOKEN });
  sender = new ChannelSender({
    pool,
    log: silentLogger(),
    vault,
    settings: settings(),
    metrics: createChannelMetrics(registry),
  });
  sender.start();
});

afterEach(async () => {
  await Promise.all(standIns.splice(0).map((standIn) => standIn.close()));
});

afterAll(async () => {
  await sender?.stop(1000);
  await telegram?.close();
  await mail?.close();
  await pool?.end();
  await owner?.end();
});

const LONG_ANSWER = [
  '# Status report',
  '**All systems** are _mostly_ fine; see [the status page](https://status.example.com).',
  '- api: `200 OK`',
  '- <script>alert(1)</script> & friends',
  ...Array.from(
    { length: 110 },
    (_, i) => `Line ${i}: component ${i} is operational (p99 ${i} ms).`,
  ),
].join('\n');

describe('Slack', () => {
  it('sends Block Kit within the limits, links the run, and waits as Retry-After asks', async () => {
    const slack = await newStandIn('slack');
    const job = await newTenantJob();
    const channel = await channels.createChannel(deps(), job.tenantId, {
      kind: 'slack',
      name: 'ops',
      config: { url: `${slack.url}/services/T000/B000/XXXX` },
    });
    await setRules(job.jobId, [{ channel: channel.id, when: 'always' }]);
    slack.throttle(1, 2);
    const runId = await recordRun(job, 'success', LONG_ANSWER);
    const delivery = await deliveryOf(runId);
    expect(delivery.status).toBe('delivered');
    expect(slack.problems).toEqual([]);
    expect(slack.messages).toHaveLength(1);
    // Retry-After: 2 outweighs the 300 ms of the schedule.
    expect(slack.messages[0]!.receivedAtMs - slack.throttledAtMs[0]!).toBeGreaterThanOrEqual(1900);
    expect((await attemptsOf(delivery.id)).map((a) => [a.outcome, a.status_code])).toEqual([
      ['retry', 429],
      ['delivered', 200],
    ]);
    const body = slack.messages[0]!.body as {
      text: string;
      blocks: { type: string; text?: { text: string }; elements?: { text: string }[] }[];
    };
    expect(body.text).toBe('Status watch: succeeded');
    const sections = body.blocks.filter((block) => block.type === 'section');
    expect(sections.length).toBeGreaterThan(1);
    const text = sections.map((block) => block.text!.text).join('\n');
    expect(text).toContain('*Status report*');
    expect(text).toContain('*All systems*');
    expect(text).toContain('<https://status.example.com|the status page>');
    expect(text).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; friends');
    expect(text).toContain('Line 109');
    expect(body.blocks.at(-1)!.elements![0]!.text).toBe(
      `<${PUBLIC_URL}/jobs/${job.jobId}/runs/${runId}|Open the run in HermesX>`,
    );
  });
});

describe('Discord', () => {
  it('cuts a long answer to one embed with a link, and honours retry_after', async () => {
    const discord = await newStandIn('discord');
    const job = await newTenantJob();
    const channel = await channels.createChannel(deps(), job.tenantId, {
      kind: 'discord',
      name: 'dev',
      config: { url: `${discord.url}/api/webhooks/1/abc` },
    });
    await setRules(job.jobId, [{ channel: channel.id, when: 'always' }]);
    discord.throttle(1, 1);
    const runId = await recordRun(job, 'success', LONG_ANSWER);
    const delivery = await deliveryOf(runId);
    expect(delivery.status).toBe('delivered');
    expect(discord.problems).toEqual([]);
    expect(discord.messages[0]!.receivedAtMs - discord.throttledAtMs[0]!).toBeGreaterThanOrEqual(
      900,
    );
    const embed = (discord.messages[0]!.body.embeds as { description: string; url: string }[])[0]!;
    expect(embed.description.length).toBeLessThanOrEqual(4096);
    expect(embed.description).toContain(
      `… (cut: [the full answer](${PUBLIC_URL}/jobs/${job.jobId}/runs/${runId}))`,
    );
    expect(embed.url).toBe(`${PUBLIC_URL}/jobs/${job.jobId}/runs/${runId}`);
    expect(discord.messages[0]!.body.allowed_mentions).toEqual({ parse: [] });
    expect(delivery.last_response).toContain('"id":"1100');
  });
});

describe('Telegram', () => {
  it('sends MarkdownV2 escaped with the bot token from secrets, never storing the token', async () => {
    const job = await newTenantJob();
    await vault.put(job.tenantId, 'TELEGRAM_TOKEN', TELEGRAM_TOKEN);
    const channel = await channels.createChannel(deps(), job.tenantId, {
      kind: 'telegram',
      name: 'phone',
      config: { bot_token: '{{secrets.TELEGRAM_TOKEN}}', chat_id: -1001234567890 },
    });
    await setRules(job.jobId, [{ channel: channel.id, when: 'failed' }]);
    telegram.throttle(1, 1);
    const before = telegram.messages.length;
    await recordRun(job, 'success', 'fine');
    const runId = await recordRun(job, 'failed', null);
    const delivery = await deliveryOf(runId);
    expect(delivery.status).toBe('delivered');
    expect(telegram.problems).toEqual([]);
    expect(telegram.messages.length - before).toBe(1);
    const sent = telegram.messages.at(-1)!;
    expect(sent.receivedAtMs - telegram.throttledAtMs.at(-1)!).toBeGreaterThanOrEqual(900);
    expect(sent.body.chat_id).toBe(-1001234567890);
    expect(sent.body.text).toContain('model\\_unreachable: the model server is unreachable');
    const attempts = await attemptsOf(delivery.id);
    expect(attempts.map((a) => a.outcome)).toEqual(['retry', 'delivered']);
    const { rows } = await owner.query(
      `SELECT d.*, (SELECT json_agg(a) FROM channel_delivery_attempts a WHERE a.delivery_id = d.id) AS attempts_json
         FROM channel_deliveries d WHERE d.channel_id = $1`,
      [channel.id],
    );
    expect(JSON.stringify(rows)).not.toContain(TELEGRAM_TOKEN);
    const { rows: stored } = await owner.query('SELECT config FROM notify_channels WHERE id = $1', [
      channel.id,
    ]);
    expect(JSON.stringify(stored)).not.toContain(TELEGRAM_TOKEN);
  });
});

describe('Teams', () => {
  it('sends an Adaptive Card with an Open the run action', async () => {
    const teams = await newStandIn('teams');
    const job = await newTenantJob();
    const channel = await channels.createChannel(deps(), job.tenantId, {
      kind: 'teams',
      name: 'ops room',
      config: { url: `${teams.url}/workflows/abc/triggers/manual/paths/invoke?sig=x` },
    });
    await setRules(job.jobId, [{ channel: channel.id, when: 'always' }]);
    const runId = await recordRun(job, 'success', LONG_ANSWER);
    const delivery = await deliveryOf(runId);
    expect(delivery.status).toBe('delivered');
    expect(teams.problems).toEqual([]);
    const card = (teams.messages[0]!.body.attachments as { content: Record<string, unknown> }[])[0]!
      .content as { body: { text: string }[]; actions: { url: string }[] };
    expect(card.body[0]!.text).toBe('Status watch: succeeded');
    expect(card.body[1]!.text).toContain('Line 109');
    expect(card.actions[0]!.url).toBe(`${PUBLIC_URL}/jobs/${job.jobId}/runs/${runId}`);
  });
});

describe('email', () => {
  it("arrives through the server's SMTP with subject, text and sanitized HTML, and no secret", async () => {
    const job = await newTenantJob();
    await vault.put(job.tenantId, 'SMTP_PASS', SMTP_PASSWORD);
    const channel = await channels.createChannel(deps(), job.tenantId, {
      kind: 'email',
      name: 'on-call',
      config: { to: ['oncall@example.com', 'lead@example.com'] },
    });
    await setRules(job.jobId, [
      {
        channel: channel.id,
        when: 'always',
        template: '{{job_name}} says ({{status}}):\n\n{{answer}}\n\nnot {{secrets.SMTP_PASS}}',
      },
    ]);
    const before = mail.mails.length;
    const runId = await recordRun(job, 'success', LONG_ANSWER);
    expect((await deliveryOf(runId)).status).toBe('delivered');
    const received = mail.mails.slice(before);
    expect(received).toHaveLength(1);
    const message = received[0]!;
    expect(message.subject).toBe('[HermesX] Status watch: succeeded');
    expect(message.from?.value[0]).toMatchObject({
      name: 'HermesX',
      address: 'hermesx@example.com',
    });
    expect(message.to && !Array.isArray(message.to) ? message.to.text : '').toBe(
      'oncall@example.com, lead@example.com',
    );
    expect(message.text).toContain('Status watch says (success):');
    expect(message.text).toContain('Line 109');
    expect(message.text).toContain(`Open the run: ${PUBLIC_URL}/jobs/${job.jobId}/runs/${runId}`);
    const html = String(message.html);
    expect(html).toContain('<h1>Status report</h1>');
    expect(html).toContain('<strong>All systems</strong>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('<script>');
    const everything = `${message.subject}\n${message.text}\n${html}`;
    expect(everything).not.toContain(SMTP_PASSWORD);
    expect(everything).toContain('{{secrets.SMTP_PASS}}');
    const counted = await registry.getSingleMetricAsString('hermesx_channel_deliveries_total');
    expect(counted).toMatch(/kind="email",outcome="delivered"} [1-9]/);
    expect(counted).toMatch(/kind="slack",outcome="retry"} [1-9]/);
  });

  it("logs in to the tenant's own SMTP with the password from secrets; 4xx retried, 5xx failed", async () => {
    const own = await startMailStandIn({ auth: { username: 'bot', password: SMTP_PASSWORD } });
    try {
      const job = await newTenantJob();
      await vault.put(job.tenantId, 'SMTP_PASS', SMTP_PASSWORD, ['127.0.0.1']);
      const channel = await channels.createChannel(deps(), job.tenantId, {
        kind: 'email',
        name: 'own smtp',
        config: {
          to: ['team@example.com'],
          smtp: {
            host: '127.0.0.1',
            port: own.port,
            security: 'none',
            username: 'bot',
            password: '{{secrets.SMTP_PASS}}',
            from: 'watch@example.com',
          },
        },
      });
      await setRules(job.jobId, [{ channel: channel.id, when: 'always' }]);
      own.rejectNext(1, 451);
      const first = await recordRun(job, 'success', 'one');
      const retried = await deliveryOf(first);
      expect(retried.status).toBe('delivered');
      expect((await attemptsOf(retried.id)).map((a) => [a.outcome, a.status_code])).toEqual([
        ['retry', 451],
        ['delivered', 250],
      ]);
      expect(own.logins.at(-1)).toEqual({ username: 'bot', password: SMTP_PASSWORD });
      expect(own.mails.at(-1)!.from?.text).toBe('watch@example.com');

      own.rejectNext(1, 550);
      const second = await recordRun(job, 'success', 'two');
      const failed = await deliveryOf(second);
      expect(failed.status).toBe('failed');
      expect((await attemptsOf(failed.id)).map((a) => [a.outcome, a.status_code])).toEqual([
        ['failed', 550],
      ]);
      const { rows } = await owner.query(
        'SELECT last_error, last_response FROM channel_deliveries WHERE channel_id = $1',
        [channel.id],
      );
      expect(JSON.stringify(rows)).not.toContain(SMTP_PASSWORD);
    } finally {
      await own.close();
    }
  });
});

describe('a dead channel', () => {
  it('is disabled after CHANNEL_DISABLE_AFTER of failures, with a channel.disabled webhook event', async () => {
    const slack = await newStandIn('slack');
    slack.failWith(500);
    const job = await newTenantJob();
    const endpointId = randomUUID();
    await owner.query(
      `INSERT INTO webhook_endpoints (id, tenant_id, url, secret) VALUES ($1, $2, 'https://hooks.example.com/x', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')`,
      [endpointId, job.tenantId],
    );
    const channel = await channels.createChannel(deps(), job.tenantId, {
      kind: 'slack',
      name: 'dead',
      config: { url: `${slack.url}/services/dead` },
    });
    await setRules(job.jobId, [{ channel: channel.id, when: 'always' }]);
    await recordRun(job, 'success', 'one');
    const disabled = await until(async () => {
      const { rows } = await owner.query<{ enabled: boolean; disabled_reason: string | null }>(
        'SELECT enabled, disabled_reason FROM notify_channels WHERE id = $1',
        [channel.id],
      );
      return rows[0]!.enabled ? undefined : rows[0];
    }, 'the channel to be disabled');
    expect(disabled.disabled_reason).toBe('failing');
    const { rows: events } = await owner.query<{
      event_type: string;
      payload: Record<string, unknown>;
    }>(
      `SELECT event_type, payload FROM webhook_deliveries
        WHERE endpoint_id = $1 AND event_type = 'channel.disabled'`,
      [endpointId],
    );
    expect(events).toHaveLength(1);
    expect(events[0]!.event_type).toBe('channel.disabled');
    expect(events[0]!.payload).toMatchObject({
      channel_id: channel.id,
      channel_name: 'dead',
      kind: 'slack',
      disabled_reason: 'failing',
    });
    const { rows: pending } = await owner.query(
      `SELECT 1 FROM channel_deliveries WHERE channel_id = $1 AND status = 'pending'`,
      [channel.id],
    );
    expect(pending).toEqual([]);
    // A disabled channel queues nothing more.
    const later = await recordRun(job, 'success', 'two');
    const { rows: none } = await owner.query('SELECT 1 FROM channel_deliveries WHERE run_id = $1', [
      later,
    ]);
    expect(none).toEqual([]);
  });
});

describe('bounds', () => {
  it("holds a tenant to its deliveries in flight, and another tenant's message does not wait behind it", async () => {
    const slow = await startPlatformStandIn('slack', { delayMs: 300 });
    standIns.push(slow);
    const fast = await newStandIn('slack');
    const busy = await newTenantJob();
    const quiet = await newTenantJob();
    const busyChannel = await channels.createChannel(deps(), busy.tenantId, {
      kind: 'slack',
      name: 'busy',
      config: { url: `${slow.url}/services/busy` },
    });
    const quietChannel = await channels.createChannel(deps(), quiet.tenantId, {
      kind: 'slack',
      name: 'quiet',
      config: { url: `${fast.url}/services/quiet` },
    });
    await setRules(busy.jobId, [{ channel: busyChannel.id, when: 'always' }]);
    await setRules(quiet.jobId, [{ channel: quietChannel.id, when: 'always' }]);
    for (let i = 0; i < 20; i++) await recordRun(busy, 'success', `busy ${i}`);
    const quietRun = await recordRun(quiet, 'success', 'quiet');
    expect((await deliveryOf(quietRun)).status).toBe('delivered');
    // 20 messages at 300 ms each, at most 5 at once: at least 1.2 s; the quiet one went first.
    expect(slow.messages.length).toBeLessThan(20);
    await until(
      async () => (slow.messages.length === 20 ? true : undefined),
      "the busy tenant's 20 messages",
    );
    expect(slow.maxOpen).toBeLessThanOrEqual(settings().maxPerTenant);
    expect(slow.maxOpen).toBeGreaterThan(1);
  });
});
