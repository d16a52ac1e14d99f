-- Enabled jobs of live tenants (all of them, or those named): what scheduling needs, with the
-- job's next occurrence to run. Names and prompts are not loaded: each claim returns them.
-- Pods call it with the ids a notification named; without ids it lists every job (tests and
-- operators only: the scheduler reads the due window, scheduler_due_jobs).
CREATE FUNCTION scheduler_load_schedules(p_ids uuid[] DEFAULT NULL)
  RETURNS TABLE (id uuid, tenant_id uuid, schedule text, timezone text, due_from timestamptz,
                 updated_at timestamptz, next_run_at timestamptz, ends_at timestamptz,
                 jitter_ms integer, overlap text)
  LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    SELECT j.id, j.tenant_id, j.schedule, j.timezone, j.due_from, j.updated_at,
           nullif(j.next_run_at, 'infinity'), j.ends_at, j.jitter_ms, j.overlap
      FROM cron_jobs j JOIN tenants t ON t.id = j.tenant_id
     WHERE j.enabled AND j.deleted_at IS NULL AND t.deleted_at IS NULL
       -- IN (SELECT unnest()) is a hashed semi-join; = ANY (p_ids) would compare each row with
       -- every id, quadratic for the thousands of ids a bulk insert notifies.
       AND (p_ids IS NULL OR j.id IN (SELECT unnest(p_ids)))
  $$;

REVOKE ALL ON FUNCTION scheduler_load_schedules(uuid[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_load_schedules(uuid[]) TO hermesx_app;
