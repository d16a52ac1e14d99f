-- The scheduler works across tenants; these narrow functions are the only way it does so.

-- Enabled jobs of live tenants (all of them, or those named), with the latest occurrence already
-- claimed, from which a pod computes what was missed.
CREATE FUNCTION scheduler_load_jobs(p_ids uuid[] DEFAULT NULL)
  RETURNS TABLE (id uuid, tenant_id uuid, name text, schedule text, timezone text, prompt text,
                 due_from timestamptz, updated_at timestamptz, last_scheduled_at timestamptz)
  LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = pg_catalog, public
  AS $$
    SELECT j.id, j.tenant_id, j.name, j.schedule, j.timezone, j.prompt, j.due_from, j.updated_at,
           (SELECT max(r.scheduled_at) FROM cron_job_runs r WHERE r.cron_job_id = j.id)
      FROM cron_jobs j JOIN tenants t ON t.id = j.tenant_id
     WHERE j.enabled AND t.deleted_at IS NULL
       -- IN (SELECT unnest()) is a hashed semi-join; = ANY (p_ids) would compare each row with
       -- every id, quadratic for the 100,000 ids a bulk insert notifies.
       AND (p_ids IS NULL OR j.id IN (SELECT unnest(p_ids)))
  $$;

-- Id and version of every enabled job of a live tenant: periodic syncs compare these and load
-- only what changed.
CREATE FUNCTION scheduler_job_versions()
  RETURNS TABLE (id uuid, updated_at timestamptz)
  LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = pg_catalog, public
  AS $$
    SELECT j.id, j.updated_at FROM cron_jobs j JOIN tenants t ON t.id = j.tenant_id
     WHERE j.enabled AND t.deleted_at IS NULL
  $$;

-- Claims occurrences, as many as were fired together, in one statement: the unique key
-- decides, whatever the lock did. Returns the claimed ones; an occurrence already claimed, or of
-- a job gone, disabled or still running, is not returned.
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

-- Finishes runs and updates their jobs in one statement (one transaction). Returns the runs that
-- were still running; one already failed by recovery is left as it is.
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

-- Runs still marked running, with the pod that claimed them, for the liveness check.
CREATE FUNCTION scheduler_running_runs()
  RETURNS TABLE (run_id uuid, cron_job_id uuid, pod_id text)
  LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = pg_catalog, public
  AS $$ SELECT id, cron_job_id, pod_id FROM cron_job_runs WHERE status = 'running' $$;

-- Fails the named runs (a dead pod's, or this pod's own at shutdown).
CREATE FUNCTION scheduler_fail_named_runs(p_run_ids uuid[], p_error text)
  RETURNS TABLE (run_id uuid, cron_job_id uuid)
  LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public
  AS $$ SELECT * FROM scheduler_fail_runs(p_run_ids, p_error) $$;

REVOKE ALL ON FUNCTION scheduler_load_jobs(uuid[]), scheduler_job_versions(),
  scheduler_claim_runs(uuid[], timestamptz[], text),
  scheduler_finish_runs(uuid[], boolean[], text[], text[], timestamptz[]),
  scheduler_running_runs(), scheduler_fail_named_runs(uuid[], text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_load_jobs(uuid[]), scheduler_job_versions(),
  scheduler_claim_runs(uuid[], timestamptz[], text),
  scheduler_finish_runs(uuid[], boolean[], text[], text[], timestamptz[]),
  scheduler_running_runs(), scheduler_fail_named_runs(uuid[], text) TO hermesx_app;

-- A tenant deleted or restored changes which jobs may fire: tell the pods about each of its jobs.
CREATE FUNCTION tenants_notify_jobs() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public
  AS $$
  BEGIN
    PERFORM pg_notify('hermesx_cron_jobs', j.id::text) FROM cron_jobs j WHERE j.tenant_id = NEW.id;
    RETURN NULL;
  END
  $$;

CREATE TRIGGER tenants_notify_jobs AFTER UPDATE ON tenants
  FOR EACH ROW WHEN (OLD.deleted_at IS DISTINCT FROM NEW.deleted_at)
  EXECUTE FUNCTION tenants_notify_jobs();
