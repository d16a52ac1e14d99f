// The webhook sender: a background loop on every pod that claims due deliveries (fairly across
// tenants, leased, SKIP LOCKED: webhook_claim_deliveries), sends each through the outbound guard
// and records the attempt. At least once: a pod that dies mid-send leaves its lease to expire,
// and the delivery goes out again with the same webhook-id.
import type { Pool } from '../db/pool.js';
import type { Logger } from '../log.js';
import { OutboundError, sendOutbound, type Resolver } from '../outbound/request.js';
import { systemClock, type Clock } from '../services/clock.js';
import { startLoop, type Loop } from '../services/loop.js';
import type { Service } from '../services/service.js';
import { traceDelivery } from '../tracing/delivery-span.js';
import type { Tracing } from '../tracing/tracing.js';
import { renderMessage, signMessage } from './message.js';
import type { WebhookMetrics } from './metrics.js';
import {
  cancelDelivery,
  claimDeliveries,
  finishDelivery,
  pruneDeliveries,
  type ClaimedDelivery,
} from './outbox.js';
import { judgeAttempt, type AttemptResult } from './retry-policy.js';
import { openSigningSecrets } from './secret-seal.js';
import {
  DEFAULT_IDLE_POLL_MS,
  FREED_SLOT_BATCH_MS,
  LEASE_MARGIN_MS,
  MAX_CLAIM_BACKOFF_MS,
  MAX_RESPONSE_BYTES,
  PRUNE_BATCH,
  PRUNE_BATCHES_PER_ROUND,
  PRUNE_INTERVAL_MS,
  type SenderSettings,
} from './sender-settings.js';

export interface SenderDeps {
  pool: Pool;
  log: Logger;
  metrics: WebhookMetrics;
  settings: SenderSettings;
  /** HERMES_SECRETS_KEY, to open sealed signing secrets (unset: only plain ones sign). */
  secretsKey?: Buffer | undefined;
  /** Name resolution for the guard (tests); the system resolver by default. */
  resolve?: Resolver;
  /** Polls, back-offs, the retention round and the stop's grace; the system clock by default. */
  clock?: Clock;
  /** Each attempt a `webhook.deliver` span (src/tracing/); absent or off: none. */
  tracing?: Tracing | undefined;
}

const ERROR_BODY_CHARS = 200;

export class WebhookSender implements Service {
  readonly name = 'webhook sender';
  private running = false;
  private loop: Loop | undefined;
  private readonly clock: Clock;
  private inFlight = new Set<Promise<void>>();
  /** The loop waits for a slot to free (all were busy, or the last claim found work). */
  private waitingForSlot = false;
  private slotFreedTimer: unknown;
  private lastPruneMs: number | undefined;
  private pruning: Promise<void> | undefined;

  constructor(private readonly deps: SenderDeps) {
    this.clock = deps.clock ?? systemClock;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    const { settings, log } = this.deps;
    log.info(
      {
        pod: settings.podId,
        max_concurrent: settings.maxConcurrent,
        max_per_tenant: settings.maxPerTenant,
        allow_private_networks: settings.allowPrivateNetworks,
      },
      'webhook sender started',
    );
    const idleMs = settings.idlePollMs ?? DEFAULT_IDLE_POLL_MS;
    this.loop = startLoop({
      name: this.name,
      intervalMs: idleMs,
      clock: this.clock,
      log,
      round: () => this.claimRound(),
      immediate: true,
      backoff: { firstMs: 2 * idleMs, maxMs: MAX_CLAIM_BACKOFF_MS },
      onFailure: (err, _failures, retryInMs) =>
        log.warn(
          { error: errorText(err), pod: settings.podId, retry_in_ms: retryInMs },
          'webhook sender: cannot claim deliveries',
        ),
    });
  }

  /** Stops claiming; waits up to graceMs for deliveries in flight (their leases cover the rest). */
  async stop(graceMs: number): Promise<void> {
    this.running = false;
    if (this.slotFreedTimer !== undefined) this.clock.clearTimeout(this.slotFreedTimer);
    this.slotFreedTimer = undefined;
    await this.loop?.stop();
    await this.pruning;
    let timer: unknown;
    await Promise.race([
      Promise.allSettled([...this.inFlight]),
      new Promise<void>((resolve) => (timer = this.clock.setTimeout(resolve, graceMs))),
    ]);
    this.clock.clearTimeout(timer);
  }

  /**
   * Claims what the free slots can take. After a claim that found work, more may be due (or held
   * back by a tenant's cap): the next round comes as soon as a delivery finishes. An idle sender
   * waits for the next poll.
   */
  private async claimRound(): Promise<void> {
    const { settings } = this.deps;
    this.waitingForSlot = false;
    this.maybePrune();
    const free = settings.maxConcurrent - this.inFlight.size;
    let claimedAny = false;
    if (free > 0) {
      const claimed = await claimDeliveries(this.deps.pool, {
        podId: settings.podId,
        limit: free,
        perTenant: settings.maxPerTenant,
        leaseMs: settings.timeoutMs + LEASE_MARGIN_MS,
      });
      for (const delivery of claimed) this.track(this.send(delivery));
      claimedAny = claimed.length > 0;
    }
    this.waitingForSlot = claimedAny || free <= 0;
  }

  /** Retention, off the claim path: at most one round at a time, every 10 minutes. */
  private maybePrune(): void {
    const { retentionMs } = this.deps.settings;
    if (retentionMs === undefined || this.pruning) return;
    const nowMs = this.clock.now();
    if (this.lastPruneMs !== undefined && nowMs - this.lastPruneMs < PRUNE_INTERVAL_MS) return;
    this.lastPruneMs = nowMs;
    this.pruning = this.pruneRound(retentionMs).finally(() => (this.pruning = undefined));
  }

