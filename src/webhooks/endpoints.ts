// The webhook domain shared by the REST routes and the agent's cronjob tool: endpoints
// (create, change, rotate, delete) and their deliveries (list, redeliver). Every statement runs
// inside withTenant, so RLS keeps tenants apart.
import { randomUUID } from 'node:crypto';
import { withTenant, type Pool, type PoolClient } from '../db/pool.js';
import { CommandError, isUuid, type Page } from '../jobs/commands.js';
import { decodeCursor, encodeCursor } from '../jobs/view.js';
import { judgeAddress, isIpLiteral } from '../outbound/address-policy.js';
import { parseOutboundUrl, resolveWithSystem, type Resolver } from '../outbound/request.js';
import {
  listDeliveries as listDeliveryRows,
  requeueDelivery,
  selectDelivery,
} from './delivery-store.js';
import * as store from './endpoint-store.js';
import type { EventType } from './events.js';
import { generateSecret } from './message.js';
import { storedSecret } from './secret-seal.js';
import {
  toDeliveryView,
  toEndpointView,
  type DeliveryView,
  type EndpointView,
  type EndpointWithSecret,
} from './views.js';

export interface WebhookDeps {
  pool: Pool;
  now: () => Date;
  allowPrivateNetworks: boolean;
  maxEndpoints: number;
  /** HERMES_SECRETS_KEY: seals signing secrets at rest; without one they are stored plain. */
  secretsKey?: Buffer | undefined;
  /** Name resolution for URL checks (tests); the system resolver by default. */
  resolve?: Resolver;
  /**
   * Spends one of the tenant's redeliveries for this hour (WEBHOOK_REDELIVERIES_PER_HOUR): null
   * when allowed, else seconds until the next one.
   */
  spendRedelivery?: ((tenantId: string) => Promise<number | null>) | undefined;
}

export interface EndpointInput {
  url: string;
  events?: EventType[] | null | undefined;
  job_id?: string | null | undefined;
  description?: string | undefined;
  enabled?: boolean | undefined;
}

/** How long the previous secret keeps signing after a rotation. */
export const ROTATION_OVERLAP_SECONDS = 24 * 3600;
const RESOLVE_TIMEOUT_MS = 2000;
const PAGE_DEFAULT = 20;

export async function createEndpoint(
  deps: WebhookDeps,
  tenantId: string,
  input: EndpointInput,
): Promise<EndpointWithSecret> {
  const url = await checkUrl(deps, input.url);
  const secret = generateSecret();
  const id = randomUUID();
  const stored = storedSecret(deps.secretsKey, { tenantId, endpointId: id }, secret);
  return withTenant(deps.pool, tenantId, async (client) => {
    // Serialises creates of one tenant, so concurrent requests cannot overshoot the quota.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`webhooks:${tenantId}`]);
    if ((await store.countEndpoints(client)) >= deps.maxEndpoints) {
      throw new CommandError(
        'quota_exceeded',
        `this tenant may have at most ${deps.maxEndpoints} webhook endpoints; delete one first`,
        409,
      );
    }
    const jobId = await checkJob(client, input.job_id ?? null);
    const row = await store.insertEndpoint(
      client,
      { id, tenantId },
      {
        url,
        description: input.description ?? '',
        events: input.events ?? [],
        cronJobId: jobId,
        enabled: input.enabled ?? true,
      },
      stored,
    );
    return { ...toEndpointView(row, deps.now()), secret };
  });
}

export async function updateEndpoint(
  deps: WebhookDeps,
  tenantId: string,
  id: string,
  patch: Partial<EndpointInput>,
): Promise<EndpointView> {
  const url = patch.url === undefined ? undefined : await checkUrl(deps, patch.url);
  return withTenant(deps.pool, tenantId, async (client) => {
    const current = await requireEndpoint(client, id, true);
    const jobId =
      patch.job_id === undefined ? current.cron_job_id : await checkJob(client, patch.job_id);
    const row = await store.updateEndpoint(client, id, {
      url: url ?? current.url,
      description: patch.description ?? current.description,
      events: patch.events === undefined ? current.events : (patch.events ?? []),
      cronJobId: jobId,
      enabled: patch.enabled ?? current.enabled,
    });
    if (!row) throw notFound(id);
    return toEndpointView(row, deps.now());
  });
}

