-- Id and version of every enabled job of a live tenant: periodic syncs compare these and load
-- only what changed.
CREATE FUNCTION scheduler_job_versions()
  RETURNS TABLE (id uuid, updated_at timestamptz)
  LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    SELECT j.id, j.updated_at FROM cron_jobs j JOIN tenants t ON t.id = j.tenant_id
     WHERE j.enabled AND t.deleted_at IS NULL
  $$;

REVOKE ALL ON FUNCTION scheduler_job_versions() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_job_versions() TO hermesx_app;
