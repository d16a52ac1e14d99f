-- Trigger function of cron_job_runs_in_flight_update (AFTER UPDATE ON cron_job_runs, each
-- statement; migration 313): an UPDATE may take a run out of flight (settled, requeued) or put
-- one in (claimed from the queue), so the updated rows leave or join cron_job_runs_in_flight
-- by their new status. SECURITY DEFINER: no role but the owner writes that table.
CREATE OR REPLACE FUNCTION cron_job_runs_in_flight_changed() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
  BEGIN
    DELETE FROM cron_job_runs_in_flight f
     USING new_runs n
     WHERE f.run_id = n.id AND n.status NOT IN ('claimed', 'running');
    INSERT INTO cron_job_runs_in_flight (run_id, cron_job_id, tenant_id, scheduled_at)
    SELECT n.id, n.cron_job_id, n.tenant_id, n.scheduled_at
      FROM new_runs n
     WHERE n.status IN ('claimed', 'running')
    ON CONFLICT (run_id) DO NOTHING;
    RETURN NULL;
  END
  $$;

REVOKE ALL ON FUNCTION cron_job_runs_in_flight_changed() FROM PUBLIC;
