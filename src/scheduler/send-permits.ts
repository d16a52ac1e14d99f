// The pod's model slots: SCHEDULER_MAX_CONCURRENT_RUNS requests out at once. An occurrence takes
// its lock and claim before it holds one (up to SCHEDULER_CLAIM_AHEAD of them wait here, claimed),
// so a slot is held for the agent's call only. Granted first come, first served: the dispatcher
// admitted the occurrences in its fair order.

/** How a wait for a permit ended: one was granted, the run was aborted, or the pod stops. */
export type PermitAnswer = 'granted' | 'aborted' | 'stopped';

interface Waiter {
  grant(answer: PermitAnswer): void;
}

export class SendPermits {
  private held = 0;
  private readonly waiters: Waiter[] = [];
  private stopped = false;

  constructor(private readonly size: number) {}

  /** Permits held now. */
  get inUse(): number {
    return this.held;
  }

  /** Runs claimed and waiting for a permit. */
  get waiting(): number {
    return this.waiters.length;
  }

  /** Waits for a permit; an abort of `signal` or a stop ends the wait without one. */
  acquire(signal: AbortSignal): Promise<PermitAnswer> {
    if (this.stopped) return Promise.resolve('stopped');
    if (signal.aborted) return Promise.resolve('aborted');
    if (this.held < this.size && this.waiters.length === 0) {
      this.held += 1;
      return Promise.resolve('granted');
    }
    return new Promise<PermitAnswer>((resolve) => {
      const waiter: Waiter = {
        grant: (answer) => {
          signal.removeEventListener('abort', onAbort);
          resolve(answer);
        },
      };
      const onAbort = () => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        waiter.grant('aborted');
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** A permit now if one is free and nobody waits (false otherwise, and nothing changes). */
  tryTake(): boolean {
    if (this.stopped || this.held >= this.size || this.waiters.length > 0) return false;
    this.held += 1;
    return true;
  }

  /** Gives a permit back: the next waiter, if any, has it at once. */
  release(): void {
    const next = this.waiters.shift();
    if (next) next.grant('granted');
    else this.held -= 1;
  }

  /** The pod stops: no permit is granted any more, and every waiter is told so. */
  stop(): void {
    this.stopped = true;
    for (const waiter of this.waiters.splice(0)) waiter.grant('stopped');
  }
}
