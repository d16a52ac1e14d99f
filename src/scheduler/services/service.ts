// What the scheduler's services share: the supervisor's state, which only it and the
// availability service (activate, pause) change, and the shape every service has.

export type SchedulerState = 'waiting' | 'running' | 'stopping' | 'stopped';

/** The supervisor's state, read by every service. */
export interface Lifecycle {
  state: SchedulerState;
}

/** A background part of the scheduler: its loops or timer run between start() and stop(). */
export interface Service {
  start(): void;
  stop(): void;
}
