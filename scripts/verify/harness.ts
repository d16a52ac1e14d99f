// What both verifications (`npm run verify:cluster`, `npm run verify:docker`) stand on: the
// cleanup registry and bounded polling.

export type Say = (line: string) => void;

const cleanups: { what: string; run: () => Promise<unknown> }[] = [];

/** Registers something to undo; undone newest first by cleanupAll. */
export function onCleanup(what: string, run: () => Promise<unknown>): void {
  cleanups.push({ what, run });
}

/** Stops everything started (each step bounded), newest first; safe to call twice. */
export async function cleanupAll(say: Say): Promise<void> {
  for (let step = cleanups.pop(); step; step = cleanups.pop()) {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error('took more than 20 s')), 20_000);
    });
    try {
      await Promise.race([step.run(), timeout]);
    } catch (err) {
      say(`cleanup: ${step.what}: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Polls probe until it returns something other than undefined/false, or the deadline passes. */
export async function until<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs: number,
  intervalMs = 100,
): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch {
      // Not yet (e.g. a query during a restart): try again until the deadline.
    }
    if (Date.now() >= deadline) return undefined;
    await new Promise((resolve) =>
      setTimeout(resolve, Math.min(intervalMs, deadline - Date.now())),
    );
  }
}
