// Tenants the dispatcher holds back: the claim answered `capped` (the tenant is at its
// max_concurrent_runs across pods). A held tenant is tried again after CAP_RETRY_MS, or as soon
// as one of its runs here ends; one timer serves all of them.
import type { Clock } from '../services/clock.js';

// A tenant at its cap is tried again after this, or as soon as one of its runs here ends.
export const CAP_RETRY_MS = 1000;

export class TenantHolds {
  /** Held tenants, until when they are not tried. */
  private readonly until = new Map<string, number>();
  private timer: unknown;

  constructor(
    private readonly clock: Clock,
    /** Some hold ran out: there may be something to hand out. */
    private readonly onExpired: () => void,
  ) {}

  get size(): number {
    return this.until.size;
  }

  /** The tenant is held at nowMs. */
  holds(tenantId: string, nowMs: number): boolean {
    return (this.until.get(tenantId) ?? 0) > nowMs;
  }

  hold(tenantId: string): void {
    this.until.set(tenantId, this.clock.now() + CAP_RETRY_MS);
    this.arm();
  }

  /** One of the tenant's runs here ended: it may have room again. */
  release(tenantId: string): void {
    this.until.delete(tenantId);
  }

  clear(): void {
    this.until.clear();
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** One timer for all held tenants, at the earliest release. */
  private arm(): void {
    if (this.timer !== undefined || this.until.size === 0) return;
    const { clock } = this;
    const earliestMs = Math.min(...this.until.values());
    this.timer = clock.setTimeout(
      () => {
        this.timer = undefined;
        const nowMs = clock.now();
        for (const [tenant, untilMs] of this.until) {
          if (untilMs <= nowMs) this.until.delete(tenant);
        }
        this.arm();
        this.onExpired();
      },
      Math.max(0, earliestMs - clock.now()),
    );
  }
}
