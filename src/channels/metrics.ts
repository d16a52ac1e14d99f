import { Counter, Histogram, type Registry } from 'prom-client';

/** The channel sender's metrics (docs/operations.md). */
export interface ChannelMetrics {
  attempts: Counter<'kind' | 'outcome'>;
  /** From the run's record (the delivery queued) to the platform's acceptance. */
  deliveryLatency: Histogram<'kind'>;
}

export function createChannelMetrics(registry: Registry): ChannelMetrics {
  const registers = [registry];
  return {
    attempts: new Counter({
      name: 'hermesx_channel_deliveries_total',
      help: 'Channel message attempts by this pod, by channel kind and outcome',
      labelNames: ['kind', 'outcome'],
      registers,
    }),
    deliveryLatency: new Histogram({
      name: 'hermesx_channel_delivery_latency_seconds',
      help: "From a run's record to its channel message's acceptance by the platform",
      labelNames: ['kind'],
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200],
      registers,
    }),
  };
}
