-- A job's description: free text for people (at most 2,000 characters; the API refuses NUL). The
-- pods never read it, so a change notifies none of them (it is not in cron_jobs_notify_changed's
-- list), but it is an edit of the job: it stamps updated_at, like a label.
ALTER TABLE cron_jobs ADD COLUMN description text CHECK (length(description) <= 2000);

-- cron_jobs_touch: migrations/functions/cron_jobs_touch.sql.
CREATE TRIGGER cron_jobs_track_description BEFORE UPDATE ON cron_jobs
  FOR EACH ROW WHEN (NEW.description IS DISTINCT FROM OLD.description)
  EXECUTE FUNCTION cron_jobs_touch();
