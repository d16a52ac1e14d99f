// Slack, Discord and Teams webhook URLs sealed at rest (HERMES_SECRETS_KEY, the tenant secrets'
// cipher) on real PostgreSQL: with a key no row holds the URL in clear text, the API still shows
// its masked start, the sender and the test send still reach a receiver on loopback; a sealed
// value copied to another channel does not open; rows written in plain text (no key) are sealed
// at start and still deliver, and a pod without a key says so at start.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as channels from '../../src/channels/channels.js';
import { createChannelMetrics } from '../../src/channels/metrics.js';
import { ChannelSender, type ChannelSenderSettings } from '../../src/channels/sender.js';
import { sealChannelUrlsAtStart } from '../../src/channels/url-seal.js';
import { maskUrl } from '../../src/channels/views.js';
import type { Pool } from '../../src/db/pool.js';
import { generateSecretsKey, parseSecretsKey } from '../../src/secrets/key.js';
import { createSecretsVault, type SecretsVault } from '../../src/secrets/vault.js';
import {
  startPlatformStandIn,
  type PlatformKind,
  type PlatformStandIn,
} from '../helpers/channel-peers.js';
import { createAppPool, createTestDatabase } from '../helpers/database.js';
import { capturingLogger, silentLogger } from '../helpers/log.js';
import { waitFor } from '../helpers/process-wait.js';

const KEY = parseSecretsKey(generateSecretsKey())!;
const SECRET_PART = 'XyZ-capability-part-9f8e7d';

let owner: pg.Client;
let pool: Pool;
let vault: SecretsVault;
let sender: ChannelSender;
const standIns: PlatformStandIn[] = [];

const SETTINGS: ChannelSenderSettings = {
  podId: 'channel-url-sealing-test',
  retryScheduleMs: [200, 200, 200],
  timeoutMs: 3000,
  maxConcurrent: 10,
  maxPerTenant: 5,
  disableAfterMs: 24 * 3600_000,
  allowPrivateNetworks: true,
  publicUrl: undefined,
  smtpUrl: undefined,
  smtpFrom: undefined,
  telegramApiUrl: 'http://127.0.0.1:9',
  idlePollMs: 50,
};

const deps = (secretsKey: Buffer | null = KEY): channels.ChannelDeps => ({
  ...SETTINGS,
  pool,
  vault,
  maxChannels: 10,
  secretsKey: secretsKey ?? undefined,
});

async function newStandIn(kind: PlatformKind): Promise<PlatformStandIn> {
  const standIn = await startPlatformStandIn(kind);
  standIns.push(standIn);
  return standIn;
}

async function newTenantJob(): Promise<{ tenantId: string; jobId: string }> {
  const tenantId = randomUUID();
  const jobId = randomUUID();
  await owner.query(`INSERT INTO tenants (id, name) VALUES ($1, 'sealing')`, [tenantId]);
  await owner.query(
    `INSERT INTO cron_jobs (id, tenant_id, name, schedule, prompt)
     VALUES ($1, $2, 'digest', '0 8 * * *', 'summarise')`,
    [jobId, tenantId],
  );
  return { tenantId, jobId };
}

const urlOf = (standIn: PlatformStandIn, kind: PlatformKind) =>
  kind === 'discord'
    ? `${standIn.url}/api/webhooks/1234567890/${SECRET_PART}`
    : kind === 'teams'
      ? `${standIn.url}/workflows/abc/triggers/manual/paths/invoke?sig=${SECRET_PART}`
      : `${standIn.url}/services/T0001/B0001/${SECRET_PART}`;

async function storedConfig(channelId: string): Promise<string> {
  const { rows } = await owner.query<{ config: string }>(
    'SELECT config::text AS config FROM notify_channels WHERE id = $1',
    [channelId],
  );
  return rows[0]!.config;
}

