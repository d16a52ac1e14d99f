-- Hands claimed runs of this pod back to the queue, to start again after p_delay_ms: a taken
-- queued run this pod cannot start now (its job's lock is held elsewhere, the pod is stopping).
-- Nothing was sent to the model for a claimed run, so this is not a new attempt. Returns the
-- runs handed back.
CREATE FUNCTION scheduler_requeue(p_run_ids uuid[], p_pod_id text, p_delay_ms integer)
  RETURNS SETOF uuid
  LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    UPDATE cron_job_runs r
       SET status = 'queued', pod_id = NULL,
           not_before = now() + make_interval(secs => greatest(p_delay_ms, 0) / 1000.0)
     WHERE r.id IN (SELECT unnest(p_run_ids)) AND r.status = 'claimed' AND r.pod_id = p_pod_id
    RETURNING r.id
  $$;

REVOKE ALL ON FUNCTION scheduler_requeue(uuid[], text, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_requeue(uuid[], text, integer) TO hermesx_app;
