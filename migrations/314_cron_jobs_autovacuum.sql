-- Vacuum cron_jobs at full speed. Planning a million imported jobs leaves a million dead entries
-- in cron_jobs_unplanned_idx, and every empty planning sweep (each replica, every 2 s) walks them
-- all until a vacuum has been through: 72–107 ms a sweep, up to 6 % of a core per replica for as
-- long as the default throttled autovacuum takes over the table (a minute and more at 10^6 jobs).
-- Unthrottled, that vacuum is a few seconds of one core; the table is the scheduler's hottest
-- (two updates per run), so the same holds for its due index in steady state.
ALTER TABLE cron_jobs SET (autovacuum_vacuum_cost_delay = 0);
