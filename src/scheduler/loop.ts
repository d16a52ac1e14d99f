import type { Logger } from '../log.js';
import type { Clock } from '../services/clock.js';
import { errorMessage } from './occurrence.js';

export interface Loop {
  /** Runs the body now (or right after the current run) instead of waiting for the interval. */
  kick(): void;
  stop(): void;
}

export interface LoopOptions {
  name: string;
  intervalMs: number;
  clock: Clock;
  log: Logger;
  body: () => Promise<void>;
  /** Run once immediately rather than after the first interval. */
  immediate?: boolean;
}

/**
 * A background loop that never dies: each failure is logged with the loop's name and retried
 * after a back-off (1 s, 2 s, 4 s … capped at the interval); success restores the interval.
 */
export function startLoop(options: LoopOptions): Loop {
  const { clock, log, intervalMs } = options;
  let timer: unknown;
  let running = false;
  let stopped = false;
  let kicked = false;
  let failures = 0;

  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = clock.setTimeout(() => void tick(), delayMs);
  };
  const tick = async () => {
    timer = undefined;
    if (stopped) return;
    running = true;
    kicked = false;
    try {
      await options.body();
      failures = 0;
    } catch (err) {
      failures += 1;
      log.warn(
        { loop: options.name, error: errorMessage(err), attempt: failures },
        'background task failed, retrying',
      );
    } finally {
      running = false;
    }
    if (stopped) return;
    const backoffMs = Math.min(1000 * 2 ** (failures - 1), intervalMs);
    schedule(kicked ? 0 : failures > 0 ? backoffMs : intervalMs);
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
    stop() {
      stopped = true;
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
    },
  };
}
