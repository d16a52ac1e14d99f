import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface WebhookMetrics {
  attempts: Counter<'outcome'>;
  deliveryLatency: Histogram;
  inFlight: Gauge;
}

const OUTCOMES = ['delivered', 'retry', 'failed', 'gone', 'refused', 'cancelled'];

export interface QueueStats {
  pending: number;
  oldestPendingSeconds: number;
}

/**
 * The sender's metrics. The queue gauges read the database when scraped (any pod gives the
 * cluster-wide figure); a failed read keeps the previous value rather than failing the scrape.
 */
export function createWebhookMetrics(
  registry: Registry,
  readStats?: () => Promise<QueueStats>,
): WebhookMetrics {
  const registers = [registry];
  let last: QueueStats = { pending: 0, oldestPendingSeconds: 0 };
  let reading: Promise<QueueStats> | undefined;
  // Both gauges are scraped together: one query serves them.
  const stats = async (): Promise<QueueStats> => {
    if (!readStats) return last;
    reading ??= readStats()
      .then((value) => (last = value))
      .catch(() => last)
      .finally(() => setTimeout(() => (reading = undefined), 0));
    return reading;
  };
  new Gauge({
    name: 'hermesx_webhook_queue_depth',
    help: 'Webhook deliveries waiting to be sent, due now or at a planned retry (all pods)',
    registers,
    async collect() {
      this.set((await stats()).pending);
    },
  });
  new Gauge({
    name: 'hermesx_webhook_oldest_pending_seconds',
    help: 'Age of the oldest webhook delivery not yet delivered or given up (all pods)',
    registers,
    async collect() {
      this.set((await stats()).oldestPendingSeconds);
    },
  });
  const attempts = new Counter({
    name: 'hermesx_webhook_deliveries_total',
    help: 'Webhook delivery attempts by this pod, by outcome (delivered, retry, failed, gone, refused, cancelled)',
    labelNames: ['outcome'],
    registers,
  });
  for (const outcome of OUTCOMES) attempts.inc({ outcome }, 0);
  return {
    attempts,
    deliveryLatency: new Histogram({
      name: 'hermesx_webhook_delivery_latency_seconds',
      help: 'Run recorded to its webhook delivered (2xx), retries included',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 86_400],
      registers,
    }),
    inFlight: new Gauge({
      name: 'hermesx_webhook_deliveries_in_flight',
      help: 'Webhook deliveries being sent by this pod',
      registers,
    }),
  };
}
