-- A run of this pod sends another model request (a retry after 429/503/connect failure, or the
-- next agent step): its attempt count and attempt log move while it is still running, so the API
-- and the dashboard show a retrying run instead of a silent "running". Returns whether the run
-- was still this pod's.
CREATE FUNCTION scheduler_run_progress(p_run_id uuid, p_pod_id text, p_attempts integer,
                                       p_attempt_log jsonb)
  RETURNS boolean
  LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    WITH moved AS (
      UPDATE cron_job_runs r
         SET attempts = greatest(r.attempts, p_attempts),
             detail = jsonb_set(coalesce(r.detail, '{}'::jsonb), '{attempt_log}', p_attempt_log)
       WHERE r.id = p_run_id AND r.status = 'running' AND r.pod_id = p_pod_id
      RETURNING r.id
    )
    SELECT EXISTS (SELECT 1 FROM moved)
  $$;

REVOKE ALL ON FUNCTION scheduler_run_progress(uuid, text, integer, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_run_progress(uuid, text, integer, jsonb) TO hermesx_app;
