-- cron_jobs_apply_run_limits is called only when a recorded run can change something: a failure,
-- the first success after failures, or a job with max_runs. A success of a job without max_runs
-- and without failures before it, most runs, leaves every column as it is, and no longer pays a
-- function call (pause_after_failures is at least 1, so no count of 0 reaches it).
DROP TRIGGER cron_jobs_apply_run_limits ON cron_jobs;
CREATE TRIGGER cron_jobs_apply_run_limits BEFORE UPDATE OF run_count ON cron_jobs
  FOR EACH ROW
  WHEN (NEW.run_count > OLD.run_count
        AND NOT (NEW.last_run_success IS TRUE AND OLD.consecutive_failures = 0
                 AND NEW.max_runs IS NULL))
  EXECUTE FUNCTION cron_jobs_apply_run_limits();
