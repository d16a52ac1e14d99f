-- Trigger function of cron_job_runs_in_flight_truncate (AFTER TRUNCATE ON cron_job_runs;
-- migration 313): no run left, none in flight. SECURITY DEFINER: no role but the owner writes
-- cron_job_runs_in_flight.
CREATE OR REPLACE FUNCTION cron_job_runs_in_flight_cleared() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
  BEGIN
    DELETE FROM cron_job_runs_in_flight;
    RETURN NULL;
  END
  $$;

REVOKE ALL ON FUNCTION cron_job_runs_in_flight_cleared() FROM PUBLIC;
