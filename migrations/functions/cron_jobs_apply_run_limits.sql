-- Trigger function of cron_jobs_apply_run_limits (BEFORE UPDATE OF run_count ON cron_jobs;
-- migration 240). Every statement that records a run (scheduler_finish, scheduler_fail, whatever
-- comes later) adds to run_count; the limits follow from that one change, here, rather than from
-- a copy of these rules in each recording function. A limit reached stops the job: stopped_by
-- (max_runs, pause_after_failures) says which, paused_by is 'system'. The trigger is named to run
-- before cron_jobs_track_definition (BEFORE triggers go in name order), which then sees the job
-- disabled and stamps updated_at.
CREATE OR REPLACE FUNCTION cron_jobs_apply_run_limits() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  BEGIN
    IF NEW.run_count <= OLD.run_count THEN
      RETURN NEW;
    END IF;
    NEW.consecutive_failures := CASE WHEN NEW.last_run_success THEN 0
                                     ELSE OLD.consecutive_failures + 1 END;
    IF NOT NEW.enabled THEN
      RETURN NEW;
    END IF;
    IF NEW.max_runs IS NOT NULL AND NEW.run_count >= NEW.max_runs THEN
      NEW.stopped_by := 'max_runs';
      NEW.paused_reason := format('max_runs reached: %s runs', NEW.run_count);
    ELSIF NEW.pause_after_failures IS NOT NULL
          AND NEW.consecutive_failures >= NEW.pause_after_failures THEN
      NEW.stopped_by := 'pause_after_failures';
      NEW.paused_reason := left(format('%s consecutive failed runs; last error: %s',
                                       NEW.consecutive_failures, NEW.last_run_error), 500);
    ELSE
      RETURN NEW;
    END IF;
    NEW.enabled := false;
    NEW.paused_at := now();
    NEW.paused_by := 'system';
    NEW.next_run_at := NULL;
    RETURN NEW;
  END
  $$;

REVOKE ALL ON FUNCTION cron_jobs_apply_run_limits() FROM PUBLIC;
