-- The planning sweep's second half: writes the next_run_at the pod computed for the jobs it took
-- ('infinity' parks a job with no occurrence), unless something else planned them meanwhile.
CREATE FUNCTION scheduler_plan_set(p_ids uuid[], p_next_run_ats timestamptz[])
  RETURNS void
  LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    UPDATE cron_jobs j SET next_run_at = i.next_run_at
      FROM unnest(p_ids, p_next_run_ats) AS i (id, next_run_at)
     WHERE j.id = i.id AND j.next_run_at IS NULL
  $$;

REVOKE ALL ON FUNCTION scheduler_plan_set(uuid[], timestamptz[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_plan_set(uuid[], timestamptz[]) TO hermesx_app;
