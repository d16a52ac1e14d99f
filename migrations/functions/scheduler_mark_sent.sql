-- The model request of these runs is about to leave the pod: claimed -> running. Returns the
-- runs still claimed by this pod; a run adopted by another pod meanwhile is not, and this pod
-- must not send it. p_origins (scheduled, manual, catch_up; NULL keeps the run's) says why
-- each run runs; model_called_at and the first attempt are recorded with the send.
CREATE FUNCTION scheduler_mark_sent(p_run_ids uuid[], p_pod_id text, p_origins text[] DEFAULT NULL)
  RETURNS SETOF uuid
  LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    UPDATE cron_job_runs r
       SET status = 'running', model_called_at = now(), attempts = greatest(r.attempts, 1),
           origin = coalesce(i.origin, r.origin)
      FROM unnest(p_run_ids, p_origins) AS i (run_id, origin)
     WHERE r.id = i.run_id AND r.status = 'claimed' AND r.pod_id = p_pod_id
    RETURNING r.id
  $$;

REVOKE ALL ON FUNCTION scheduler_mark_sent(uuid[], text, text[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_mark_sent(uuid[], text, text[]) TO hermesx_app;
