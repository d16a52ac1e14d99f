-- Marks runs failed, and their jobs' last_run_* with them. Internal: callers are the
-- SECURITY DEFINER functions below, never the application role directly.
CREATE FUNCTION scheduler_fail_runs(p_run_ids uuid[], p_error text)
  RETURNS TABLE (run_id uuid, cron_job_id uuid)
  LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public
  AS $$
    WITH failed AS (
      UPDATE cron_job_runs r
         SET status = 'failed',
             error = left(p_error, 1024),
             finished_at = now(),
             duration_ms = (extract(epoch FROM now() - r.started_at) * 1000)::integer
       WHERE r.id = ANY (p_run_ids) AND r.status = 'running'
      RETURNING r.id, r.cron_job_id, r.started_at
    ), latest AS (
      SELECT DISTINCT ON (f.cron_job_id) f.cron_job_id, f.started_at
        FROM failed f ORDER BY f.cron_job_id, f.started_at DESC
    ), jobs AS (
      UPDATE cron_jobs j
         SET last_run_at = l.started_at,
             last_run_success = false,
             last_run_error = left(p_error, 1024),
             run_count = j.run_count + 1
        FROM latest l
       WHERE j.id = l.cron_job_id
    )
    SELECT f.id, f.cron_job_id FROM failed f
  $$;
REVOKE ALL ON FUNCTION scheduler_fail_runs(uuid[], text) FROM PUBLIC;

-- The guide's recovery step: runs still "running" after the lock TTL belong to a pod that died
-- or overran its lock, so they are failed. Returns how many.
CREATE FUNCTION scheduler_cleanup_stale_runs(lock_ttl_seconds integer)
  RETURNS integer
  LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public
  AS $$
    SELECT count(*)::integer FROM scheduler_fail_runs(
      ARRAY(SELECT id FROM cron_job_runs
             WHERE status = 'running'
               AND started_at < now() - make_interval(secs => lock_ttl_seconds)),
      'pod crash or lock TTL exceeded')
  $$;
REVOKE ALL ON FUNCTION scheduler_cleanup_stale_runs(integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_cleanup_stale_runs(integer) TO hermesx_app;
