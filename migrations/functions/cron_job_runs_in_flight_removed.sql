-- Trigger function of cron_job_runs_in_flight_delete (AFTER DELETE ON cron_job_runs, each
-- statement; migration 313): deleted runs leave cron_job_runs_in_flight. SECURITY DEFINER: no
-- role but the owner writes that table.
CREATE OR REPLACE FUNCTION cron_job_runs_in_flight_removed() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
  BEGIN
    DELETE FROM cron_job_runs_in_flight f USING old_runs o WHERE f.run_id = o.id;
    RETURN NULL;
  END
  $$;

REVOKE ALL ON FUNCTION cron_job_runs_in_flight_removed() FROM PUBLIC;
