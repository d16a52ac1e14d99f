-- One page of the due window: enabled jobs of live tenants whose next_run_at is at or before
-- p_until, overdue ones first, in (next_run_at, id) order after the key of the previous page's
-- last row (NULLs for the first page). An index range scan of cron_jobs_due_idx: its cost
-- follows the jobs due within the look-ahead, not the number of jobs. The tenant is an anti-join,
-- so the jobs stay the outer side whatever the statistics say: right after a bulk import they say
-- "a few jobs", and a join with tenants then read every due job once per tenant.
CREATE FUNCTION scheduler_due_jobs(p_until timestamptz, p_after_at timestamptz, p_after_id uuid,
                                   p_limit integer)
  RETURNS TABLE (id uuid, tenant_id uuid, schedule text, timezone text, due_from timestamptz,
                 updated_at timestamptz, next_run_at timestamptz, ends_at timestamptz,
                 jitter_ms integer, overlap text)
  LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    SELECT j.id, j.tenant_id, j.schedule, j.timezone, j.due_from, j.updated_at, j.next_run_at,
           j.ends_at, j.jitter_ms, j.overlap
      FROM cron_jobs j
     WHERE j.enabled AND j.deleted_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM tenants t WHERE t.id = j.tenant_id AND t.deleted_at IS NOT NULL)
       AND j.next_run_at <= p_until
       AND (j.next_run_at, j.id) > (coalesce(p_after_at, '-infinity'),
                                    coalesce(p_after_id, '00000000-0000-0000-0000-000000000000'))
     ORDER BY j.next_run_at, j.id
     LIMIT p_limit
  $$;

REVOKE ALL ON FUNCTION scheduler_due_jobs(timestamptz, timestamptz, uuid, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_due_jobs(timestamptz, timestamptz, uuid, integer) TO hermesx_app;
