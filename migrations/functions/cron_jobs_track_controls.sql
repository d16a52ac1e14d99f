-- Trigger function of cron_jobs_track_controls (BEFORE UPDATE ON cron_jobs; migrations 240, 312):
-- the run controls are part of the definition, so changing one is an update of the job.
CREATE OR REPLACE FUNCTION cron_jobs_track_controls() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  BEGIN
    IF (NEW.labels, NEW.pause_after_failures, NEW.ends_at, NEW.max_runs, NEW.timeout_ms, NEW.model,
        NEW.jitter_ms, NEW.overlap)
       IS DISTINCT FROM
       (OLD.labels, OLD.pause_after_failures, OLD.ends_at, OLD.max_runs, OLD.timeout_ms, OLD.model,
        OLD.jitter_ms, OLD.overlap) THEN
      NEW.updated_at := now();
    END IF;
    RETURN NEW;
  END
  $$;

REVOKE ALL ON FUNCTION cron_jobs_track_controls() FROM PUBLIC;
