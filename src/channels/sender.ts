// The channel sender: a background loop on every pod that claims due channel deliveries (fairly
// across tenants, leased, SKIP LOCKED: channel_claim_deliveries), renders each from its frozen
// data, sends it (transport.ts) and records the attempt. At least once: a pod that dies mid-send
// leaves its lease to expire and another pod sends the delivery.
import type { Pool } from '../db/pool.js';
import type { Logger } from '../log.js';
import type { Resolver } from '../outbound/request.js';
import type { SecretsVault } from '../secrets/vault.js';
import { systemClock, type Clock } from '../services/clock.js';
import { startLoop, type Loop } from '../services/loop.js';
import type { Service } from '../services/service.js';
import { judgeChannelAttempt } from './attempt-verdict.js';
import type { ChannelMetrics } from './metrics.js';
import { statusOf } from './channels.js';
import type { ChannelConfig } from './kinds.js';
import { renderChannelMessage } from './message.js';
import {
  claimChannelDeliveries,
  finishChannelDelivery,
  pruneChannelDeliveries,
  type ClaimedChannelDelivery,
} from './outbox.js';
import { sendToChannel } from './transport.js';
import { openChannelConfig } from './url-seal.js';

export interface ChannelSenderSettings {
  podId: string;
  retryScheduleMs: readonly number[];
  timeoutMs: number;
  maxConcurrent: number;
  maxPerTenant: number;
  disableAfterMs: number;
  retentionMs?: number | undefined;
  allowPrivateNetworks: boolean;
  publicUrl: string | undefined;
  smtpUrl: string | undefined;
  smtpFrom: string | undefined;
  telegramApiUrl: string;
  idlePollMs?: number;
}

export interface ChannelSenderDeps {
  pool: Pool;
  log: Logger;
  vault: SecretsVault;
  settings: ChannelSenderSettings;
  /** Absent: nothing is counted (tests). */
  metrics?: ChannelMetrics;
  resolve?: Resolver;
  clock?: Clock;
  /** HERMES_SECRETS_KEY: opens sealed Slack, Discord and Teams URLs (src/channels/url-seal.ts). */
  secretsKey?: Buffer | undefined;
}

const IDLE_POLL_MS = 200;
const MAX_CLAIM_BACKOFF_MS = 30_000;
/** SMTP has three timeouts (connect, greeting, socket): the lease covers them and the record. */
const LEASE_MARGIN_MS = 10_000;
const PRUNE_INTERVAL_MS = 10 * 60_000;
const PRUNE_BATCH = 1000;
const FREED_SLOT_BATCH_MS = 5;

export class ChannelSender implements Service {
  readonly name = 'channel sender';
  private running = false;
  private loop: Loop | undefined;
  private readonly clock: Clock;
  private readonly inFlight = new Set<Promise<void>>();
  private lastPruneMs: number | undefined;
  private kickTimer: unknown;

