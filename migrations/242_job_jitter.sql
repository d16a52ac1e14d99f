-- Per-job jitter: each occurrence starts at a deterministic offset in [0, jitter] after its
-- nominal time (src/jobs/jitter.ts); scheduled_at stays the nominal time.
ALTER TABLE cron_jobs ADD COLUMN jitter_ms integer CHECK (jitter_ms BETWEEN 1000 AND 3600000);

CREATE OR REPLACE FUNCTION cron_jobs_track_controls() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  BEGIN
    IF (NEW.labels, NEW.pause_after_failures, NEW.ends_at, NEW.max_runs, NEW.timeout_ms, NEW.model,
        NEW.jitter_ms)
       IS DISTINCT FROM
       (OLD.labels, OLD.pause_after_failures, OLD.ends_at, OLD.max_runs, OLD.timeout_ms, OLD.model,
        OLD.jitter_ms) THEN
      NEW.updated_at := now();
    END IF;
    RETURN NEW;
  END
  $$;

-- Pods place occurrences with the jitter, so a change of it reaches them at once.
CREATE TRIGGER cron_jobs_notify_jitter AFTER UPDATE ON cron_jobs
  FOR EACH ROW WHEN (OLD.jitter_ms IS DISTINCT FROM NEW.jitter_ms)
  EXECUTE FUNCTION cron_jobs_notify();
