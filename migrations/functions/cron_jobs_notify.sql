-- Trigger function of cron_jobs_notify_changed (AFTER UPDATE ON cron_jobs, when a column of the
-- job field table's `notify` rows changes; migrations 105, 320): every pod LISTENs on
-- hermesx_cron_jobs, so an edited, paused or deleted job takes effect at once. Run statistics
-- (last_run_*, run_count, next_run_at) are not in the list, or every run would wake every pod.
CREATE OR REPLACE FUNCTION cron_jobs_notify() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  DECLARE
    row_id uuid := CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END;
  BEGIN
    PERFORM pg_notify('hermesx_cron_jobs', row_id::text);
    RETURN NULL;
  END
  $$;

REVOKE ALL ON FUNCTION cron_jobs_notify() FROM PUBLIC;
