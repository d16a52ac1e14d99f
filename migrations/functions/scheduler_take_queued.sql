-- Takes up to p_limit queued runs that are due (retries after their backoff, runs retried by
-- hand, backfilled occurrences), round-robin over tenants and oldest not_before first within
-- one, and makes them claimed by this pod: it
-- runs them as it runs any claimed run. Rows another pod is taking are skipped (SKIP LOCKED), so
-- pods never wait on each other and each row goes to one pod. A row is left queued while its job
-- is paused or gone, while the job has a run in flight (one run of a job at a time), and while its
-- tenant is at max_concurrent_runs (counted under the same per-tenant advisory lock as
-- scheduler_claim, so the cap holds across pods); at most one run per job is taken at a time.
CREATE FUNCTION scheduler_take_queued(p_pod_id text, p_limit integer)
  RETURNS TABLE (run_id uuid, cron_job_id uuid, tenant_id uuid, scheduled_at timestamptz,
                 name text, prompt text, timeout_ms integer, model text, attempt integer)
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  -- cron_job_runs_in_flight by its indexes only, as in scheduler_claim (the table churns).
  SET enable_seqscan = off
  AS $$
  #variable_conflict use_column
  BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('hermesx:tenant-cap:' || t.id::text, 0))
       FROM tenants t
      WHERE t.max_concurrent_runs > 0
        AND t.id IN (SELECT q.tenant_id FROM cron_job_runs q
                      WHERE q.status = 'queued' AND q.not_before <= now())
      ORDER BY t.id;
    RETURN QUERY
    WITH due AS MATERIALIZED (
      -- The due queued runs first, through the queued index: there are few, and the planner must
      -- not start from the jobs (after a bulk import its statistics say there are a few jobs,
      -- and it then probed every partition for every job).
      SELECT q.id, q.scheduled_at, q.cron_job_id, q.tenant_id, q.not_before
        FROM cron_job_runs q
       WHERE q.status = 'queued' AND q.not_before <= now()
    ), heads AS (
      -- The oldest due queued run of each job that may run now.
      SELECT DISTINCT ON (q.cron_job_id) q.id, q.scheduled_at, q.cron_job_id, q.tenant_id,
             q.not_before
        FROM due q
       WHERE EXISTS (SELECT 1 FROM cron_jobs j JOIN tenants t ON t.id = j.tenant_id
                      WHERE j.id = q.cron_job_id AND j.enabled AND j.deleted_at IS NULL
                        AND t.deleted_at IS NULL)
         AND NOT EXISTS (SELECT 1 FROM cron_job_runs_in_flight x
                          WHERE x.cron_job_id = q.cron_job_id)
       ORDER BY q.cron_job_id, q.not_before, q.id
    ), ranked AS (
      SELECT h.*, tn.max_concurrent_runs AS cap,
             row_number() OVER (PARTITION BY h.tenant_id ORDER BY h.not_before, h.id) AS rank_in_tenant
        FROM heads h JOIN tenants tn ON tn.id = h.tenant_id
    ), admitted AS (
      -- Round-robin over tenants (each one's oldest first), within each capped tenant's room.
      SELECT k.id, k.scheduled_at FROM ranked k
       WHERE coalesce(k.cap, 0) = 0
          OR k.rank_in_tenant <= k.cap - (SELECT count(*) FROM cron_job_runs_in_flight a
                                           WHERE a.tenant_id = k.tenant_id)
       ORDER BY k.rank_in_tenant, k.not_before, k.id
       LIMIT p_limit
    ), locked AS (
      SELECT q.id, q.scheduled_at FROM cron_job_runs q JOIN admitted m
          ON q.id = m.id AND q.scheduled_at = m.scheduled_at
       WHERE q.status = 'queued'
       FOR UPDATE OF q SKIP LOCKED
    ), taken AS (
      UPDATE cron_job_runs r
         SET status = 'claimed', pod_id = p_pod_id, started_at = now(), not_before = NULL,
             attempts = 0, model_called_at = NULL
        FROM locked m
       WHERE r.id = m.id AND r.scheduled_at = m.scheduled_at
      RETURNING r.id, r.cron_job_id, r.tenant_id, r.scheduled_at, r.attempt
    )
    SELECT k.id, k.cron_job_id, k.tenant_id, k.scheduled_at, j.name, j.prompt, j.timeout_ms, j.model,
           k.attempt
      FROM taken k JOIN cron_jobs j ON j.id = k.cron_job_id;
  END
  $$;

REVOKE ALL ON FUNCTION scheduler_take_queued(text, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_take_queued(text, integer) TO hermesx_app;
