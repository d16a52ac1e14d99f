-- The model request of these runs is about to leave the pod: claimed -> running. Returns the
-- runs still claimed by this pod; a run adopted by another pod meanwhile is not, and this pod
-- must not send it.
CREATE FUNCTION scheduler_mark_sent(p_run_ids uuid[], p_pod_id text)
  RETURNS SETOF uuid
  LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    UPDATE cron_job_runs SET status = 'running'
     WHERE id IN (SELECT unnest(p_run_ids)) AND status = 'claimed' AND pod_id = p_pod_id
    RETURNING id
  $$;

REVOKE ALL ON FUNCTION scheduler_mark_sent(uuid[], text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_mark_sent(uuid[], text) TO hermesx_app;