let minute = 0;
/** A finished run of the job: its channel delivery is queued by the recording trigger. */
async function recordRun(job: { tenantId: string; jobId: string }): Promise<string> {
  minute += 1;
  const { rows } = await owner.query<{ id: string }>(
    `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, pod_id)
     VALUES ($1, $2, $3, 'running', 'pod-a') RETURNING id`,
    [job.jobId, job.tenantId, new Date(Date.UTC(2026, 0, 1) + minute * 60_000)],
  );
  const runId = rows[0]!.id;
  await owner.query(
    `UPDATE cron_job_runs SET status = 'success', finished_at = now(), duration_ms = 5,
            result = 'all good' WHERE id = $1`,
    [runId],
  );
  return runId;
}

async function deliveredStatus(runId: string): Promise<string> {
  return waitFor(
    async () => {
      const { rows } = await owner.query<{ status: string }>(
        `SELECT status FROM channel_deliveries WHERE run_id = $1 AND status <> 'pending'`,
        [runId],
      );
      if (!rows[0]) throw new Error('still pending');
      return rows[0].status;
    },
    { timeoutMs: 15_000, what: `the delivery of run ${runId}` },
  );
}

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  owner = new pg.Client({ connectionString: databaseUrl });
  await owner.connect();
  pool = createAppPool(databaseUrl);
  vault = createSecretsVault(pool, KEY);
  sender = new ChannelSender({
    pool,
    log: silentLogger(),
    vault,
    settings: SETTINGS,
    metrics: createChannelMetrics(new Registry()),
    secretsKey: KEY,
  });
  sender.start();
});

afterEach(async () => {
  await Promise.all(standIns.splice(0).map((standIn) => standIn.close()));
});

afterAll(async () => {
  await sender?.stop(1000);
  await pool?.end();
  await owner?.end();
});

