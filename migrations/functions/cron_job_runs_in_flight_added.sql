-- Trigger function of cron_job_runs_in_flight_insert (AFTER INSERT ON cron_job_runs, each
-- statement; migration 313): the inserted runs in flight (IN_FLIGHT_STATUSES in
-- src/domain/vocabulary.ts) join cron_job_runs_in_flight. An INSERT only adds, so a bulk insert
-- of runs not in flight (a backfill's queued runs) costs one pass over what it wrote. SECURITY
-- DEFINER: no role but the owner writes that table.
CREATE OR REPLACE FUNCTION cron_job_runs_in_flight_added() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
  BEGIN
    INSERT INTO cron_job_runs_in_flight (run_id, cron_job_id, tenant_id, scheduled_at)
    SELECT n.id, n.cron_job_id, n.tenant_id, n.scheduled_at
      FROM new_runs n
     WHERE n.status IN ('claimed', 'running')
    ON CONFLICT (run_id) DO NOTHING;
    RETURN NULL;
  END
  $$;

REVOKE ALL ON FUNCTION cron_job_runs_in_flight_added() FROM PUBLIC;
