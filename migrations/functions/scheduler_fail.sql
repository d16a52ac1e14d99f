-- Fails the named runs with a reason and its kind, and their jobs' last_run_* with them. A run
-- whose job retries it goes back to `queued` instead (trigger cron_job_runs_retry_attempt,
-- migration 250), is returned with requeued = true and leaves its job alone.
CREATE FUNCTION scheduler_fail(p_run_ids uuid[], p_error text, p_error_kind text)
  RETURNS TABLE (run_id uuid, cron_job_id uuid, requeued boolean)
  LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    WITH failed AS (
      UPDATE cron_job_runs r
         SET status = 'failed',
             error = left(p_error, 1024),
             error_kind = p_error_kind,
             finished_at = now(),
             duration_ms = greatest(0, (extract(epoch FROM now() - r.started_at) * 1000))::integer
       WHERE r.id IN (SELECT unnest(p_run_ids)) AND r.status IN ('claimed', 'running')
      RETURNING r.id, r.cron_job_id, r.started_at, r.status
    ), latest AS (
      SELECT DISTINCT ON (f.cron_job_id) f.cron_job_id, f.started_at
        FROM failed f WHERE f.status = 'failed' ORDER BY f.cron_job_id, f.started_at DESC
    ), jobs AS (
      UPDATE cron_jobs j
         SET last_run_at = l.started_at,
             last_run_success = false,
             last_run_error = left(p_error, 1024),
             last_run_error_kind = p_error_kind,
             run_count = j.run_count + 1
        FROM latest l
       WHERE j.id = l.cron_job_id
    )
    SELECT f.id, f.cron_job_id, f.status = 'queued' FROM failed f
  $$;

REVOKE ALL ON FUNCTION scheduler_fail(uuid[], text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_fail(uuid[], text, text) TO hermesx_app;
