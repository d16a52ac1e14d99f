import type { Redis } from '../redis/connection.js';

export interface RateDecision {
  allowed: boolean;
  remaining: number;
  retryAfterSeconds: number;
}

const WINDOW_MS = 60_000;

/**
 * Per-key requests-per-minute in fixed one-minute windows, shared across replicas through Redis;
 * while Redis is unavailable each replica counts on its own rather than refusing or failing open.
 */
export class RateLimiter {
  private local = new Map<string, number>();
  private localWindow = -1;

  constructor(private readonly redis: Redis | undefined) {}

  async hit(key: string, limitPerMinute: number, nowMs = Date.now()): Promise<RateDecision> {
    const window = Math.floor(nowMs / WINDOW_MS);
    const count = (await this.countShared(key, window)) ?? this.countLocal(key, window);
    const retryAfterSeconds = Math.ceil(((window + 1) * WINDOW_MS - nowMs) / 1000);
    return {
      allowed: count <= limitPerMinute,
      remaining: Math.max(0, limitPerMinute - count),
      retryAfterSeconds,
    };
  }

  /** Whether `key` is already over `limitPerMinute` in this window, without counting a hit. */
  async isOver(key: string, limitPerMinute: number, nowMs = Date.now()): Promise<RateDecision> {
    const window = Math.floor(nowMs / WINDOW_MS);
    const count = (await this.readShared(key, window)) ?? this.readLocal(key, window);
    return {
      allowed: count < limitPerMinute,
      remaining: Math.max(0, limitPerMinute - count),
      retryAfterSeconds: Math.ceil(((window + 1) * WINDOW_MS - nowMs) / 1000),
    };
  }

  private async readShared(key: string, window: number): Promise<number | null> {
    if (!this.redis || this.redis.status !== 'ready') return null;
    try {
      const value = await this.redis.get(`hermesx:rl:${key}:${window}`);
      return value === null ? 0 : Number(value);
    } catch {
      return null;
    }
  }

  private readLocal(key: string, window: number): number {
    return window === this.localWindow ? (this.local.get(key) ?? 0) : 0;
  }

  private async countShared(key: string, window: number): Promise<number | null> {
    if (!this.redis || this.redis.status !== 'ready') return null;
    const redisKey = `hermesx:rl:${key}:${window}`;
    try {
      const results = await this.redis
        .multi()
        .incr(redisKey)
        .pexpire(redisKey, WINDOW_MS + 1000)
        .exec();
      const count = results?.[0]?.[1];
      return typeof count === 'number' ? count : null;
    } catch {
      return null;
    }
  }

  private countLocal(key: string, window: number): number {
    if (window !== this.localWindow) {
      this.local.clear();
      this.localWindow = window;
    }
    const count = (this.local.get(key) ?? 0) + 1;
    this.local.set(key, count);
    return count;
  }
}
