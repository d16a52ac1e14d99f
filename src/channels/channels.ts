// The channel domain the REST routes use: channels (create, change, test, delete), the tenant's
// rules (defaults and failure alerts), and deliveries (list, redeliver). Every statement runs in
// withTenant, so RLS keeps tenants apart.
import { randomUUID } from 'node:crypto';
import { withTenant, type Pool, type PoolClient } from '../db/pool.js';
import { CommandError, isUuid, type Page } from '../jobs/commands.js';
import { decodeCursor, encodeCursor } from '../jobs/view.js';
import { judgeAddress, isIpLiteral } from '../outbound/address-policy.js';
import { parseOutboundUrl, resolveWithSystem, type Resolver } from '../outbound/request.js';
import { spendOutboundTest, type SpendOutboundTest } from '../outbound/test-budget.js';
import { judgeChannelAttempt, type ChannelAttemptResult } from './attempt-verdict.js';
import * as store from './channel-store.js';
import { CONFIG_SCHEMAS, type ChannelConfig, type ChannelKind } from './kinds.js';
import { renderChannelMessage } from './message.js';
import { ChannelUrlError, openChannelConfig, sealChannelConfig } from './url-seal.js';
import { sendToChannel, type TransportDeps } from './transport.js';
import {
  toChannelDeliveryView,
  toChannelView,
  type ChannelDeliveryView,
  type ChannelView,
} from './views.js';

export interface ChannelDeps extends TransportDeps {
  pool: Pool;
  maxChannels: number;
  publicUrl: string | undefined;
  /** HERMES_SECRETS_KEY: seals Slack, Discord and Teams URLs at rest; without one they are plain. */
  secretsKey?: Buffer | undefined;
  /** OUTBOUND_TESTS_PER_HOUR: a test message spends one of the tenant's tests. */
  spendTest?: SpendOutboundTest | undefined;
}

export interface ChannelInput {
  kind: ChannelKind;
  name: string;
  config: Record<string, unknown>;
  enabled?: boolean | undefined;
}

export interface TenantRule {
  channel: string;
  when: 'always' | 'failed' | 'recovered' | 'changed' | 'agent' | 'failures' | 'system_paused';
  failures?: number | null | undefined;
  template?: string | null | undefined;
}

export const MAX_TENANT_RULES = 20;
const PAGE_DEFAULT = 20;
const RESOLVE_TIMEOUT_MS = 2000;

export async function createChannel(
  deps: ChannelDeps,
  tenantId: string,
  input: ChannelInput,
): Promise<ChannelView> {
  const config = await checkConfig(deps, input.kind, input.config);
  return withTenant(deps.pool, tenantId, async (client) => {
    // Serialises creates of one tenant, so concurrent requests cannot overshoot the quota.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`channels:${tenantId}`]);
    if ((await store.countChannels(client)) >= deps.maxChannels) {
      throw new CommandError(
        'quota_exceeded',
        `this tenant may have at most ${deps.maxChannels} notification channels (CHANNEL_MAX_CHANNELS); delete one first`,
        409,
      );
    }
    // The id is chosen here: the sealed URL is bound to it.
    const id = randomUUID();
    const row = await store.insertChannel(client, tenantId, {
      id,
      kind: input.kind,
      name: input.name,
      config: sealChannelConfig(deps.secretsKey, { tenantId, channelId: id }, input.kind, config),
      enabled: input.enabled ?? true,
    });
    return toChannelView(row);
  });
}

export async function updateChannel(
  deps: ChannelDeps,
  tenantId: string,
  id: string,
  patch: {
    name?: string | undefined;
    config?: Record<string, unknown> | undefined;
    enabled?: boolean | undefined;
  },
): Promise<ChannelView> {
  return withTenant(deps.pool, tenantId, async (client) => {
    const current = await requireChannel(client, id, true);
    const config =
      patch.config === undefined
        ? current.config
        : sealChannelConfig(
            deps.secretsKey,
            { tenantId, channelId: id },
            current.kind,
            await checkConfig(deps, current.kind, patch.config),
          );
    const row = await store.updateChannel(client, id, {
      name: patch.name ?? current.name,
      config,
      enabled: patch.enabled ?? current.enabled,
    });
    if (!row) throw notFound(id);
    return toChannelView(row);
  });
}

export async function getChannel(deps: ChannelDeps, tenantId: string, id: string) {
  return withTenant(deps.pool, tenantId, async (client) =>
    toChannelView(await requireChannel(client, id)),
  );
}

export async function deleteChannel(deps: ChannelDeps, tenantId: string, id: string) {
  await withTenant(deps.pool, tenantId, async (client) => {
    if (!isUuid(id) || !(await store.deleteChannel(client, id))) throw notFound(id);
  });
}

export async function listChannels(
  deps: Pick<ChannelDeps, 'pool'>,
  tenantId: string,
  page: { limit?: number | undefined; cursor?: string | undefined },
): Promise<Page<ChannelView>> {
  const limit = page.limit ?? PAGE_DEFAULT;
  const before = checkCursor(page.cursor);
  const rows = await withTenant(deps.pool, tenantId, (client) =>
    store.listChannels(client, limit + 1, before),
  );
  return toPage(rows, limit, toChannelView);
}

