-- A waiting occurrence (scheduler_claim_waiting) took the job's lock and starts now: its
-- started_at becomes now, so its duration and the stale-run cleanup (started_at older than the
-- lock TTL) count from when it started, not from when it began to wait. False when the run is no
-- longer this pod's claimed run (cancelled, or adopted by another pod), and then it must not run.
CREATE FUNCTION scheduler_start_waiting(p_run_id uuid, p_scheduled_at timestamptz, p_pod_id text)
  RETURNS boolean
  LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    WITH started AS (
      UPDATE cron_job_runs r SET started_at = now()
       WHERE r.id = p_run_id AND r.scheduled_at = p_scheduled_at AND r.pod_id = p_pod_id
         AND r.status = 'claimed'
      RETURNING 1
    )
    SELECT EXISTS (SELECT 1 FROM started)
  $$;

REVOKE ALL ON FUNCTION scheduler_start_waiting(uuid, timestamptz, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_start_waiting(uuid, timestamptz, text) TO hermesx_app;
