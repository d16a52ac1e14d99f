// The `@…` shorthands and the cron patterns they stand for. Dependency-free: the scheduler's
// parser and the dashboard's schedule-in-words both read it.
export const SCHEDULE_MACROS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};
