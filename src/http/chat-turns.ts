// Chat turns in flight per tenant, counted across replicas in Redis: a tenant holding many slow
// turns at once would otherwise take every connection to the model server (the model clients
// share one pool) and make every other tenant's chat wait. Each turn holds a lease that expires
// by itself, so a replica that dies mid-turn frees its tenant's slots; while Redis is unavailable
// each replica counts on its own rather than refusing or letting everything through.
import { randomBytes } from 'node:crypto';
import type { Redis } from '../redis/connection.js';

// Drops expired leases, then takes one if fewer than the limit are held. KEYS[1]: the tenant's
// sorted set (member: lease token, score: expiry ms). ARGV: now ms, expiry ms, token, limit.
const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('PEXPIREAT', KEYS[1], ARGV[2])
return 1`;

export type Release = () => Promise<void>;

export class ChatTurnLimiter {
  private readonly local = new Map<string, number>();

  constructor(private readonly redis: Redis | undefined) {}

  /** A release function when the tenant has a slot free, null when it is at its limit. */
  async acquire(tenantId: string, limit: number, leaseMs: number): Promise<Release | null> {
    const shared = await this.acquireShared(tenantId, limit, leaseMs);
    if (shared !== undefined) return shared;
    const held = this.local.get(tenantId) ?? 0;
    if (held >= limit) return null;
    this.local.set(tenantId, held + 1);
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      const now = (this.local.get(tenantId) ?? 1) - 1;
      if (now > 0) this.local.set(tenantId, now);
      else this.local.delete(tenantId);
    };
  }

  /** undefined: Redis could not answer (count locally). */
  private async acquireShared(
    tenantId: string,
    limit: number,
    leaseMs: number,
  ): Promise<Release | null | undefined> {
    const redis = this.redis;
    if (!redis || redis.status !== 'ready') return undefined;
    const key = `hermesx:chat-turns:${tenantId}`;
    const token = randomBytes(8).toString('hex');
    const nowMs = Date.now();
    try {
      const taken = await redis.eval(ACQUIRE, 1, key, nowMs, nowMs + leaseMs, token, limit);
      if (taken !== 1) return null;
    } catch {
      return undefined;
    }
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      await redis.zrem(key, token).catch(() => undefined);
    };
  }
}
