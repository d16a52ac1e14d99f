// The one shape of a background part of a pod (the scheduler, the webhook sender, the sweepers,
// the HTTP server): main.ts starts a list of them in order and stops them in reverse order.

export interface Service {
  /** Names it in logs. */
  readonly name: string;
  /** Begins its work; a start that must finish before the next service starts returns a promise. */
  start(): Promise<void> | void;
  /**
   * Takes no new work from the moment it is called (before its first await: the list relies on
   * it), then resolves once the work under way is over, waiting for it at most graceMs where the
   * service has work it can leave unfinished (runs, deliveries); a round of upkeep is cut short
   * at its next step instead.
   */
  stop(graceMs: number): Promise<void>;
}

/** Starts the services in order, each once the one before it has started. */
export async function startServices(services: readonly Service[]): Promise<void> {
  for (const service of services) await service.start();
}

/**
 * Stops the services in reverse order of start: each is told to stop before the one started
 * before it, and none then waits for another, so they drain side by side within the one grace
 * (the scheduler's runs and the sender's deliveries do not wait in line for each other).
 */
export async function stopServices(services: readonly Service[], graceMs: number): Promise<void> {
  await Promise.all([...services].reverse().map((service) => service.stop(graceMs)));
}
