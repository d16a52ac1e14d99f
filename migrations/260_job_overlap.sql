-- Per-job overlap policy: what happens to an occurrence that comes while the job's previous run
-- is still in flight (docs/scheduler.md, "Overlap policies"). 'skip' is the behaviour every job
-- had before.
ALTER TABLE cron_jobs ADD COLUMN overlap text NOT NULL DEFAULT 'skip'
  CHECK (overlap IN ('skip', 'buffer_one', 'allow_all', 'cancel_other'));

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

-- Pods apply the policy when they offer and run occurrences, so a change reaches them at once.
CREATE TRIGGER cron_jobs_notify_overlap AFTER UPDATE ON cron_jobs
  FOR EACH ROW WHEN (OLD.overlap IS DISTINCT FROM NEW.overlap)
  EXECUTE FUNCTION cron_jobs_notify();