export async function getEndpoint(
  deps: WebhookDeps,
  tenantId: string,
  id: string,
): Promise<EndpointView> {
  return withTenant(deps.pool, tenantId, async (client) =>
    toEndpointView(await requireEndpoint(client, id), deps.now()),
  );
}

export async function deleteEndpoint(deps: WebhookDeps, tenantId: string, id: string) {
  await withTenant(deps.pool, tenantId, async (client) => {
    if (!isUuid(id) || !(await store.deleteEndpoint(client, id))) throw notFound(id);
  });
}

export async function listEndpoints(
  deps: Pick<WebhookDeps, 'pool' | 'now'>,
  tenantId: string,
  page: { limit?: number | undefined; cursor?: string | undefined; job_id?: string | undefined },
): Promise<Page<EndpointView>> {
  const limit = page.limit ?? PAGE_DEFAULT;
  const before = checkCursor(page.cursor);
  if (page.job_id !== undefined && !isUuid(page.job_id)) return { data: [], next_cursor: null };
  const rows = await withTenant(deps.pool, tenantId, (client) =>
    store.listEndpoints(client, limit + 1, before, page.job_id ?? null),
  );
  return toPage(rows, limit, (row) => toEndpointView(row, deps.now()));
}

/** Limits an endpoint to one job's runs (the agent's cronjob tool attaches jobs this way). */
export async function attachJob(
  deps: Pick<WebhookDeps, 'pool' | 'now'>,
  tenantId: string,
  endpointId: string,
  jobId: string,
): Promise<EndpointView> {
  return withTenant(deps.pool, tenantId, async (client) => {
    const current = await requireEndpoint(client, endpointId, true);
    const row = await store.updateEndpoint(client, endpointId, {
      url: current.url,
      description: current.description,
      events: current.events,
      cronJobId: await checkJob(client, jobId),
      enabled: current.enabled,
    });
    if (!row) throw notFound(endpointId);
    return toEndpointView(row, deps.now());
  });
}

/** A new secret, shown once; the previous one keeps signing beside it for 24 hours. */
export async function rotateSecret(
  deps: WebhookDeps,
  tenantId: string,
  id: string,
): Promise<EndpointWithSecret> {
  const secret = generateSecret();
  return withTenant(deps.pool, tenantId, async (client) => {
    await requireEndpoint(client, id, true);
    const stored = storedSecret(deps.secretsKey, { tenantId, endpointId: id }, secret);
    const row = await store.rotateEndpointSecret(client, id, stored, ROTATION_OVERLAP_SECONDS);
    if (!row) throw notFound(id);
    return { ...toEndpointView(row, deps.now()), secret };
  });
}

export async function listDeliveries(
  deps: Pick<WebhookDeps, 'pool' | 'now'>,
  tenantId: string,
  of: { endpointId: string } | { jobId: string } | { runId: string },
  page: { limit?: number | undefined; cursor?: string | undefined },
): Promise<Page<DeliveryView>> {
  const limit = page.limit ?? PAGE_DEFAULT;
  const before = checkCursor(page.cursor);
  const rows = await withTenant(deps.pool, tenantId, async (client) => {
    if ('endpointId' in of) {
      await requireEndpoint(client, of.endpointId);
      return listDeliveryRows(client, { endpointId: of.endpointId }, limit + 1, before);
    }
    // A run's deliveries (its detail page): none for an id that is not one of the tenant's.
    if ('runId' in of) {
      if (!isUuid(of.runId)) return [];
      return listDeliveryRows(client, { runId: of.runId }, limit + 1, before);
    }
    if (!isUuid(of.jobId) || !(await store.jobExists(client, of.jobId))) {
      throw new CommandError('not_found', `no cron job with id ${of.jobId}`, 404);
    }
    return listDeliveryRows(client, { cronJobId: of.jobId }, limit + 1, before);
  });
  return toPage(rows, limit, toDeliveryView);
}

