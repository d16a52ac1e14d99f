-- Which of p_run_ids have a run row of the tenant (any partition, any state): the sweep of
-- orphaned result objects keeps the objects of these and deletes the others once past the grace.
CREATE FUNCTION storage_recorded_runs(p_tenant_id uuid, p_run_ids uuid[])
  RETURNS SETOF uuid
  LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    SELECT r.id FROM cron_job_runs r
     WHERE r.tenant_id = p_tenant_id AND r.id = ANY (p_run_ids);
  $$;

REVOKE ALL ON FUNCTION storage_recorded_runs(uuid, uuid[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION storage_recorded_runs(uuid, uuid[]) TO hermesx_app;
