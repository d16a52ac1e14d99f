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
-- Usage (migration 360): p_details' `usage` ({prompt_tokens, cached_tokens, completion_tokens,
-- cost_micros}, cost NULL when some call had no price) adds to the run's totals, so a retried
-- run sums its attempts; its `usage_calls` (one per model call) go into the model_usage ledger in
-- this same statement. A run refused by a period budget (`budget_resets_at` set) pauses its job
-- (paused_by 'system', stopped_by 'budget') until that time: the budget resume sweep resumes it
-- then (usage_resume_budget_jobs), or the tenant does after raising the budget.
-- Each run of the batch is found by one probe of its partition's primary key (the LATERAL
-- lookup, then the update by id and nominal time), whatever the statistics say. Before, the
-- planner read the batch's runs through the partial index of claimed/running rows, which holds
-- every run in flight on every pod, and joined them with the batch: a finish cost grew with the
-- runs in flight (30 runs among 9,000 in flight: 95 ms, 4,500 buffers; bench/record-cost.ts
-- --ahead). The status test is wrapped in coalesce() so that index is not a candidate; no
-- sequential or bitmap scans either (a new day's partition has no statistics).
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
  SET enable_seqscan = off
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
    ), target AS MATERIALIZED (
      SELECT i.*, t.scheduled_at AS run_at
        FROM input i
        CROSS JOIN LATERAL (
          SELECT r.scheduled_at FROM cron_job_runs r
           WHERE r.id = i.run_id AND r.scheduled_at BETWEEN v_from AND v_to
             AND coalesce(r.status IN ('claimed', 'running'), false) AND r.pod_id = p_pod_id
           LIMIT 1) t
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
             duration_ms = greatest(0, (extract(epoch FROM now() - r.started_at) * 1000))::integer,
             prompt_tokens = CASE WHEN i.d ? 'usage' THEN coalesce(r.prompt_tokens, 0)
                               + (i.d->'usage'->>'prompt_tokens')::integer ELSE r.prompt_tokens END,
             cached_tokens = CASE WHEN i.d ? 'usage' THEN coalesce(r.cached_tokens, 0)
                               + (i.d->'usage'->>'cached_tokens')::integer ELSE r.cached_tokens END,
             completion_tokens = CASE WHEN i.d ? 'usage' THEN coalesce(r.completion_tokens, 0)
                               + (i.d->'usage'->>'completion_tokens')::integer
                               ELSE r.completion_tokens END,
             cost_micros = CASE WHEN NOT i.d ? 'usage' THEN r.cost_micros
                                WHEN r.prompt_tokens IS NOT NULL AND r.cost_micros IS NULL THEN NULL
                                ELSE coalesce(r.cost_micros, 0)
                                     + (i.d->'usage'->>'cost_micros')::bigint END
        FROM target i
       WHERE r.id = i.run_id AND r.scheduled_at = i.run_at
         AND coalesce(r.status IN ('claimed', 'running'), false) AND r.pod_id = p_pod_id
      RETURNING r.id, r.cron_job_id, r.tenant_id, r.origin, r.started_at, r.status, i.success,
                i.error, r.error_kind, i.d
    ), ledger AS (
      INSERT INTO model_usage (tenant_id, cron_job_id, run_id, origin, model, prompt_tokens,
                               cached_tokens, completion_tokens, cost_micros)
      SELECT run.tenant_id, run.cron_job_id, run.id, coalesce(run.origin, 'scheduled'),
             left(c->>'model', 200), (c->>'prompt_tokens')::integer,
             (c->>'cached_tokens')::integer, (c->>'completion_tokens')::integer,
             (c->>'cost_micros')::bigint
        FROM run, jsonb_array_elements(coalesce(run.d->'usage_calls', '[]')) AS c
    ), job AS (
      UPDATE cron_jobs j
         SET last_run_at = run.started_at,
             last_run_success = run.success,
             last_run_error = left(run.error, 1024),
             last_run_error_kind = run.error_kind,
             budget_resets_at = CASE WHEN run.paused_by_budget
                                     THEN (run.d->>'budget_resets_at')::timestamptz
                                     ELSE j.budget_resets_at END,
             enabled = j.enabled AND NOT run.paused_by_budget,
             paused_at = CASE WHEN run.paused_by_budget AND j.enabled THEN now() ELSE j.paused_at END,
             paused_by = CASE WHEN run.paused_by_budget AND j.enabled THEN 'system' ELSE j.paused_by END,
             stopped_by = CASE WHEN run.paused_by_budget AND j.enabled THEN 'budget'
                               ELSE j.stopped_by END,
             paused_reason = CASE WHEN run.paused_by_budget AND j.enabled
                                  THEN left(run.error, 500) ELSE j.paused_reason END,
             next_run_at = CASE WHEN run.paused_by_budget AND j.enabled THEN NULL
                                ELSE j.next_run_at END,
             run_count = j.run_count + 1
        FROM (SELECT run.*, (run.error_kind = 'budget_exhausted'
                             AND run.d->>'budget_resets_at' IS NOT NULL) AS paused_by_budget
                FROM run) AS run
       WHERE j.id = run.cron_job_id AND run.status <> 'queued'
    )
    SELECT run.id, run.status = 'queued' FROM run;
  END
  $$;

REVOKE ALL ON FUNCTION scheduler_finish(uuid[], boolean[], text[], text[], text[], integer[], text, jsonb[], timestamptz[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_finish(uuid[], boolean[], text[], text[], text[], integer[], text, jsonb[], timestamptz[]) TO hermesx_app;