  private async pruneRound(retentionMs: number): Promise<void> {
    const { pool, log, settings } = this.deps;
    try {
      let removed = 0;
      for (let batch = 0; batch < PRUNE_BATCHES_PER_ROUND && this.running; batch++) {
        const count = await pruneDeliveries(pool, retentionMs, PRUNE_BATCH);
        removed += count;
        if (count < PRUNE_BATCH) break;
      }
      if (removed > 0) log.info({ pod: settings.podId, removed }, 'webhook deliveries pruned');
    } catch (err) {
      // The next round (10 minutes on) tries again.
      log.warn({ pod: settings.podId, error: errorText(err) }, 'webhook sender: cannot prune');
    }
  }

  private track(work: Promise<void>): void {
    this.inFlight.add(work);
    this.deps.metrics.inFlight.set(this.inFlight.size);
    void work.finally(() => {
      this.inFlight.delete(work);
      this.deps.metrics.inFlight.set(this.inFlight.size);
      if (!this.waitingForSlot || !this.running) return;
      // Deliveries finishing together share one claim.
      this.waitingForSlot = false;
      this.slotFreedTimer = this.clock.setTimeout(() => {
        this.slotFreedTimer = undefined;
        this.loop?.kick();
      }, FREED_SLOT_BATCH_MS);
    });
  }

  private async send(delivery: ClaimedDelivery): Promise<void> {
    const { settings, log, metrics, pool } = this.deps;
    const context = {
      delivery_id: delivery.deliveryId,
      endpoint_id: delivery.endpointId,
      tenant_id: delivery.tenantId,
      attempt: delivery.attempts + 1,
    };
    try {
      if (delivery.payload === null) {
        await cancelDelivery(pool, delivery.deliveryId, settings.podId, 'the run was deleted');
        metrics.attempts.inc({ outcome: 'cancelled' });
        return;
      }
      const message = renderMessage(delivery);
      const secrets = openSigningSecrets(this.deps.secretsKey, delivery, log);
      if (secrets === null) return;
      const startedMs = this.clock.now();
      const result = await traceDelivery(this.deps.tracing, delivery, context.attempt, () =>
        this.attempt(
          delivery.url,
          message.body,
          signMessage(message, secrets, new Date(startedMs)),
        ),
      );
      const durationMs = this.clock.now() - startedMs;
      const verdict = judgeAttempt(
        result,
        delivery.attempts,
        settings.retryScheduleMs,
        this.clock.now(),
      );
      const answer = await finishDelivery(pool, {
        deliveryId: delivery.deliveryId,
        podId: settings.podId,
        outcome: verdict.outcome,
        statusCode: result.kind === 'answered' ? result.statusCode : null,
        error: result.kind === 'answered' ? answerError(result) : result.error,
        durationMs,
        nextAttemptAt: verdict.nextAttemptAt,
        disableAfterMs: settings.disableAfterMs,
      });
      metrics.attempts.inc({ outcome: verdict.outcome });
      if (verdict.outcome === 'delivered') {
        metrics.deliveryLatency.observe((this.clock.now() - delivery.createdAt.getTime()) / 1000);
        return;
      }
      const line = {
        ...context,
        outcome: verdict.outcome,
        ...(result.kind === 'answered'
          ? { status_code: result.statusCode }
          : { error: result.error }),
        ...(verdict.nextAttemptAt ? { next_attempt_at: verdict.nextAttemptAt.toISOString() } : {}),
      };
      log.info(line, 'webhook delivery failed');
      if (answer.disabledReason !== null) {
        log.warn({ ...context, reason: answer.disabledReason }, 'webhook endpoint disabled');
      }
    } catch (err) {
      // The lease expires and another attempt follows: nothing is lost.
      log.warn({ ...context, error: errorText(err) }, 'webhook sender: cannot record an attempt');
    }
  }

  private async attempt(
    url: string,
    body: string,
    signature: Record<string, string>,
  ): Promise<AttemptResult & { body?: string }> {
    const { settings } = this.deps;
    try {
      const response = await sendOutbound({
        url,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'HermesX-Webhooks/1',
          ...signature,
        },
        body,
        policy: { allowPrivateNetworks: settings.allowPrivateNetworks },
        timeoutMs: settings.timeoutMs,
        maxResponseBytes: MAX_RESPONSE_BYTES,
        ...(this.deps.resolve ? { resolve: this.deps.resolve } : {}),
      });
      const retryAfter = response.headers['retry-after'];
      return {
        kind: 'answered',
        statusCode: response.status,
        retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
        body: response.body.toString('utf8'),
      };
    } catch (err) {
      if (!(err instanceof OutboundError)) return { kind: 'connect', error: errorText(err) };
      if (
        err.kind === 'blocked_address' ||
        err.kind === 'invalid_url' ||
        err.kind === 'redirect_refused'
      ) {
        return { kind: 'refused', error: err.message };
      }
      if (err.kind === 'timeout') return { kind: 'timeout', error: err.message };
      return { kind: 'connect', error: err.message };
    }
  }
}

function answerError(result: { statusCode: number; body?: string }): string | null {
  if (result.statusCode >= 200 && result.statusCode < 300) return null;
  const snippet = (result.body ?? '').slice(0, ERROR_BODY_CHARS).trim();
  return snippet === '' ? `HTTP ${result.statusCode}` : `HTTP ${result.statusCode}: ${snippet}`;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