export interface TestAnswer {
  delivered: boolean;
  outcome: 'delivered' | 'failed' | 'refused';
  status_code: number | null;
  /** What the platform answered (its start), or why there was no answer. */
  response: string | null;
  error: string | null;
  duration_ms: number;
}

const NOT_SENT = {
  delivered: false,
  outcome: 'failed',
  status_code: null,
  response: null,
  duration_ms: 0,
} as const;

/** Sends a test message now (not through the outbox) and says what the platform answered. */
export async function testChannel(
  deps: ChannelDeps,
  tenantId: string,
  id: string,
  now: Date,
): Promise<TestAnswer> {
  const channel = await withTenant(deps.pool, tenantId, (client) => requireChannel(client, id));
  await spendOutboundTest(deps.spendTest, tenantId);
  let config: Record<string, unknown>;
  try {
    config = openChannelConfig(
      deps.secretsKey,
      { tenantId, channelId: channel.id },
      channel.config,
    );
  } catch (err) {
    if (!(err instanceof ChannelUrlError)) throw err;
    return { ...NOT_SENT, error: err.message };
  }
  const message = renderChannelMessage(
    {
      subject: 'test',
      reason: 'test',
      job_name: channel.name,
      finished_at: now.toISOString(),
    },
    deps.publicUrl,
  );
  const startedMs = Date.now();
  const result = await sendToChannel(
    deps,
    tenantId,
    { kind: channel.kind, config } as ChannelConfig,
    message,
  );
  const verdict = judgeChannelAttempt(result, 0, [], Date.now());
  return {
    delivered: verdict.outcome === 'delivered',
    outcome:
      verdict.outcome === 'delivered'
        ? 'delivered'
        : result.kind === 'refused'
          ? 'refused'
          : 'failed',
    status_code: statusOf(result),
    response: 'response' in result ? result.response : null,
    error: 'error' in result ? result.error : null,
    duration_ms: Date.now() - startedMs,
  };
}

export function statusOf(result: ChannelAttemptResult): number | null {
  if (result.kind === 'answered') return result.statusCode;
  if (result.kind === 'smtp') return result.code;
  return null;
}

export async function getTenantRules(
  deps: Pick<ChannelDeps, 'pool'>,
  tenantId: string,
): Promise<{ rules: TenantRule[] }> {
  const rows = await withTenant(deps.pool, tenantId, (client) => store.selectTenantRules(client));
  return { rules: rows.map(toTenantRule) };
}

export async function putTenantRules(
  deps: Pick<ChannelDeps, 'pool'>,
  tenantId: string,
  rules: readonly TenantRule[],
): Promise<{ rules: TenantRule[] }> {
  if (rules.length > MAX_TENANT_RULES) {
    throw new CommandError('too_many_rules', `at most ${MAX_TENANT_RULES} rules`, 422);
  }
  for (const rule of rules) {
    if ((rule.when === 'failures') !== (rule.failures !== undefined && rule.failures !== null)) {
      throw new CommandError(
        'invalid_rule',
        'a rule `failures` needs `failures` (N failed runs in a row), and only it may have one',
        422,
      );
    }
  }
  return withTenant(deps.pool, tenantId, async (client) => {
    await requireChannels(
      client,
      rules.map((rule) => rule.channel),
    );
    await store.replaceTenantRules(
      client,
      tenantId,
      rules.map((rule) => ({
        channel_id: rule.channel,
        notify_when: rule.when,
        failures: rule.failures ?? null,
        template: rule.template ?? null,
      })),
    );
    return { rules: (await store.selectTenantRules(client)).map(toTenantRule) };
  });
}

/** 404 unless every id is a channel of the tenant (a job's rules are checked the same way). */
export async function requireChannels(client: PoolClient, ids: readonly string[]): Promise<void> {
  const unique = [...new Set(ids)];
  const bad = unique.find((id) => !isUuid(id));
  if (bad !== undefined) throw channelNotFound(bad);
  const found = await store.existingChannelIds(client, unique);
  const missing = unique.find((id) => !found.has(id));
  if (missing !== undefined) throw channelNotFound(missing);
}

export async function listChannelDeliveries(
  deps: Pick<ChannelDeps, 'pool'>,
  tenantId: string,
  of: { channelId: string } | { runId: string },
  page: { limit?: number | undefined; cursor?: string | undefined },
): Promise<Page<ChannelDeliveryView>> {
  const limit = page.limit ?? PAGE_DEFAULT;
  const before = checkCursor(page.cursor);
  const rows = await withTenant(deps.pool, tenantId, async (client) => {
    if ('channelId' in of) {
      await requireChannel(client, of.channelId);
    } else if (!isUuid(of.runId)) {
      return [];
    }
    return store.listChannelDeliveries(client, of, limit + 1, before);
  });
  return toPage(rows, limit, toChannelDeliveryView);
}

