-- Batched forms of the claim and the record, so a burst of occurrences costs one statement per
-- batch instead of one per occurrence. Same rules as scheduler_claim_run / scheduler_finish_run.

CREATE FUNCTION scheduler_claim_runs(p_job_ids uuid[], p_scheduled_ats timestamptz[], p_pod_id text)
  RETURNS TABLE (cron_job_id uuid, scheduled_at timestamptz, run_id uuid)
  LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public
  AS $$
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
  $$;

CREATE FUNCTION scheduler_finish_runs(p_run_ids uuid[], p_success boolean[], p_results text[],
                                      p_errors text[], p_next_run_ats timestamptz[])
  RETURNS SETOF uuid
  LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public
  AS $$
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
    SELECT id FROM run
  $$;

REVOKE ALL ON FUNCTION scheduler_claim_runs(uuid[], timestamptz[], text),
  scheduler_finish_runs(uuid[], boolean[], text[], text[], timestamptz[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_claim_runs(uuid[], timestamptz[], text),
  scheduler_finish_runs(uuid[], boolean[], text[], text[], timestamptz[]) TO hermesx_app;
