import { setTimeout as delay } from 'node:timers/promises';

export interface WaitOptions {
  /** Give up after this long (the last failure is reported). */
  timeoutMs: number;
  /** Pause between attempts. */
  intervalMs?: number;
  /** What is awaited, for the timeout message. */
  what?: string;
}

/**
 * Calls fn until it returns without throwing (assertions inside fn make it retry), and returns
 * what it returned. Fails after timeoutMs with the last error, so nothing waits forever.
 */
export async function waitFor<T>(fn: () => T | Promise<T>, options: WaitOptions): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  const interval = options.intervalMs ?? 50;
  let lastError: unknown;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const reason = lastError instanceof Error ? lastError.message : String(lastError);
      throw new Error(
        `timed out after ${options.timeoutMs} ms waiting for ${options.what ?? 'a condition'}: ${reason}`,
        { cause: lastError },
      );
    }
    await delay(Math.min(interval, Math.max(0, deadline - Date.now())));
  }
}

/** Whether a process with this PID still exists (signal 0 probes without touching it). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
