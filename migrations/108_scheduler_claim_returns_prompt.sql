-- Pods no longer keep each job's name and prompt in memory (100,000 prompts of a few KB would be
-- most of a pod's memory): the sync loads only what scheduling needs, and the claim returns the
-- name and prompt of each occurrence it claims, as committed at that moment. Claim and finish
-- become PL/pgSQL, whose plans are cached per session; LANGUAGE sql functions are planned on
-- every call, which a pod calls for every batch of occurrences.
--
-- During a rolling deploy, pods of the previous version run beside migrated ones: they keep
-- scheduler_load_jobs (unchanged), the claim's first three columns and the finish's signature.

CREATE FUNCTION scheduler_load_schedules(p_ids uuid[] DEFAULT NULL)
  RETURNS TABLE (id uuid, tenant_id uuid, schedule text, timezone text, due_from timestamptz,
                 updated_at timestamptz, last_scheduled_at timestamptz)
  LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = pg_catalog, public
  AS $$
    SELECT j.id, j.tenant_id, j.schedule, j.timezone, j.due_from, j.updated_at,
           (SELECT max(r.scheduled_at) FROM cron_job_runs r WHERE r.cron_job_id = j.id)
      FROM cron_jobs j JOIN tenants t ON t.id = j.tenant_id
     WHERE j.enabled AND t.deleted_at IS NULL
       -- IN (SELECT unnest()) is a hashed semi-join; = ANY (p_ids) would compare each row with
       -- every id, quadratic for the 100,000 ids a bulk insert notifies.
       AND (p_ids IS NULL OR j.id IN (SELECT unnest(p_ids)))
  $$;

DROP FUNCTION scheduler_claim_runs(uuid[], timestamptz[], text);
CREATE FUNCTION scheduler_claim_runs(p_job_ids uuid[], p_scheduled_ats timestamptz[], p_pod_id text)
  RETURNS TABLE (cron_job_id uuid, scheduled_at timestamptz, run_id uuid, name text, prompt text)
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public
  AS $$
  #variable_conflict use_column
  BEGIN
    RETURN QUERY
    WITH claimed AS (
      INSERT INTO cron_job_runs AS r (cron_job_id, tenant_id, scheduled_at, status, pod_id)
      SELECT j.id, j.tenant_id, c.scheduled_at, 'running', p_pod_id
        FROM unnest(p_job_ids, p_scheduled_ats) AS c (job_id, scheduled_at)
        JOIN cron_jobs j ON j.id = c.job_id
        JOIN tenants t ON t.id = j.tenant_id
       WHERE j.enabled AND t.deleted_at IS NULL
         AND NOT EXISTS (SELECT 1 FROM cron_job_runs x
                          WHERE x.cron_job_id = c.job_id AND x.status = 'running')
      ON CONFLICT ON CONSTRAINT cron_job_runs_cron_job_id_scheduled_at_key DO NOTHING
      RETURNING r.cron_job_id, r.scheduled_at, r.id
    )
    SELECT c.cron_job_id, c.scheduled_at, c.id, j.name, j.prompt
      FROM claimed c JOIN cron_jobs j ON j.id = c.cron_job_id;
  END
  $$;

DROP FUNCTION scheduler_finish_runs(uuid[], boolean[], text[], text[], timestamptz[]);
CREATE FUNCTION scheduler_finish_runs(p_run_ids uuid[], p_success boolean[], p_results text[],
                                      p_errors text[], p_next_run_ats timestamptz[])
  RETURNS SETOF uuid
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public
  AS $$
  #variable_conflict use_column
  BEGIN
    RETURN QUERY
    WITH input AS (
      SELECT * FROM unnest(p_run_ids, p_success, p_results, p_errors, p_next_run_ats)
               AS i (run_id, success, result, error, next_run_at)
    ), run AS (
      UPDATE cron_job_runs r
         SET status = CASE WHEN i.success THEN 'success' ELSE 'failed' END,
             result = left(i.result, 4096),
             error = left(i.error, 1024),
             finished_at = clock_timestamp(),
             duration_ms = (extract(epoch FROM clock_timestamp() - r.started_at) * 1000)::integer
        FROM input i
       WHERE r.id = i.run_id AND r.status = 'running'
      RETURNING r.id, r.cron_job_id, r.started_at, i.success, i.error, i.next_run_at
    ), job AS (
      UPDATE cron_jobs j
         SET last_run_at = run.started_at,
             last_run_success = run.success,
             last_run_error = left(run.error, 1024),
             run_count = j.run_count + 1,
             next_run_at = run.next_run_at
        FROM run
       WHERE j.id = run.cron_job_id
    )
    SELECT run.id FROM run;
  END
  $$;

REVOKE ALL ON FUNCTION scheduler_load_schedules(uuid[]),
  scheduler_claim_runs(uuid[], timestamptz[], text),
  scheduler_finish_runs(uuid[], boolean[], text[], text[], timestamptz[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_load_schedules(uuid[]),
  scheduler_claim_runs(uuid[], timestamptz[], text),
  scheduler_finish_runs(uuid[], boolean[], text[], text[], timestamptz[]) TO hermesx_app;
