// The webhook sender: a background loop on every pod that claims due deliveries (fairly across
// tenants, leased, SKIP LOCKED: webhook_claim_deliveries), sends each through the outbound guard
// and records the attempt. At least once: a pod that dies mid-send leaves its lease to expire,
// and the delivery goes out again with the same webhook-id.
import type { Pool } from '../db/pool.js';
import type { Logger } from '../log.js';
import { OutboundError, sendOutbound, type Resolver } from '../outbound/request.js';
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

export interface SenderSettings {
  podId: string;
  retryScheduleMs: readonly number[];
  timeoutMs: number;
  maxConcurrent: number;
  maxPerTenant: number;
  disableAfterMs: number;
  /** Finished deliveries older than this are removed (now and then, in batches). */
  retentionMs?: number;
  allowPrivateNetworks: boolean;
  /** How often an idle sender looks for due deliveries. */
  idlePollMs?: number;
}

export interface SenderDeps {
  pool: Pool;
  log: Logger;
  metrics: WebhookMetrics;
  settings: SenderSettings;
  /** HERMES_SECRETS_KEY, to open sealed signing secrets (unset: only plain ones sign). */
  secretsKey?: Buffer | undefined;
  /** Name resolution for the guard (tests); the system resolver by default. */
  resolve?: Resolver;
}

/** Response bodies are read up to this size, for the error text of a failed attempt. */
export const MAX_RESPONSE_BYTES = 4096;
const ERROR_BODY_CHARS = 200;
const MAX_BACKOFF_MS = 30_000;
const FREED_SLOT_BATCH_MS = 5;
const PRUNE_INTERVAL_MS = 10 * 60_000;
const PRUNE_BATCH = 1000;
const PRUNE_BATCHES_PER_ROUND = 20;

export class WebhookSender {
  private running = false;
  private loopDone: Promise<void> | undefined;
  private inFlight = new Set<Promise<void>>();
  private wake: (() => void) | undefined;
  private slotFreed: (() => void) | undefined;
  private failures = 0;
  private lastPruneMs = 0;
  private pruning: Promise<void> | undefined;

  constructor(private readonly deps: SenderDeps) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    const { settings } = this.deps;
    this.deps.log.info(
      {
        pod: settings.podId,
        max_concurrent: settings.maxConcurrent,
        max_per_tenant: settings.maxPerTenant,
        allow_private_networks: settings.allowPrivateNetworks,
      },
      'webhook sender started',
    );
    this.loopDone = this.loop();
  }

  /** Stops claiming; waits up to graceMs for deliveries in flight (their leases cover the rest). */
  async stop(graceMs: number): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loopDone;
    await this.pruning;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight]),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs))),
    ]);
    clearTimeout(timer);
  }

  private async loop(): Promise<void> {
    const { settings, log } = this.deps;
    const idleMs = settings.idlePollMs ?? 200;
    while (this.running) {
      this.maybePrune();
      const free = settings.maxConcurrent - this.inFlight.size;
      let claimedAny = false;
      if (free > 0) {
        try {
          const claimed = await claimDeliveries(this.deps.pool, {
            podId: settings.podId,
            limit: free,
            perTenant: settings.maxPerTenant,
            // Longer than one attempt can take (the guard ends it at timeoutMs), plus time to record it.
            leaseMs: settings.timeoutMs + 5000,
          });
          this.failures = 0;
          for (const delivery of claimed) this.track(this.send(delivery));
          claimedAny = claimed.length > 0;
        } catch (err) {
          this.failures += 1;
          const backoffMs = Math.min(MAX_BACKOFF_MS, idleMs * 2 ** this.failures);
          log.warn(
            { error: errorText(err), pod: settings.podId, retry_in_ms: backoffMs },
            'webhook sender: cannot claim deliveries',
          );
          await this.pause(backoffMs, false);
          continue;
        }
      }
      // After a claim that found work, more may be due (or held back by a tenant's cap): look
      // again as soon as a delivery finishes. An idle sender waits for the next poll.
      await this.pause(idleMs, claimedAny || free <= 0);
    }
  }

  /** Retention, off the claim path: at most one round at a time, every 10 minutes. */
  private maybePrune(): void {
    const { retentionMs } = this.deps.settings;
    if (retentionMs === undefined || this.pruning) return;
    const nowMs = Date.now();
    if (nowMs - this.lastPruneMs < PRUNE_INTERVAL_MS) return;
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
      // Deliveries finishing together share one claim.
      const wake = this.slotFreed;
      if (wake) setTimeout(wake, FREED_SLOT_BATCH_MS);
    });
  }

  private pause(ms: number, wakeOnFreeSlot: boolean): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.wake === done) this.wake = undefined;
        if (this.slotFreed === done) this.slotFreed = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
      if (wakeOnFreeSlot) this.slotFreed = done;
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
      if (delivery.run === null && delivery.payload === null) {
        await cancelDelivery(pool, delivery.deliveryId, settings.podId, 'the run was deleted');
        metrics.attempts.inc({ outcome: 'cancelled' });
        return;
      }
      const message = renderMessage(delivery);
      const secrets = openSigningSecrets(this.deps.secretsKey, delivery, log);
      if (secrets === null) return;
      const startedMs = Date.now();
      const result = await this.attempt(
        delivery.url,
        message.body,
        signMessage(message, secrets, new Date()),
      );
      const durationMs = Date.now() - startedMs;
      const verdict = judgeAttempt(result, delivery.attempts, settings.retryScheduleMs, Date.now());
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
        metrics.deliveryLatency.observe((Date.now() - delivery.createdAt.getTime()) / 1000);
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
