-- Enabled jobs of live tenants (all of them, or those named): what scheduling needs, with the
-- latest occurrence already claimed, from which a pod computes what was missed. Names and
-- prompts are not loaded: each claim returns them (100,000 prompts would be most of a pod's
-- memory).
CREATE FUNCTION scheduler_load_schedules(p_ids uuid[] DEFAULT NULL)
  RETURNS TABLE (id uuid, tenant_id uuid, schedule text, timezone text, due_from timestamptz,
                 updated_at timestamptz, last_scheduled_at timestamptz, ends_at timestamptz,
                 jitter_ms integer)
  LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    SELECT j.id, j.tenant_id, j.schedule, j.timezone, j.due_from, j.updated_at,
           (SELECT max(r.scheduled_at) FROM cron_job_runs r WHERE r.cron_job_id = j.id),
           j.ends_at, j.jitter_ms
      FROM cron_jobs j JOIN tenants t ON t.id = j.tenant_id
     WHERE j.enabled AND t.deleted_at IS NULL
       -- IN (SELECT unnest()) is a hashed semi-join; = ANY (p_ids) would compare each row with
       -- every id, quadratic for the 100,000 ids a bulk insert notifies.
       AND (p_ids IS NULL OR j.id IN (SELECT unnest(p_ids)))
  $$;

REVOKE ALL ON FUNCTION scheduler_load_schedules(uuid[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_load_schedules(uuid[]) TO hermesx_app;