describe('channel webhook URLs sealed at rest', () => {
  it.each(['slack', 'discord', 'teams'] as const)(
    '%s: the row holds no URL in clear text; the API shows its start; test and run messages arrive',
    async (kind) => {
      const standIn = await newStandIn(kind);
      const job = await newTenantJob();
      const url = urlOf(standIn, kind);
      const created = await channels.createChannel(deps(), job.tenantId, {
        kind,
        name: 'ops',
        config: { url },
      });
      const stored = await storedConfig(created.id);
      expect(stored).not.toContain(SECRET_PART);
      expect(stored).not.toContain(url);
      expect(created.config).toEqual({ url: maskUrl(url) });
      const shown = await channels.getChannel(deps(), job.tenantId, created.id);
      expect(shown.config).toEqual({ url: maskUrl(url) });

      const test = await channels.testChannel(deps(), job.tenantId, created.id, new Date());
      expect(test).toMatchObject({ delivered: true, outcome: 'delivered' });
      expect(standIn.messages).toHaveLength(1);
      expect(standIn.messages[0]!.path).toContain(SECRET_PART);

      await owner.query('UPDATE cron_jobs SET notify_rules = $2 WHERE id = $1', [
        job.jobId,
        JSON.stringify([{ channel: created.id, when: 'always' }]),
      ]);
      expect(await deliveredStatus(await recordRun(job))).toBe('delivered');
      expect(standIn.messages).toHaveLength(2);
      expect(standIn.problems).toEqual([]);
    },
  );

  it('a renamed channel keeps its sealed URL; a new URL is sealed too', async () => {
    const first = await newStandIn('slack');
    const second = await newStandIn('slack');
    const { tenantId } = await newTenantJob();
    const created = await channels.createChannel(deps(), tenantId, {
      kind: 'slack',
      name: 'ops',
      config: { url: urlOf(first, 'slack') },
    });
    await channels.updateChannel(deps(), tenantId, created.id, { name: 'ops-renamed' });
    expect(await channels.testChannel(deps(), tenantId, created.id, new Date())).toMatchObject({
      delivered: true,
    });
    expect(first.messages).toHaveLength(1);
    const changed = await channels.updateChannel(deps(), tenantId, created.id, {
      config: { url: urlOf(second, 'slack') },
    });
    expect(changed.config).toEqual({ url: maskUrl(urlOf(second, 'slack')) });
    expect(await storedConfig(created.id)).not.toContain(SECRET_PART);
    expect(await channels.testChannel(deps(), tenantId, created.id, new Date())).toMatchObject({
      delivered: true,
    });
    expect(second.messages).toHaveLength(1);
  });

  it('a sealed value copied to another channel does not open', async () => {
    const target = await newStandIn('slack');
    const decoy = await newStandIn('slack');
    const { tenantId } = await newTenantJob();
    const sealed = await channels.createChannel(deps(), tenantId, {
      kind: 'slack',
      name: 'ops',
      config: { url: urlOf(target, 'slack') },
    });
    const other = await channels.createChannel(deps(), tenantId, {
      kind: 'slack',
      name: 'other',
      config: { url: urlOf(decoy, 'slack') },
    });
    await owner.query(
      `UPDATE notify_channels SET config = (SELECT config FROM notify_channels WHERE id = $1)
        WHERE id = $2`,
      [sealed.id, other.id],
    );
    const answer = await channels.testChannel(deps(), tenantId, other.id, new Date());
    expect(answer).toMatchObject({ delivered: false, outcome: 'failed' });
    expect(answer.error).toMatch(/URL cannot be decrypted/);
    expect(answer.error).not.toContain(SECRET_PART);
    expect(target.messages).toHaveLength(0);
    expect(decoy.messages).toHaveLength(0);
    // The same value in another tenant's channel does not open either.
    const elsewhere = await newTenantJob();
    const foreign = await channels.createChannel(deps(), elsewhere.tenantId, {
      kind: 'slack',
      name: 'foreign',
      config: { url: urlOf(decoy, 'slack') },
    });
    await owner.query(
      `UPDATE notify_channels SET config = (SELECT config FROM notify_channels WHERE id = $1)
        WHERE id = $2`,
      [sealed.id, foreign.id],
    );
    expect(
      await channels.testChannel(deps(), elsewhere.tenantId, foreign.id, new Date()),
    ).toMatchObject({ delivered: false });
    expect(target.messages).toHaveLength(0);
  });

  it('without a key stores the URL as before and says so at start; the first start with a key seals it', async () => {
    const standIn = await newStandIn('discord');
    const job = await newTenantJob();
    const url = urlOf(standIn, 'discord');
    const plain = await channels.createChannel(deps(null), job.tenantId, {
      kind: 'discord',
      name: 'ops',
      config: { url },
    });
    expect(JSON.parse(await storedConfig(plain.id))).toEqual({ url });
    const withoutKey = capturingLogger();
    await sealChannelUrlsAtStart(pool, undefined, withoutKey.log);
    expect(withoutKey.lines.join('\n')).toMatch(
      /webhook URLs \(Slack, Discord, Teams\) are stored unsealed: HERMES_SECRETS_KEY is not set/,
    );
    expect(JSON.parse(await storedConfig(plain.id))).toEqual({ url });

    const withKey = capturingLogger();
    await sealChannelUrlsAtStart(pool, KEY, withKey.log);
    expect(withKey.lines.join('\n')).toMatch(/notification channel webhook URLs sealed/);
    const stored = await storedConfig(plain.id);
    expect(stored).not.toContain(SECRET_PART);
    expect(JSON.parse(stored)).toMatchObject({ url_shown: maskUrl(url) });
    expect((await channels.getChannel(deps(), job.tenantId, plain.id)).config).toEqual({
      url: maskUrl(url),
    });
    await owner.query('UPDATE cron_jobs SET notify_rules = $2 WHERE id = $1', [
      job.jobId,
      JSON.stringify([{ channel: plain.id, when: 'always' }]),
    ]);
    expect(await deliveredStatus(await recordRun(job))).toBe('delivered');
    expect(standIn.messages).toHaveLength(1);
    // A second pass finds nothing left to seal.
    const again = capturingLogger();
    await sealChannelUrlsAtStart(pool, KEY, again.log);
    expect(again.lines.join('\n')).not.toMatch(/URLs sealed/);
  });
});
