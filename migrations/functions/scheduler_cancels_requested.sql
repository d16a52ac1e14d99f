-- Those of the given runs still in flight that were asked to stop (cancel_requested_at, set with
-- the cancel's notification): a pod asks for its own runs after its listener reconnects, as a
-- cancel sent meanwhile never reached it.
CREATE FUNCTION scheduler_cancels_requested(p_run_ids uuid[])
  RETURNS TABLE (run_id uuid, cron_job_id uuid)
  LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    SELECT r.id, r.cron_job_id FROM cron_job_runs r
     WHERE r.id = ANY (p_run_ids) AND r.cancel_requested_at IS NOT NULL
       AND r.status IN ('claimed', 'running')
  $$;

REVOKE ALL ON FUNCTION scheduler_cancels_requested(uuid[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_cancels_requested(uuid[]) TO hermesx_app;