/** Sends a finished delivery again, now, with the same message; 409 while it is pending. */
export async function redeliverChannelDelivery(
  deps: Pick<ChannelDeps, 'pool'>,
  tenantId: string,
  deliveryId: string,
): Promise<{ id: string; status: 'pending' }> {
  return withTenant(deps.pool, tenantId, async (client) => {
    const delivery = isUuid(deliveryId)
      ? await store.selectChannelDelivery(client, deliveryId)
      : undefined;
    if (!delivery) {
      throw new CommandError('not_found', `no channel delivery with id ${deliveryId}`, 404);
    }
    const channel = await requireChannel(client, delivery.channel_id);
    if (!channel.enabled) {
      throw new CommandError('channel_disabled', 'the channel is disabled; enable it first', 409);
    }
    if (!(await store.requeueChannelDelivery(client, deliveryId))) {
      throw new CommandError('delivery_pending', 'the delivery is still being sent', 409);
    }
    return { id: deliveryId, status: 'pending' as const };
  });
}

function toTenantRule(row: store.TenantRuleRow): TenantRule {
  return {
    channel: row.channel_id,
    when: row.notify_when as TenantRule['when'],
    failures: row.failures,
    template: row.template,
  };
}

/** The kind's schema, and every webhook URL through the guard's rules now (again when sending). */
async function checkConfig(
  deps: ChannelDeps,
  kind: ChannelKind,
  config: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const parsed = CONFIG_SCHEMAS[kind].safeParse(config);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `config.${issue.path.join('.')}: ` : 'config: ';
    throw new CommandError('invalid_config', `${where}${issue?.message ?? 'invalid'}`, 422);
  }
  const value = parsed.data as Record<string, unknown>;
  if (typeof value.url === 'string') value.url = await checkUrl(deps, value.url);
  if (kind === 'email' && value.smtp === undefined && !(deps.smtpUrl && deps.smtpFrom)) {
    throw new CommandError(
      'smtp_not_configured',
      'this server has no SMTP_URL/SMTP_FROM: give the channel its own `smtp` server',
      422,
    );
  }
  const smtp = value.smtp as { host: string; security?: string } | undefined;
  if (smtp?.security === 'none' && !deps.allowPrivateNetworks) {
    throw new CommandError(
      'invalid_config',
      'config.smtp.security: none (no TLS) is allowed only where private networks are (WEBHOOK_ALLOW_PRIVATE_NETWORKS)',
      422,
    );
  }
  if (smtp) await checkHost(deps, smtp.host);
  return value;
}

async function checkUrl(deps: ChannelDeps, text: string): Promise<string> {
  let url: URL;
  try {
    url = parseOutboundUrl(text, { allowHttp: deps.allowPrivateNetworks });
  } catch (err) {
    throw new CommandError('invalid_url', (err as Error).message, 422);
  }
  await checkHost(deps, url.hostname);
  return url.href;
}

async function checkHost(deps: ChannelDeps, hostname: string): Promise<void> {
  if (deps.allowPrivateNetworks) return;
  const literal = isIpLiteral(hostname);
  const addresses = literal
    ? [hostname]
    : await resolveQuietly(deps.resolve ?? resolveWithSystem, hostname);
  for (const address of addresses) {
    const verdict = judgeAddress(address, { allowPrivateNetworks: false });
    if (!verdict.allowed) {
      throw new CommandError(
        'url_not_allowed',
        `${hostname} ${literal ? 'is' : 'resolves to'} ${verdict.reason}: channels may not reach it (WEBHOOK_ALLOW_PRIVATE_NETWORKS is false)`,
        422,
      );
    }
  }
}

async function resolveQuietly(resolve: Resolver, hostname: string): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<[]>(
    (done) => (timer = setTimeout(() => done([]), RESOLVE_TIMEOUT_MS)),
  );
  try {
    const answers = await Promise.race([resolve(hostname).catch(() => []), timeout]);
    return answers.map((answer) => answer.address);
  } finally {
    clearTimeout(timer);
  }
}

async function requireChannel(client: PoolClient, id: string, forUpdate = false) {
  const row = isUuid(id) ? await store.selectChannel(client, id, forUpdate) : undefined;
  if (!row) throw notFound(id);
  return row;
}

function checkCursor(cursor: string | undefined) {
  if (cursor === undefined || cursor === '') return null;
  const decoded = decodeCursor(cursor);
  if (!decoded)
    throw new CommandError('invalid_cursor', 'cursor is not one this API returned', 400);
  return decoded;
}

function toPage<Row extends { page_key: string; id: string }, View>(
  rows: Row[],
  limit: number,
  view: (row: Row) => View,
): Page<View> {
  const data = rows.slice(0, limit);
  const last = data[data.length - 1];
  return {
    data: data.map(view),
    next_cursor: rows.length > limit && last ? encodeCursor(last.page_key, last.id) : null,
  };
}

const notFound = (id: string) =>
  new CommandError('not_found', `no notification channel with id ${id}`, 404);
const channelNotFound = (id: string) =>
  new CommandError('channel_not_found', `no notification channel with id ${id}`, 404);
