// The supervisor's state, shared by the scheduler's services: only the supervisor and the
// availability service (activate, pause) change it.

export type SchedulerState = 'waiting' | 'running' | 'stopping' | 'stopped';

/** The supervisor's state, read by every service. */
export interface Lifecycle {
  state: SchedulerState;
}
