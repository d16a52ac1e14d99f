import type { Redis } from '../redis/connection.js';

export interface RateDecision {
  allowed: boolean;
  remaining: number;
  retryAfterSeconds: number;
}

const WINDOW_MS = 60_000;
/** Local counts kept at most (keys of past windows are dropped first). */
const MAX_LOCAL_KEYS = 100_000;

/**
 * Per-key counts in fixed windows (a minute unless the caller names another length), shared
 * across replicas through Redis; while Redis is unavailable each replica counts on its own rather
 * than refusing or failing open.
 */
export class RateLimiter {
  private local = new Map<string, { window: number; count: number }>();
  private namespace: Promise<string> | undefined;

  /**
   * `installation`: the database's installation id (src/db/installation.ts). Shared keys start
   * with it, because tenant ids repeat across installations (the default tenant's is the same
   * everywhere) and a Redis shared by several (staging and production, test runs) must not let
   * one spend another's budgets.
   */
  constructor(
    private readonly redis: Redis | undefined,
    private readonly installation?: () => Promise<string>,
  ) {}

  /** The shared keys' prefix: `hermesx:rl:` plus the installation id once it is known. */
  private async prefix(): Promise<string> {
    if (!this.installation) return 'hermesx:rl:';
    this.namespace ??= this.installation().catch((err: unknown) => {
      this.namespace = undefined;
      throw err;
    });
    return `hermesx:rl:${await this.namespace}:`;
  }

  async hit(
    key: string,
    limitPerWindow: number,
    nowMs = Date.now(),
    windowMs = WINDOW_MS,
  ): Promise<RateDecision> {
    const window = Math.floor(nowMs / windowMs);
    const scoped = scopedKey(key, windowMs);
    const count =
      (await this.countShared(scoped, window, windowMs)) ?? this.countLocal(scoped, window);
    return {
      allowed: count <= limitPerWindow,
      remaining: Math.max(0, limitPerWindow - count),
      retryAfterSeconds: Math.ceil(((window + 1) * windowMs - nowMs) / 1000),
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
      const value = await this.redis.get(`${await this.prefix()}${key}:${window}`);
      return value === null ? 0 : Number(value);
    } catch {
      return null;
    }
  }

  private readLocal(key: string, window: number): number {
    const entry = this.local.get(key);
    return entry?.window === window ? entry.count : 0;
  }

  private async countShared(key: string, window: number, windowMs: number): Promise<number | null> {
    if (!this.redis || this.redis.status !== 'ready') return null;
    try {
      const redisKey = `${await this.prefix()}${key}:${window}`;
      const results = await this.redis
        .multi()
        .incr(redisKey)
        .pexpire(redisKey, windowMs + 1000)
        .exec();
      const count = results?.[0]?.[1];
      return typeof count === 'number' ? count : null;
    } catch {
      return null;
    }
  }

  private countLocal(key: string, window: number): number {
    const entry = this.local.get(key);
    const count = entry?.window === window ? entry.count + 1 : 1;
    if (this.local.size >= MAX_LOCAL_KEYS && !entry) this.local.clear();
    this.local.set(key, { window, count });
    return count;
  }
}

/** A minute's keys as they always were; another window length gets its own keys. */
function scopedKey(key: string, windowMs: number): string {
  return windowMs === WINDOW_MS ? key : `${key}:w${windowMs}`;
}
