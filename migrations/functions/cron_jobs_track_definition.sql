-- Trigger function of cron_jobs_track_definition (BEFORE UPDATE ON cron_jobs; migrations 100,
-- 312): keeps updated_at and due_from true whoever writes the row (API, agent tool or plain SQL).
-- A schedule, zone or re-enabling change that does not write next_run_at itself clears it, so the
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

REVOKE ALL ON FUNCTION cron_jobs_track_definition() FROM PUBLIC;
