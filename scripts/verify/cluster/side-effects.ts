// The whole pipeline in the loop: a job whose runs POST through the http_request tool to a
// loopback receiver (counting Idempotency-Keys), and a webhook endpoint whose receiver counts
// webhook-ids, both through every fault of the verification (the Redis primary failed over, a pod
// SIGKILLed, PostgreSQL restarted).
// At the end: each occurrence ran once at the model, no delivery was lost, and what arrived
// twice arrived with the same id (at-least-once, docs/webhooks.md).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { cronCallOf, runsOf, type RunRow } from '../../../test/helpers/cluster.js';
import { ADMIN_TOKEN, API_KEY, lbFetch, onCleanup, until, type Cluster } from './infra.js';
import type { Report } from './report.js';
import { insertJobRow, occurrenceKey, scenario } from './scenario.js';

const SECTION = '4. Side effects: http_request and webhooks through the faults';
export const EFFECT_JOB = {
  name: 'post the time',
  schedule: '*/2 * * * * *',
  prompt: 'POST the current time to the receiver.',
};
const DRAIN_MS = 20_000;

interface Receipt {
  key: string;
  body: string;
}

export interface Receivers {
  url: string;
  /** http_request POSTs: Idempotency-Key and the occurrence the model put in the body. */
  effects: Receipt[];
  /** Webhook POSTs: webhook-id and the body. */
  hooks: Receipt[];
}

/** Starts the loopback receiver (both paths), the webhook endpoint, the allow-list and the job. */
export async function startSideEffects(c: Cluster, say: (line: string) => void) {
  const receivers = await startReceivers();
  const host = new URL(receivers.url).host;
  const settings = await lbFetch(c, `/v1/tenants/${DEFAULT_TENANT_ID}/agent-settings`, {
    method: 'PUT',
    token: ADMIN_TOKEN,
    body: { http_allowed_hosts: [`http://${host.split(':')[0]}`] },
  });
  if (settings.status !== 200)
    throw new Error(`agent settings: ${settings.status} ${settings.text}`);
  const endpoint = await lbFetch(c, '/v1/webhooks', {
    method: 'POST',
    token: API_KEY,
    body: { url: `${receivers.url}/hooks` },
  });
  if (endpoint.status !== 201) throw new Error(`webhook: ${endpoint.status} ${endpoint.text}`);
  scenario.effectUrl = `${receivers.url}/effects`;
  scenario.effectJobId = randomUUID();
  await insertJobRow(c, EFFECT_JOB, scenario.effectJobId);
  say(
    `side effects: job "${EFFECT_JOB.name}" ${scenario.effectJobId} POSTs to ${scenario.effectUrl}; ` +
      `webhook endpoint → ${receivers.url}/hooks (every event)`,
  );
  return receivers;
}

const DEFAULT_TENANT_ID = '00000000-0000-0000-0000-000000000001';

