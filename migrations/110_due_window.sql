-- Due-window scheduling: cron_jobs.next_run_at is the job's first occurrence not yet claimed
-- (or skipped), kept in the database for every job. Pods read only the jobs due within a few
-- seconds, through the index below; the claim moves next_run_at on in the same transaction;
-- the planning sweep fills it in for jobs written without one (plain SQL, imports) and after a
-- schedule change. 'infinity' parks a job that has no occurrence (or whose schedule does not
-- parse) until its definition changes.

-- The due window: enabled jobs by next occurrence (overdue first), read in (next_run_at, id)
-- pages. Disabled jobs are not in it at all.
CREATE INDEX cron_jobs_due_idx ON cron_jobs (next_run_at, id) WHERE enabled;
-- The planning sweep's work list: small, because planned jobs leave it at once.
CREATE INDEX cron_jobs_unplanned_idx ON cron_jobs (id) WHERE enabled AND next_run_at IS NULL;
-- Served the full scans of enabled jobs that the due window replaces; every claim now updates
-- cron_jobs, and each index is one more write per claim.
DROP INDEX cron_jobs_enabled_idx;

-- Keeps updated_at and due_from true whoever writes the row (API, agent tool or plain SQL); a
-- schedule, zone or re-enabling change that does not write next_run_at itself clears it, so the
-- planning sweep computes it with the parser in force (the API writes it itself).
CREATE OR REPLACE FUNCTION cron_jobs_track_definition() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  BEGIN
    IF (NEW.schedule, NEW.timezone) IS DISTINCT FROM (OLD.schedule, OLD.timezone)
       OR (NEW.enabled AND NOT OLD.enabled) THEN
      NEW.due_from := now();
      IF NEW.next_run_at IS NOT DISTINCT FROM OLD.next_run_at THEN
        NEW.next_run_at := NULL;
      END IF;
    END IF;
    IF (NEW.tenant_id, NEW.name, NEW.schedule, NEW.timezone, NEW.prompt, NEW.enabled)
       IS DISTINCT FROM (OLD.tenant_id, OLD.name, OLD.schedule, OLD.timezone, OLD.prompt, OLD.enabled) THEN
      NEW.updated_at := now();
    END IF;
    RETURN NEW;
  END
  $$;

-- The O(jobs) version poll is gone (the due window replaces it). Its file went from
-- migrations/functions/; a database that moved onto the baseline never recorded it there.
DROP FUNCTION IF EXISTS scheduler_job_versions();
