-- The planning sweep's first half: up to p_limit enabled jobs of live tenants without
-- next_run_at (all, or those named), locked FOR UPDATE SKIP LOCKED so pods sweeping at the same
-- time take different jobs. With the latest occurrence already claimed since p_since (the start
-- of the catch-up window: an older claim cannot change what is caught up, and the bound prunes
-- the run partitions to the last day or two), from which the pod computes what was missed. The pod computes each job's next_run_at with the schedule parser
-- and writes it with scheduler_plan_set in the same transaction.
CREATE FUNCTION scheduler_plan_take(p_ids uuid[], p_limit integer, p_since timestamptz)
  RETURNS TABLE (id uuid, tenant_id uuid, schedule text, timezone text, due_from timestamptz,
                 updated_at timestamptz, next_run_at timestamptz, last_scheduled_at timestamptz,
                 ends_at timestamptz, jitter_ms integer, overlap text)
  LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    SELECT j.id, j.tenant_id, j.schedule, j.timezone, j.due_from, j.updated_at, j.next_run_at,
           (SELECT max(r.scheduled_at) FROM cron_job_runs r
             WHERE r.cron_job_id = j.id AND r.scheduled_at >= p_since),
           j.ends_at, j.jitter_ms, j.overlap
      FROM cron_jobs j JOIN tenants t ON t.id = j.tenant_id
     WHERE j.enabled AND j.next_run_at IS NULL AND j.deleted_at IS NULL AND t.deleted_at IS NULL
       AND (p_ids IS NULL OR j.id IN (SELECT unnest(p_ids)))
     ORDER BY j.id
     LIMIT p_limit
       FOR UPDATE OF j SKIP LOCKED
  $$;

REVOKE ALL ON FUNCTION scheduler_plan_take(uuid[], integer, timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_plan_take(uuid[], integer, timestamptz) TO hermesx_app;
