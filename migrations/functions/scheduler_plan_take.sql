-- The planning sweep's first half: up to p_limit enabled jobs of live tenants without
-- next_run_at (those named, or all of them after the cursor in (schedule, timezone, id) order),
-- locked FOR UPDATE SKIP LOCKED so pods sweeping at the same time take different jobs. With the
-- latest occurrence already claimed since p_since (the start of the catch-up window: an older
-- claim cannot change what is caught up, and the bound prunes the run partitions to the last day
-- or two), from which the pod computes what was missed. The pod computes each job's next_run_at
-- with the schedule parser and writes it with scheduler_plan_set in the same transaction.
--
-- Why it is written this way: the sweep reads the partial index cron_jobs_unplanned_idx forward
-- from the pod's cursor (p_after_*; NULLs: the start, '' sorting first), so a batch costs its own rows, not the
-- jobs still unplanned (a join with tenants let the planner read and sort every unplanned job
-- per batch: O(n) a batch during a million-job import), and jobs sharing a schedule arrive
-- together (the pod parses each distinct schedule once). The tenant is checked per row, by a
-- subquery the planner cannot make the driving side of a join; named jobs go by primary key.
CREATE FUNCTION scheduler_plan_take(p_ids uuid[], p_limit integer, p_since timestamptz,
                                    p_after_schedule text, p_after_timezone text,
                                    p_after_id uuid)
  RETURNS TABLE (id uuid, tenant_id uuid, schedule text, timezone text, due_from timestamptz,
                 updated_at timestamptz, next_run_at timestamptz, last_scheduled_at timestamptz,
                 ends_at timestamptz, jitter_ms integer, overlap text)
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
  BEGIN
    IF p_ids IS NULL THEN
      RETURN QUERY
        SELECT j.id, j.tenant_id, j.schedule, j.timezone, j.due_from, j.updated_at, j.next_run_at,
               (SELECT max(r.scheduled_at) FROM cron_job_runs r
                 WHERE r.cron_job_id = j.id AND r.scheduled_at >= p_since),
               j.ends_at, j.jitter_ms, j.overlap
          FROM cron_jobs j
         WHERE j.enabled AND j.next_run_at IS NULL AND j.deleted_at IS NULL
           AND (j.schedule, j.timezone, j.id) > (coalesce(p_after_schedule, ''),
                                                 coalesce(p_after_timezone, ''),
                                                 coalesce(p_after_id, '00000000-0000-0000-0000-000000000000'))
           AND (SELECT t.deleted_at IS NULL FROM tenants t WHERE t.id = j.tenant_id)
         ORDER BY j.schedule, j.timezone, j.id
         LIMIT p_limit
           FOR UPDATE OF j SKIP LOCKED;
    ELSE
      RETURN QUERY
        SELECT j.id, j.tenant_id, j.schedule, j.timezone, j.due_from, j.updated_at, j.next_run_at,
               (SELECT max(r.scheduled_at) FROM cron_job_runs r
                 WHERE r.cron_job_id = j.id AND r.scheduled_at >= p_since),
               j.ends_at, j.jitter_ms, j.overlap
          FROM cron_jobs j
         WHERE j.id = ANY (p_ids) AND j.enabled AND j.next_run_at IS NULL AND j.deleted_at IS NULL
           AND (SELECT t.deleted_at IS NULL FROM tenants t WHERE t.id = j.tenant_id)
         ORDER BY j.schedule, j.timezone, j.id
         LIMIT p_limit
           FOR UPDATE OF j SKIP LOCKED;
    END IF;
  END
  $$;

REVOKE ALL ON FUNCTION scheduler_plan_take(uuid[], integer, timestamptz, text, text, uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_plan_take(uuid[], integer, timestamptz, text, text, uuid) TO hermesx_app;