/** Sends a finished delivery again, now, with the same webhook-id; 409 while it is pending. */
export async function redeliver(
  deps: WebhookDeps,
  tenantId: string,
  deliveryId: string,
): Promise<DeliveryView> {
  return withTenant(deps.pool, tenantId, async (client) => {
    const delivery = isUuid(deliveryId) ? await selectDelivery(client, deliveryId) : undefined;
    if (!delivery) {
      throw new CommandError('not_found', `no webhook delivery with id ${deliveryId}`, 404);
    }
    const endpoint = await requireEndpoint(client, delivery.endpoint_id);
    if (!endpoint.enabled) {
      throw new CommandError('endpoint_disabled', 'the endpoint is disabled; enable it first', 409);
    }
    // Counted before the requeue: each redelivery is a request to the tenant's endpoint.
    const waitSeconds = (await deps.spendRedelivery?.(tenantId)) ?? null;
    if (waitSeconds !== null) {
      throw new CommandError(
        'redelivery_budget',
        `this tenant has used its webhook redeliveries for this hour (WEBHOOK_REDELIVERIES_PER_HOUR); retry in ${waitSeconds}s`,
        429,
        waitSeconds,
      );
    }
    if (!(await requeueDelivery(client, deliveryId))) {
      throw new CommandError('delivery_pending', 'the delivery is still being sent', 409);
    }
    return toDeliveryView((await selectDelivery(client, deliveryId)) ?? delivery);
  });
}

/**
 * https (or http where private networks are allowed); an IP literal, or a name resolving now,
 * to an address the outbound guard refuses is refused here already (the sender checks again at
 * connect time, so a name that changes later is still refused).
 */
async function checkUrl(deps: WebhookDeps, text: string): Promise<string> {
  let url: URL;
  try {
    url = parseOutboundUrl(text, { allowHttp: deps.allowPrivateNetworks });
  } catch (err) {
    throw new CommandError('invalid_url', (err as Error).message, 422);
  }
  if (deps.allowPrivateNetworks) return url.href;
  const policy = { allowPrivateNetworks: false };
  const literal = isIpLiteral(url.hostname);
  const addresses = literal
    ? [url.hostname]
    : await resolveQuietly(deps.resolve ?? resolveWithSystem, url.hostname);
  for (const address of addresses) {
    const verdict = judgeAddress(address, policy);
    if (!verdict.allowed) {
      // The rule, never the resolved address: that is the operator's DNS, not the tenant's.
      const what = literal ? 'is' : 'resolves to';
      throw new CommandError(
        'url_not_allowed',
        `${url.hostname} ${what} ${verdict.reason}: webhooks may not reach it (WEBHOOK_ALLOW_PRIVATE_NETWORKS is false)`,
        422,
      );
    }
  }
  return url.href;
}

/** The name's addresses, or none when it does not resolve in time (checked again when sending). */
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

async function checkJob(client: PoolClient, jobId: string | null): Promise<string | null> {
  if (jobId === null) return null;
  if (!isUuid(jobId) || !(await store.jobExists(client, jobId))) {
    throw new CommandError('job_not_found', `no cron job with id ${jobId}`, 404);
  }
  return jobId;
}

async function requireEndpoint(client: PoolClient, id: string, forUpdate = false) {
  const row = isUuid(id) ? await store.selectEndpoint(client, id, forUpdate) : undefined;
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
  new CommandError('not_found', `no webhook endpoint with id ${id}`, 404);
