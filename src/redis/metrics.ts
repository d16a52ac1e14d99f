import { Counter, type Registry } from 'prom-client';

/**
 * hermesx_redis_failovers_total: times this pod found a new Redis primary (Sentinel or Cluster
 * failover). Together with the scheduler's caught-up and missed counters it tells what a failover
 * cost. Returns the function that counts one.
 */
export function countRedisFailovers(registry: Registry): () => void {
  const failovers = new Counter({
    name: 'hermesx_redis_failovers_total',
    help: 'Times this pod found a new Redis primary after a Sentinel or Cluster failover',
    registers: [registry],
  });
  return () => failovers.inc();
}
