-- Every claim moves a job's next_run_at and every recorded run moves its run_count: two updates
-- of cron_jobs per run, and each ran the three plpgsql BEFORE UPDATE triggers below only for
-- them to find that no field they watch had changed. The triggers now carry their test as a WHEN
-- clause, which PostgreSQL evaluates without calling the function (the functions are unchanged:
-- they test again, which keeps each one right on its own). A BEFORE trigger's WHEN sees what
-- the triggers before it wrote, so cron_jobs_apply_run_limits disabling a job still stamps
-- updated_at through cron_jobs_track_definition.
DROP TRIGGER cron_jobs_track_definition ON cron_jobs;
CREATE TRIGGER cron_jobs_track_definition BEFORE UPDATE ON cron_jobs
  FOR EACH ROW
  WHEN ((NEW.tenant_id, NEW.name, NEW.schedule, NEW.timezone, NEW.prompt, NEW.enabled)
        IS DISTINCT FROM (OLD.tenant_id, OLD.name, OLD.schedule, OLD.timezone, OLD.prompt, OLD.enabled))
  EXECUTE FUNCTION cron_jobs_track_definition();

DROP TRIGGER cron_jobs_track_controls ON cron_jobs;
CREATE TRIGGER cron_jobs_track_controls BEFORE UPDATE ON cron_jobs
  FOR EACH ROW
  WHEN ((NEW.labels, NEW.pause_after_failures, NEW.ends_at, NEW.max_runs, NEW.timeout_ms, NEW.model,
         NEW.jitter_ms, NEW.overlap)
        IS DISTINCT FROM
        (OLD.labels, OLD.pause_after_failures, OLD.ends_at, OLD.max_runs, OLD.timeout_ms, OLD.model,
         OLD.jitter_ms, OLD.overlap))
  EXECUTE FUNCTION cron_jobs_track_controls();

DROP TRIGGER cron_jobs_track_retry ON cron_jobs;
CREATE TRIGGER cron_jobs_track_retry BEFORE UPDATE ON cron_jobs
  FOR EACH ROW
  WHEN ((NEW.retry_max_attempts, NEW.retry_backoff_ms, NEW.retry_after_side_effects)
        IS DISTINCT FROM
        (OLD.retry_max_attempts, OLD.retry_backoff_ms, OLD.retry_after_side_effects))
  EXECUTE FUNCTION cron_jobs_track_retry();

-- The recording update (run_count, last_run_*) touches no indexed column, so it can be a HOT
-- update, which writes no index entry, when the row's page has room: leave room. (New pages
-- only; `VACUUM FULL cron_jobs` applies it to an existing table.)
ALTER TABLE cron_jobs SET (fillfactor = 70);
