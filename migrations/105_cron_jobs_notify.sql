-- Every pod LISTENs on hermesx_cron_jobs, so a created, edited, paused or deleted job takes effect
-- at once. Run statistics (last_run_*, run_count, next_run_at) do not notify, or every run would
-- wake every pod.
CREATE FUNCTION cron_jobs_notify() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  DECLARE
    row_id uuid := CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END;
  BEGIN
    PERFORM pg_notify('hermesx_cron_jobs', row_id::text);
    RETURN NULL;
  END
  $$;

CREATE TRIGGER cron_jobs_notify_insert AFTER INSERT OR DELETE ON cron_jobs
  FOR EACH ROW EXECUTE FUNCTION cron_jobs_notify();

CREATE TRIGGER cron_jobs_notify_update AFTER UPDATE ON cron_jobs
  FOR EACH ROW
  WHEN ((OLD.tenant_id, OLD.name, OLD.schedule, OLD.timezone, OLD.prompt, OLD.enabled)
        IS DISTINCT FROM (NEW.tenant_id, NEW.name, NEW.schedule, NEW.timezone, NEW.prompt, NEW.enabled))
  EXECUTE FUNCTION cron_jobs_notify();

-- A tenant deleted or restored changes which jobs may fire: tell the pods about each of its jobs.
CREATE FUNCTION tenants_notify_jobs() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
  BEGIN
    PERFORM pg_notify('hermesx_cron_jobs', j.id::text) FROM cron_jobs j WHERE j.tenant_id = NEW.id;
    RETURN NULL;
  END
  $$;

CREATE TRIGGER tenants_notify_jobs AFTER UPDATE ON tenants
  FOR EACH ROW WHEN (OLD.deleted_at IS DISTINCT FROM NEW.deleted_at)
  EXECUTE FUNCTION tenants_notify_jobs();