  constructor(private readonly deps: ChannelSenderDeps) {
    this.clock = deps.clock ?? systemClock;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    const { settings, log } = this.deps;
    const idleMs = settings.idlePollMs ?? IDLE_POLL_MS;
    log.info(
      {
        pod: settings.podId,
        max_concurrent: settings.maxConcurrent,
        max_per_tenant: settings.maxPerTenant,
      },
      'channel sender started',
    );
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
          'channel sender: cannot claim deliveries',
        ),
    });
  }

  async stop(graceMs: number): Promise<void> {
    this.running = false;
    if (this.kickTimer !== undefined) this.clock.clearTimeout(this.kickTimer);
    this.kickTimer = undefined;
    await this.loop?.stop();
    let timer: unknown;
    await Promise.race([
      Promise.allSettled([...this.inFlight]),
      new Promise<void>((resolve) => (timer = this.clock.setTimeout(resolve, graceMs))),
    ]);
    this.clock.clearTimeout(timer);
  }

  private async claimRound(): Promise<void> {
    const { settings, pool } = this.deps;
    await this.maybePrune();
    const free = settings.maxConcurrent - this.inFlight.size;
    if (free <= 0) return;
    const claimed = await claimChannelDeliveries(pool, {
      podId: settings.podId,
      limit: free,
      perTenant: settings.maxPerTenant,
      leaseMs: settings.timeoutMs + LEASE_MARGIN_MS,
    });
    for (const delivery of claimed) {
      const work = this.send(delivery);
      this.inFlight.add(work);
      void work.finally(() => {
        this.inFlight.delete(work);
        this.kickSoon();
      });
    }
  }

  /**
   * A freed slot may take what waits (another of the tenant's deliveries, say); deliveries that
   * finish within a few milliseconds of each other share one claim.
   */
  private kickSoon(): void {
    if (!this.running || this.kickTimer !== undefined) return;
    this.kickTimer = this.clock.setTimeout(() => {
      this.kickTimer = undefined;
      this.loop?.kick();
    }, FREED_SLOT_BATCH_MS);
  }

  private async maybePrune(): Promise<void> {
    const { retentionMs } = this.deps.settings;
    if (retentionMs === undefined) return;
    const nowMs = this.clock.now();
    if (this.lastPruneMs !== undefined && nowMs - this.lastPruneMs < PRUNE_INTERVAL_MS) return;
    this.lastPruneMs = nowMs;
    const removed = await pruneChannelDeliveries(this.deps.pool, retentionMs, PRUNE_BATCH);
    if (removed > 0) this.deps.log.info({ removed }, 'channel deliveries pruned');
  }

  private async send(delivery: ClaimedChannelDelivery): Promise<void> {
    const { settings, log, pool, vault } = this.deps;
    const context = {
      delivery_id: delivery.deliveryId,
      channel_id: delivery.channelId,
      tenant_id: delivery.tenantId,
      kind: delivery.kind,
      attempt: delivery.attempts + 1,
    };
    let config: Record<string, unknown>;
    try {
      const owner = { tenantId: delivery.tenantId, channelId: delivery.channelId };
      config = openChannelConfig(this.deps.secretsKey, owner, delivery.config);
    } catch (err) {
      // Nothing sent, nothing recorded: the lease runs out and a pod with the right key sends it.
      log.error(
        { ...context, error: errorText(err) },
        'channel delivery not sent: its URL does not open; it stays pending',
      );
      return;
    }
    try {
      const message = renderChannelMessage(delivery.payload, settings.publicUrl);
      const startedMs = this.clock.now();
      const result = await sendToChannel(
        { ...settings, vault, ...(this.deps.resolve ? { resolve: this.deps.resolve } : {}) },
        delivery.tenantId,
        { kind: delivery.kind, config } as ChannelConfig,
        message,
      );
      const nowMs = this.clock.now();
      const verdict = judgeChannelAttempt(
        result,
        delivery.attempts,
        settings.retryScheduleMs,
        nowMs,
      );
      const answer = await finishChannelDelivery(pool, {
        deliveryId: delivery.deliveryId,
        podId: settings.podId,
        outcome: verdict.outcome,
        statusCode: statusOf(result),
        error:
          'error' in result
            ? result.error
            : verdict.outcome === 'delivered'
              ? null
              : result.response,
        response: 'response' in result ? result.response : null,
        durationMs: nowMs - startedMs,
        nextAttemptAt: verdict.nextAttemptAt,
        disableAfterMs: settings.disableAfterMs,
      });
      const { metrics } = this.deps;
      metrics?.attempts.inc({ kind: delivery.kind, outcome: verdict.outcome });
      if (verdict.outcome === 'delivered') {
        metrics?.deliveryLatency.observe(
          { kind: delivery.kind },
          (nowMs - delivery.createdAt.getTime()) / 1000,
        );
      } else {
        log.info(
          {
            ...context,
            outcome: verdict.outcome,
            status_code: statusOf(result),
            ...('error' in result ? { error: result.error } : {}),
            ...(verdict.nextAttemptAt
              ? { next_attempt_at: verdict.nextAttemptAt.toISOString() }
              : {}),
          },
          'channel delivery failed',
        );
      }
      if (answer.disabled) log.warn(context, 'notification channel disabled: failing');
    } catch (err) {
      // The lease expires and another attempt follows: nothing is lost.
      log.warn({ ...context, error: errorText(err) }, 'channel sender: cannot record an attempt');
    }
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