async function startReceivers(): Promise<Receivers> {
  const effects: Receipt[] = [];
  const hooks: Receipt[] = [];
  const server: Server = createServer((request, response) => {
    void readBody(request).then((body) => {
      const header = (name: string) => String(request.headers[name] ?? '');
      if (request.url === '/effects') effects.push({ key: header('idempotency-key'), body });
      else if (request.url === '/hooks') hooks.push({ key: header('webhook-id'), body });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onCleanup('receivers', () => new Promise((resolve) => server.close(resolve)));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, effects, hooks };
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The model's part in an effect run: POST once, then say it is done. */
export function effectReply(raw: unknown) {
  const cron = cronCallOf(raw);
  if (!cron || cron.jobId !== scenario.effectJobId) return undefined;
  const messages = (raw as { messages?: { role?: string }[] }).messages ?? [];
  if (messages.some((message) => message.role === 'tool')) return { content: 'Posted the time.' };
  const args = {
    method: 'POST',
    url: scenario.effectUrl,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ occurrence: occurrenceKey(cron.jobId, cron.scheduledAt) }),
  };
  return { toolCalls: [{ name: 'http_request', arguments: JSON.stringify(args) }] };
}

export interface EffectCounts {
  runs: number;
  modelCalls: number;
  deliveries: number;
  received: number;
  duplicates: number;
  lost: number;
}

/** After the jobs are disabled and drained: the two checks, and the counts for the report. */
export async function verifySideEffects(
  c: Cluster,
  report: Report,
  say: (line: string) => void,
  receivers: Receivers,
): Promise<EffectCounts> {
  const jobId = scenario.effectJobId ?? '';
  const effects = checkEffects(await runsOf(c.db, [jobId]), receivers.effects);
  report.add(
    SECTION,
    'effectsOnce',
    'each successful run of the job POSTed (0 lost), each occurrence under one Idempotency-Key, no occurrence run twice at the model',
    `${effects.runs} runs, ${effects.received} POSTs, ${effects.keys} keys, ${effects.duplicates} duplicates (same key), ` +
      `${effects.lost} lost, ${effects.twoKeys} occurrences under two keys, ${effects.twice} run twice at the model`,
    effects.runs > 0 && effects.lost === 0 && effects.twoKeys === 0 && effects.twice === 0,
  );
  say('waiting for every webhook delivery to be delivered');
  const settled = await until(
    async () => {
      const { rows } = await c.db.query<{ status: string; n: number }>(
        'SELECT status, count(*)::integer AS n FROM webhook_deliveries GROUP BY status',
      );
      return rows.every((row) => row.status === 'delivered') ? rows : undefined;
    },
    DRAIN_MS,
    250,
  );
  const hooks = await checkHooks(c, receivers.hooks);
  report.add(
    SECTION,
    'webhooksDelivered',
    'every finished run’s delivery delivered and received (0 lost); a repeat only with the same webhook-id and body',
    `${hooks.deliveries} deliveries (${hooks.runDeliveries} for ${hooks.runs} finished runs), ${hooks.received} received, ` +
      `${hooks.duplicates} duplicates (same id), ${hooks.lost} lost, ${hooks.conflicts} ids with two bodies, ` +
      `${hooks.sameEventTwoIds} events under two ids${settled ? '' : `; not all delivered after ${DRAIN_MS / 1000} s`}`,
    settled !== undefined &&
      hooks.lost === 0 &&
      hooks.conflicts === 0 &&
      hooks.sameEventTwoIds === 0 &&
      hooks.runDeliveries === hooks.runs,
  );
  const { rows } = await c.db.query<{ n: number }>(
    'SELECT count(*)::integer AS n FROM cron_job_runs',
  );
  return {
    runs: rows[0]?.n ?? 0,
    modelCalls: c.llm.calls.length,
    deliveries: hooks.deliveries,
    received: hooks.received + effects.received,
    duplicates: hooks.duplicates + effects.duplicates,
    lost: hooks.lost + effects.lost,
  };
}

function checkEffects(runs: RunRow[], receipts: Receipt[]) {
  const keysOf = new Map<string, Set<string>>();
  for (const receipt of receipts) {
    const occurrence = (JSON.parse(receipt.body) as { occurrence?: string }).occurrence ?? '?';
    keysOf.set(occurrence, (keysOf.get(occurrence) ?? new Set()).add(receipt.key));
  }
  const done = runs.filter((run) => run.status === 'success');
  const lost = done.filter(
    (run) => !keysOf.has(occurrenceKey(run.cron_job_id, run.scheduled_at)),
  ).length;
  const keys = new Set(receipts.map((receipt) => receipt.key));
  return {
    runs: runs.length,
    received: receipts.length,
    keys: keys.size,
    duplicates: receipts.length - keys.size,
    lost,
    twoKeys: [...keysOf.values()].filter((set) => set.size > 1).length,
    twice: firstCallsTwice(runs),
  };
}

/** First model requests (no tool result yet) of the effect job, per occurrence. */
const firstCalls = new Map<string, number>();

/** Called by the model handler for every request it answers. */
export function countFirstCall(raw: unknown): void {
  const cron = cronCallOf(raw);
  if (!cron || cron.jobId !== scenario.effectJobId) return;
  const messages = (raw as { messages?: { role?: string }[] }).messages ?? [];
  if (messages.some((message) => message.role === 'tool')) return;
  const key = occurrenceKey(cron.jobId, cron.scheduledAt);
  firstCalls.set(key, (firstCalls.get(key) ?? 0) + 1);
}

/** Occurrences whose first model request was sent more than once: run twice at the model. */
function firstCallsTwice(runs: RunRow[]): number {
  return runs.filter(
    (run) => (firstCalls.get(occurrenceKey(run.cron_job_id, run.scheduled_at)) ?? 0) > 1,
  ).length;
}

async function checkHooks(c: Cluster, receipts: Receipt[]) {
  const { rows: deliveries } = await c.db.query<{
    id: string;
    run_id: string | null;
    event_type: string;
  }>('SELECT id, run_id, event_type FROM webhook_deliveries');
  const { rows: finished } = await c.db.query<{ n: number }>(
    "SELECT count(*)::integer AS n FROM cron_job_runs WHERE status IN ('success', 'failed')",
  );
  const bodiesOf = new Map<string, Set<string>>();
  for (const receipt of receipts) {
    bodiesOf.set(receipt.key, (bodiesOf.get(receipt.key) ?? new Set()).add(receipt.body));
  }
  const idOf = (id: string) => `msg_${id.replaceAll('-', '')}`;
  const lost = deliveries.filter((delivery) => !bodiesOf.has(idOf(delivery.id))).length;
  const eventIds = new Map<string, Set<string>>();
  for (const [id, bodies] of bodiesOf) {
    for (const body of bodies) {
      const event = JSON.parse(body) as { type?: string; data?: { run_id?: string; id?: string } };
      const key = `${event.type}|${event.data?.run_id ?? event.data?.id ?? '?'}`;
      eventIds.set(key, (eventIds.get(key) ?? new Set()).add(id));
    }
  }
  return {
    deliveries: deliveries.length,
    runDeliveries: deliveries.filter((delivery) => delivery.run_id !== null).length,
    runs: finished[0]?.n ?? 0,
    received: receipts.length,
    duplicates: receipts.length - bodiesOf.size,
    lost,
    conflicts: [...bodiesOf.values()].filter((bodies) => bodies.size > 1).length,
    sameEventTwoIds: [...eventIds.values()].filter((ids) => ids.size > 1).length,
  };
}
