-- Trigger function of cron_jobs_track_retry (BEFORE UPDATE ON cron_jobs; migrations 250, 312):
-- the retry policy is part of the definition, so changing it is an update of the job (pods never
-- read it: cron_job_runs_retry_attempt does, at the time of each failure). A trigger of its own,
-- so that it holds whatever becomes of cron_jobs_track_controls.
CREATE OR REPLACE FUNCTION cron_jobs_track_retry() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  BEGIN
    IF (NEW.retry_max_attempts, NEW.retry_backoff_ms, NEW.retry_after_side_effects)
       IS DISTINCT FROM
       (OLD.retry_max_attempts, OLD.retry_backoff_ms, OLD.retry_after_side_effects) THEN
      NEW.updated_at := now();
    END IF;
    RETURN NEW;
  END
  $$;

REVOKE ALL ON FUNCTION cron_jobs_track_retry() FROM PUBLIC;
