-- The model request of these runs is about to leave the pod: claimed -> running. Returns the
-- runs still claimed by this pod; a run adopted by another pod meanwhile is not, and this pod
-- must not send it. p_origins (scheduled, manual, catch_up; NULL keeps the run's) says why
-- each run runs; model_called_at and the first attempt are recorded with the send.
-- A run of a job deleted since its claim is not returned either: it is recorded cancelled here,
-- before anything reaches the model. That closes the one gap of a delete's cancel notification:
-- a claim still in progress when the delete commits inserts a run the delete could not see.
-- The runs are probed by primary key (id = ANY), as in scheduler_finish: the status test is
-- wrapped in coalesce() so the planner, without statistics of a new day's partition, does not
-- read every claimed run of it through the partial index of claimed/running rows instead.
CREATE FUNCTION scheduler_mark_sent(p_run_ids uuid[], p_pod_id text, p_origins text[] DEFAULT NULL)
  RETURNS SETOF uuid
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  -- One plan per connection (PL/pgSQL keeps it; a SQL-language function was planned on every
  -- call, which cost more than the update itself for a handful of runs).
  SET plan_cache_mode = force_generic_plan
  SET enable_seqscan = off
  AS $$
  BEGIN
    RETURN QUERY
    WITH sent AS (
      UPDATE cron_job_runs r
         SET status = 'running', model_called_at = now(), attempts = greatest(r.attempts, 1),
             origin = coalesce(i.origin, r.origin)
        FROM unnest(p_run_ids, p_origins) AS i (run_id, origin)
       WHERE r.id = i.run_id AND r.id = ANY (p_run_ids)
         AND coalesce(r.status = 'claimed', false) AND r.pod_id = p_pod_id
         AND NOT EXISTS (SELECT 1 FROM cron_jobs j
                          WHERE j.id = r.cron_job_id AND j.deleted_at IS NOT NULL)
      RETURNING r.id
    ), stopped AS (
      UPDATE cron_job_runs r
         SET status = 'failed', error_kind = 'cancelled', error = 'cancelled: the job was deleted',
             finished_at = now(), duration_ms = 0
       WHERE r.id = ANY (p_run_ids) AND coalesce(r.status = 'claimed', false)
         AND r.pod_id = p_pod_id
         AND EXISTS (SELECT 1 FROM cron_jobs j
                      WHERE j.id = r.cron_job_id AND j.deleted_at IS NOT NULL)
      RETURNING r.id
    )
    SELECT s.id FROM sent s;
  END
  $$;

REVOKE ALL ON FUNCTION scheduler_mark_sent(uuid[], text, text[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_mark_sent(uuid[], text, text[]) TO hermesx_app;
