-- Trigger function of cron_jobs_track_description (BEFORE UPDATE ON cron_jobs, when the
-- description changes; migration 321): an edit the pods need not hear of still stamps
-- updated_at, like a label.
CREATE OR REPLACE FUNCTION cron_jobs_touch() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  BEGIN
    NEW.updated_at := now();
    RETURN NEW;
  END
  $$;

REVOKE ALL ON FUNCTION cron_jobs_touch() FROM PUBLIC;
