// The one loop every background service runs its rounds on: the scheduler's services, the webhook
// sender, the sweepers. Its time is the injected Clock's, so a test drives it with a fake one.
import type { Logger } from '../log.js';
import type { Clock } from './clock.js';

export interface Loop {
  /** Runs a round now (or right after the current one) instead of waiting for the interval. */
  kick(): void;
  /**
   * No round starts after this, and the round under way sees its signal aborted; resolves once
   * that round is over.
   */
  stop(): Promise<void>;
}

/** After the nth failure in a row the next round waits min(maxMs, firstMs · 2^(n-1)). */
export interface Backoff {
  firstMs: number;
  maxMs: number;
}

export interface LoopOptions {
  name: string;
  /** Between rounds that succeeded. */
  intervalMs: number;
  clock: Clock;
  log: Logger;
  /** One round; a throw is logged and retried after the back-off. */
  round: (signal: AbortSignal) => Promise<void>;
  /** Run the first round at once rather than after the first interval. */
  immediate?: boolean;
  /** 1 s, 2 s, 4 s … capped at the interval, unless said otherwise. */
  backoff?: Backoff;
  /**
   * Logs a failed round in the service's own words; by default a warning naming the loop, the
   * error and the attempt.
   */
  onFailure?: (err: unknown, failures: number, retryInMs: number) => void;
}

function backoffMs(backoff: Backoff, failures: number): number {
  return Math.min(backoff.firstMs * 2 ** (failures - 1), backoff.maxMs);
}

/**
 * A background loop that never dies: each failure is logged with the loop's context and retried
 * after a back-off; success restores the interval.
 */
export function startLoop(options: LoopOptions): Loop {
  const { clock, log, intervalMs } = options;
  const backoff = options.backoff ?? { firstMs: 1000, maxMs: intervalMs };
  const stopping = new AbortController();
  let timer: unknown;
  let round: Promise<void> | undefined;
  let running = false;
  let stopped = false;
  let kicked = false;
  let failures = 0;

  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = clock.setTimeout(() => (round = tick()), delayMs);
  };
  const tick = async () => {
    timer = undefined;
    if (stopped) return;
    running = true;
    kicked = false;
    try {
      await options.round(stopping.signal);
      failures = 0;
    } catch (err) {
      failures += 1;
      logFailure(err, failures, backoffMs(backoff, failures));
    } finally {
      running = false;
    }
    if (stopped) return;
    schedule(kicked ? 0 : failures > 0 ? backoffMs(backoff, failures) : intervalMs);
  };
  const logFailure = (err: unknown, count: number, retryInMs: number) => {
    if (options.onFailure) return options.onFailure(err, count, retryInMs);
    log.warn(
      { loop: options.name, error: errorText(err), attempt: count },
      'background task failed, retrying',
    );
  };

  schedule(options.immediate ? 0 : intervalMs);
  return {
    kick() {
      if (stopped) return;
      if (running) {
        kicked = true;
        return;
      }
      if (timer !== undefined) clock.clearTimeout(timer);
      schedule(0);
    },
    async stop() {
      stopped = true;
      stopping.abort();
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
      await round;
    },
  };
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
