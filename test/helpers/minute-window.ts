// Rate limits count in fixed windows of a clock minute (src/http/rate-limit.ts). A test that
// spends a whole budget within one window first waits, polling the clock with a deadline, until
// the window it starts in has room for it, so a minute turning over mid-test cannot refill it.

/** Resolves once at least `neededMs` of the current clock minute is left. */
export async function awaitMinuteWithRoom(neededMs: number): Promise<void> {
  const deadlineMs = Date.now() + 61_000;
  while (60_000 - (Date.now() % 60_000) < neededMs) {
    if (Date.now() > deadlineMs) throw new Error('the clock did not reach a new minute');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
