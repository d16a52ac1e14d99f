-- The model request of these runs is about to leave the pod: claimed -> running. Returns the
-- runs still claimed by this pod; a run adopted by another pod meanwhile is not, and this pod
-- must not send it. p_origins (scheduled, manual, catch_up; NULL keeps the run's) says why
-- each run runs; model_called_at and the first attempt are recorded with the send.
-- A run of a job deleted since its claim is not returned either: it is recorded cancelled here,
-- before anything reaches the model. That closes the one gap of a delete's cancel notification:
-- a claim still in progress when the delete commits inserts a run the delete could not see.
-- Each run is found as scheduler_finish finds it: one probe of its partition's primary key (the
-- LATERAL lookup), pruned to the days of the batch by p_scheduled_ats (each run's nominal time;
-- NULL where the caller does not know it: then every day's partition is probed). The status test
-- is wrapped in coalesce() so the partial index of claimed/running rows, which holds every run
-- in flight on every pod, is never the planner's way in (a new day's partition has no
-- statistics, and a plan made then read all of them).
CREATE FUNCTION scheduler_mark_sent(p_run_ids uuid[], p_pod_id text, p_origins text[] DEFAULT NULL,
                                    p_scheduled_ats timestamptz[] DEFAULT NULL)
  RETURNS SETOF uuid
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  -- One plan per connection (PL/pgSQL keeps it; a SQL-language function was planned on every
  -- call, which cost more than the update itself for a handful of runs).
  SET plan_cache_mode = force_generic_plan
  SET enable_bitmapscan = off
  SET enable_seqscan = off
  AS $$
  DECLARE
    -- Plain values, so the generic plan prunes partitions when it starts; unknown: all of them.
    v_from timestamptz := '-infinity';
    v_to timestamptz := 'infinity';
  BEGIN
    IF p_scheduled_ats IS NOT NULL AND array_position(p_scheduled_ats, NULL) IS NULL THEN
      SELECT min(s), max(s) INTO v_from, v_to FROM unnest(p_scheduled_ats) AS s;
    END IF;
    RETURN QUERY
    WITH target AS MATERIALIZED (
      SELECT i.run_id, i.origin, t.scheduled_at AS run_at, t.deleted
        FROM unnest(p_run_ids, p_origins) AS i (run_id, origin)
        CROSS JOIN LATERAL (
          SELECT r.scheduled_at,
                 EXISTS (SELECT 1 FROM cron_jobs j
                          WHERE j.id = r.cron_job_id AND j.deleted_at IS NOT NULL) AS deleted
            FROM cron_job_runs r
           WHERE r.id = i.run_id AND r.scheduled_at BETWEEN v_from AND v_to
             AND coalesce(r.status = 'claimed', false) AND r.pod_id = p_pod_id
           LIMIT 1) t
    ), sent AS (
      UPDATE cron_job_runs r
         SET status = 'running', model_called_at = now(), attempts = greatest(r.attempts, 1),
             origin = coalesce(i.origin, r.origin)
        FROM target i
       WHERE r.id = i.run_id AND r.scheduled_at = i.run_at AND NOT i.deleted
         AND coalesce(r.status = 'claimed', false) AND r.pod_id = p_pod_id
      RETURNING r.id
    ), stopped AS (
      UPDATE cron_job_runs r
         SET status = 'failed', error_kind = 'cancelled', error = 'cancelled: the job was deleted',
             finished_at = now(), duration_ms = 0
        FROM target i
       WHERE r.id = i.run_id AND r.scheduled_at = i.run_at AND i.deleted
         AND coalesce(r.status = 'claimed', false) AND r.pod_id = p_pod_id
      RETURNING r.id
    )
    SELECT s.id FROM sent s;
  END
  $$;

REVOKE ALL ON FUNCTION scheduler_mark_sent(uuid[], text, text[], timestamptz[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_mark_sent(uuid[], text, text[], timestamptz[]) TO hermesx_app;
