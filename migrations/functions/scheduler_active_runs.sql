-- Runs in flight on any pod, with their state, for recovery.
CREATE FUNCTION scheduler_active_runs()
  RETURNS TABLE (run_id uuid, cron_job_id uuid, pod_id text, status text)
  LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    SELECT id, cron_job_id, pod_id, status FROM cron_job_runs
     WHERE status IN ('claimed', 'running')
  $$;

REVOKE ALL ON FUNCTION scheduler_active_runs() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_active_runs() TO hermesx_app;
