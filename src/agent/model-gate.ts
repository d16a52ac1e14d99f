// Fair queuing in front of the model connection pool. Every model request (chat, streamed chat,
// scheduled runs) takes a slot here before it takes a socket, so the pool's own queue never
// forms: one tenant's flood of slow requests waits in that tenant's queue, and a slot that frees
// goes to the next tenant in turn (round-robin), not to the oldest request. A tenant also holds
// at most `perTenantSlots` at once, so the rest of the pool is always there for the others even
// while every slot of that tenant is held by a slow model. Pure: no I/O, no clocks.

export interface GateLimits {
  /** Requests in flight at once, every tenant together (the connection pool's size). */
  slots: number;
  /** Requests in flight at once for one tenant. */
  perTenantSlots: number;
  /** Requests of one tenant waiting for a slot; one more is refused. */
  maxQueuedPerTenant: number;
}

/** A tenant's share when the settings do not say: the last quarter is kept for the others. */
export function defaultPerTenantConnections(maxConnections: number): number {
  return Math.max(1, Math.floor((maxConnections * 3) / 4));
}

/** Gives the slot back (idempotent). */
export type ReleaseSlot = () => void;

export class GateQueueFull extends Error {
  override name = 'GateQueueFull';
}

interface Waiter {
  grant: (release: ReleaseSlot) => void;
}

export interface GateSnapshot {
  active: number;
  held: Record<string, number>;
  queued: Record<string, number>;
}

export class FairGate {
  private active = 0;
  private readonly held = new Map<string, number>();
  // Tenants with requests waiting, in turn order: a tenant served moves to the back.
  private readonly queues = new Map<string, Waiter[]>();

  constructor(private readonly limits: GateLimits) {
    if (limits.slots < 1 || limits.perTenantSlots < 1 || limits.maxQueuedPerTenant < 0) {
      throw new RangeError('a gate needs at least one slot');
    }
  }

  /**
   * A slot for one request of this tenant: at once when one is free and the tenant is not
   * waiting already, else when its turn comes. Rejects with GateQueueFull when the tenant's
   * queue is full, and with the signal's reason when aborted while waiting.
   */
  acquire(tenant: string, signal?: AbortSignal): Promise<ReleaseSlot> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (!this.queues.has(tenant) && this.canTake(tenant)) {
      return Promise.resolve(this.take(tenant));
    }
    const queue = this.queues.get(tenant) ?? [];
    if (queue.length >= this.limits.maxQueuedPerTenant) {
      return Promise.reject(
        new GateQueueFull(
          `${queue.length} model requests of this tenant are already waiting for a connection`,
        ),
      );
    }
    return new Promise<ReleaseSlot>((resolve, reject) => {
      const onAbort = () => {
        this.forget(tenant, waiter);
        reject(signal?.reason as Error);
      };
      const waiter: Waiter = {
        grant: (release) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      queue.push(waiter);
      this.queues.set(tenant, queue);
      // A tenant under its share may be granted at once even behind others at theirs.
      this.dispatch();
    });
  }

  /** Who holds and who waits (for metrics and tests). */
  snapshot(): GateSnapshot {
    return {
      active: this.active,
      held: Object.fromEntries(this.held),
      queued: Object.fromEntries([...this.queues].map(([tenant, q]) => [tenant, q.length])),
    };
  }

  private canTake(tenant: string): boolean {
    return (
      this.active < this.limits.slots && (this.held.get(tenant) ?? 0) < this.limits.perTenantSlots
    );
  }

  private take(tenant: string): ReleaseSlot {
    this.active += 1;
    this.held.set(tenant, (this.held.get(tenant) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active -= 1;
      const now = (this.held.get(tenant) ?? 1) - 1;
      if (now > 0) this.held.set(tenant, now);
      else this.held.delete(tenant);
      this.dispatch();
    };
  }

  /** Hands free slots out one per tenant per turn, skipping tenants at their share. */
  private dispatch(): void {
    while (this.active < this.limits.slots) {
      let served = false;
      for (const [tenant, queue] of this.queues) {
        if (!this.canTake(tenant)) continue;
        const waiter = queue.shift() as Waiter;
        // To the back of the turn order (or out of it when nothing else waits).
        this.queues.delete(tenant);
        if (queue.length > 0) this.queues.set(tenant, queue);
        waiter.grant(this.take(tenant));
        served = true;
        break;
      }
      if (!served) return;
    }
  }

  private forget(tenant: string, waiter: Waiter): void {
    const queue = this.queues.get(tenant);
    if (!queue) return;
    const at = queue.indexOf(waiter);
    if (at >= 0) queue.splice(at, 1);
    if (queue.length === 0) this.queues.delete(tenant);
  }
}
