-- One page of the "run now" requests no pod has run: enabled jobs of live tenants triggered by
-- hand at or after p_since with no run at that nominal time, in (last_triggered_at, id) order
-- after the key of the previous page's last row (NULLs for the first page). A pod reads them
-- after its listener reconnects, as the notifications sent meanwhile are lost; the pods that
-- run them race as for any occurrence and the claim's unique key (cron_job_id, scheduled_at)
-- lets one of them, or the one that did hear it, run it.
CREATE FUNCTION scheduler_missed_triggers(p_since timestamptz, p_after_at timestamptz,
                                          p_after_id uuid, p_limit integer)
  RETURNS TABLE (id uuid, last_triggered_at timestamptz)
  LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    SELECT j.id, j.last_triggered_at
      FROM cron_jobs j
     WHERE j.last_triggered_at >= p_since
       AND (j.last_triggered_at, j.id) > (coalesce(p_after_at, '-infinity'),
                                          coalesce(p_after_id, '00000000-0000-0000-0000-000000000000'))
       AND j.enabled AND j.deleted_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM tenants t WHERE t.id = j.tenant_id AND t.deleted_at IS NOT NULL)
       AND NOT EXISTS (SELECT 1 FROM cron_job_runs r
                        WHERE r.cron_job_id = j.id AND r.scheduled_at = j.last_triggered_at)
     ORDER BY j.last_triggered_at, j.id
     LIMIT p_limit
  $$;

REVOKE ALL ON FUNCTION scheduler_missed_triggers(timestamptz, timestamptz, uuid, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_missed_triggers(timestamptz, timestamptz, uuid, integer) TO hermesx_app;
