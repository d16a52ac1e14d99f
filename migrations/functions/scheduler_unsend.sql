-- Runs this pod claimed straight into 'running' that never reached the model: it stops while
-- they wait for a model slot (SCHEDULER_CLAIM_AHEAD). They go back to 'claimed', as if the
-- claim had not said they were sent, so another pod adopts and runs them once this one is gone,
-- instead of recovery failing them (a 'running' run of a dead pod may have been sent). Returns
-- the runs handed back; one no longer this pod's, or finished, is left as it is.
CREATE FUNCTION scheduler_unsend(p_run_ids uuid[], p_pod_id text)
  RETURNS SETOF uuid
  LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    UPDATE cron_job_runs r
       SET status = 'claimed', model_called_at = NULL, attempts = 0
     WHERE r.id = ANY (p_run_ids) AND r.status = 'running' AND r.pod_id = p_pod_id
    RETURNING r.id
  $$;

REVOKE ALL ON FUNCTION scheduler_unsend(uuid[], text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_unsend(uuid[], text) TO hermesx_app;
