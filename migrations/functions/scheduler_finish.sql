-- Finishes runs of this pod and updates their jobs in one statement. Returns the runs it
-- finished, each with whether its job's retry policy sent it back to `queued` (below); one failed
-- by recovery or adopted by another pod is left as it is. p_details (per
-- run: result_object_key, result_bytes, result_truncated, detail, output: the parsed answer of a
-- job with an output schema) may be NULL for callers that
-- have none; `result` is bounded by the caller and the table's CHECK (8 KiB). next_run_at is
-- not touched: the claim moved it on. A failed attempt that the job's retry policy sends back to
-- `queued` (the cron_job_runs_retry_attempt trigger, migration 250) is returned too, but leaves
-- the job alone: only the final attempt is the run's outcome.
-- p_scheduled_ats (each run's nominal time, NULL where the caller does not know it) prunes the
-- run lookup to the day partitions of the batch: without it the lookup by id probes an index of
-- every partition, which with a month of history cost a third of the statement.
-- No bitmap scans: the planner finds the batch's runs through a partial index of in-flight runs,
-- which during a burst fills with entries of runs already finished; a plain index scan marks
-- those dead as it passes them, a bitmap scan reads them all again on every call.
CREATE FUNCTION scheduler_finish(p_run_ids uuid[], p_success boolean[], p_results text[],
                                 p_errors text[], p_error_kinds text[], p_attempts integer[],
                                 p_pod_id text, p_details jsonb[] DEFAULT NULL,
                                 p_scheduled_ats timestamptz[] DEFAULT NULL)
  RETURNS TABLE (run_id uuid, requeued boolean)
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  -- One plan per connection: every call's plan is the same (the batch's rows, by key), and
  -- planning it again on each call cost more than running it.
  SET plan_cache_mode = force_generic_plan
  SET enable_bitmapscan = off
  AS $$
  #variable_conflict use_column
  DECLARE
    -- Plain values, so the generic plan prunes partitions when it starts; unknown: all of them.
    v_from timestamptz := '-infinity';
    v_to timestamptz := 'infinity';
  BEGIN
    IF p_scheduled_ats IS NOT NULL AND array_position(p_scheduled_ats, NULL) IS NULL THEN
      SELECT min(s), max(s) INTO v_from, v_to FROM unnest(p_scheduled_ats) AS s;
    END IF;
    RETURN QUERY
    WITH input AS (
      SELECT * FROM unnest(p_run_ids, p_success, p_results, p_errors, p_error_kinds, p_attempts,
                           p_details)
               AS i (run_id, success, result, error, error_kind, attempts, d)
    ), run AS (
      UPDATE cron_job_runs r
         SET status = CASE WHEN i.success THEN 'success' ELSE 'failed' END,
             result = i.result,
             result_object_key = i.d->>'result_object_key',
             result_bytes = (i.d->>'result_bytes')::integer,
             result_truncated = coalesce((i.d->>'result_truncated')::boolean, false),
             detail = coalesce(i.d->'detail', r.detail),
             output = CASE WHEN i.success THEN i.d->'output' END,
             error = left(i.error, 1024),
             error_kind = CASE WHEN i.success THEN NULL ELSE i.error_kind END,
             attempts = i.attempts,
             finished_at = now(),
             duration_ms = greatest(0, (extract(epoch FROM now() - r.started_at) * 1000))::integer
        FROM input i
       WHERE r.id = i.run_id AND r.status IN ('claimed', 'running') AND r.pod_id = p_pod_id
         AND r.scheduled_at BETWEEN v_from AND v_to
      RETURNING r.id, r.cron_job_id, r.started_at, r.status, i.success, i.error, r.error_kind
    ), job AS (
      UPDATE cron_jobs j
         SET last_run_at = run.started_at,
             last_run_success = run.success,
             last_run_error = left(run.error, 1024),
             last_run_error_kind = run.error_kind,
             run_count = j.run_count + 1
        FROM run
       WHERE j.id = run.cron_job_id AND run.status <> 'queued'
    )
    SELECT run.id, run.status = 'queued' FROM run;
  END
  $$;

REVOKE ALL ON FUNCTION scheduler_finish(uuid[], boolean[], text[], text[], text[], integer[], text, jsonb[], timestamptz[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_finish(uuid[], boolean[], text[], text[], text[], integer[], text, jsonb[], timestamptz[]) TO hermesx_app;
