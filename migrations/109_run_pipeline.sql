-- The run pipeline's SQL in force, in one place: every statement the scheduler issues on runs.
--
-- Run states: claimed (the occurrence is this pod's; no model request has left it yet) ->
-- running (the request may have reached the model) -> success | failed. A claimed run of a pod
-- that is gone is adopted by another pod and run there; a running one is failed, never re-run,
-- because the model may have acted on it (one model call per occurrence).
--
-- One clock: now(), the start of the statement's transaction. Each function is one statement in
-- its own transaction, so now() is "when the statement ran", the same instant for every row of a
-- batch, and the same clock as the column defaults (started_at, created_at). clock_timestamp()
-- would give rows of one batch different times depending on lock waits inside the statement.
--
-- Rolling deploys: pods of the previous version keep calling scheduler_claim_runs,
-- scheduler_finish_runs, scheduler_fail_named_runs and scheduler_running_runs (migrations
-- 106/108), which stay, adjusted below so they respect the claimed state. They are dropped by
-- the first migration of the release after this one (docs/database.md, "Functions in force").

ALTER TABLE cron_job_runs DROP CONSTRAINT cron_job_runs_status_check;
ALTER TABLE cron_job_runs ADD CONSTRAINT cron_job_runs_status_check
  CHECK (status IN ('claimed', 'running', 'success', 'failed'));
ALTER TABLE cron_job_runs ADD COLUMN error_kind text CHECK (error_kind IN (
  'timeout', 'pod_lost', 'shutdown', 'model_throttled', 'model_error', 'model_unreachable',
  'bad_response', 'agent_error', 'lock_lost', 'not_recorded'));
ALTER TABLE cron_job_runs ADD COLUMN attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0);
-- The job's last failure kind beside its last error, for lists of jobs.
ALTER TABLE cron_jobs ADD COLUMN last_run_error_kind text;

DROP INDEX cron_job_runs_running_idx;
CREATE INDEX cron_job_runs_active_idx ON cron_job_runs (started_at)
  WHERE status IN ('claimed', 'running');
-- Counts a capped tenant's runs in flight at each claim.
CREATE INDEX cron_job_runs_tenant_active_idx ON cron_job_runs (tenant_id)
  WHERE status IN ('claimed', 'running');

-- Runs in flight across all pods, per tenant; NULL or 0 means unlimited.
ALTER TABLE tenants ADD COLUMN max_concurrent_runs integer CHECK (max_concurrent_runs >= 0);

-- No longer called since migration 108 (two releases ago); it returned every tenant's prompt.
DROP FUNCTION scheduler_load_jobs(uuid[]);

-- Claims occurrences, as many as were fired together, in one statement. The unique key decides
-- who runs an occurrence, whatever the lock did. Per input row, returns either the claimed run
-- (with the job's name and prompt as committed now) or refused = 'capped' when the tenant is at
-- its max_concurrent_runs; an occurrence already claimed, or of a job gone, disabled or still in
-- flight, is not returned. Claims of capped tenants are serialised per tenant by an advisory lock
-- (taken in tenant id order, so two batches cannot deadlock), so the count below is true across
-- pods.
CREATE FUNCTION scheduler_claim(p_job_ids uuid[], p_scheduled_ats timestamptz[], p_pod_id text)
  RETURNS TABLE (cron_job_id uuid, scheduled_at timestamptz, run_id uuid, name text,
                 prompt text, refused text)
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
  #variable_conflict use_column
  BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('hermesx:tenant-cap:' || t.id::text, 0))
       FROM tenants t
      WHERE t.max_concurrent_runs > 0
        AND t.id IN (SELECT j.tenant_id FROM cron_jobs j WHERE j.id IN (SELECT unnest(p_job_ids)))
      ORDER BY t.id;
    RETURN QUERY
    WITH input AS (
      SELECT c.job_id, c.scheduled_at, c.ord
        FROM unnest(p_job_ids, p_scheduled_ats) WITH ORDINALITY AS c (job_id, scheduled_at, ord)
    ), candidate AS (
      SELECT i.job_id, i.scheduled_at, j.tenant_id, t.max_concurrent_runs AS cap,
             row_number() OVER (PARTITION BY j.tenant_id ORDER BY i.ord) AS rank_in_tenant
        FROM input i
        JOIN cron_jobs j ON j.id = i.job_id
        JOIN tenants t ON t.id = j.tenant_id
       WHERE j.enabled AND t.deleted_at IS NULL
         AND NOT EXISTS (SELECT 1 FROM cron_job_runs x
                          WHERE x.cron_job_id = i.job_id AND x.status IN ('claimed', 'running'))
    ), room AS (
      SELECT c.*, CASE WHEN coalesce(c.cap, 0) = 0 THEN true
                       ELSE c.rank_in_tenant <= c.cap - (
                         SELECT count(*) FROM cron_job_runs a
                          WHERE a.tenant_id = c.tenant_id AND a.status IN ('claimed', 'running'))
                  END AS admitted
        FROM candidate c
    ), claimed AS (
      INSERT INTO cron_job_runs AS r (cron_job_id, tenant_id, scheduled_at, status, pod_id)
      SELECT m.job_id, m.tenant_id, m.scheduled_at, 'claimed', p_pod_id FROM room m WHERE m.admitted
      ON CONFLICT ON CONSTRAINT cron_job_runs_cron_job_id_scheduled_at_key DO NOTHING
      RETURNING r.cron_job_id, r.scheduled_at, r.id
    )
    SELECT c.cron_job_id, c.scheduled_at, c.id, j.name, j.prompt, NULL::text
      FROM claimed c JOIN cron_jobs j ON j.id = c.cron_job_id
    UNION ALL
    SELECT m.job_id, m.scheduled_at, NULL::uuid, NULL::text, NULL::text, 'capped'
      FROM room m WHERE NOT m.admitted;
  END
  $$;

-- The model request of these runs is about to leave the pod: claimed -> running. Returns the
-- runs still claimed by this pod; a run adopted by another pod meanwhile is not, and this pod
-- must not send it.
CREATE FUNCTION scheduler_mark_sent(p_run_ids uuid[], p_pod_id text)
  RETURNS SETOF uuid
  LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    UPDATE cron_job_runs SET status = 'running'
     WHERE id IN (SELECT unnest(p_run_ids)) AND status = 'claimed' AND pod_id = p_pod_id
    RETURNING id
  $$;

-- Finishes runs of this pod and updates their jobs in one statement. Returns the runs it
-- finished; one failed by recovery or adopted by another pod is left as it is.
CREATE FUNCTION scheduler_finish(p_run_ids uuid[], p_success boolean[], p_results text[],
                                 p_errors text[], p_error_kinds text[], p_attempts integer[],
                                 p_next_run_ats timestamptz[], p_pod_id text)
  RETURNS SETOF uuid
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
  #variable_conflict use_column
  BEGIN
    RETURN QUERY
    WITH input AS (
      SELECT * FROM unnest(p_run_ids, p_success, p_results, p_errors, p_error_kinds, p_attempts,
                           p_next_run_ats)
               AS i (run_id, success, result, error, error_kind, attempts, next_run_at)
    ), run AS (
      UPDATE cron_job_runs r
         SET status = CASE WHEN i.success THEN 'success' ELSE 'failed' END,
             result = left(i.result, 4096),
             error = left(i.error, 1024),
             error_kind = CASE WHEN i.success THEN NULL ELSE i.error_kind END,
             attempts = i.attempts,
             finished_at = now(),
             duration_ms = greatest(0, (extract(epoch FROM now() - r.started_at) * 1000))::integer
        FROM input i
       WHERE r.id = i.run_id AND r.status IN ('claimed', 'running') AND r.pod_id = p_pod_id
      RETURNING r.id, r.cron_job_id, r.started_at, i.success, i.error, r.error_kind, i.next_run_at
    ), job AS (
      UPDATE cron_jobs j
         SET last_run_at = run.started_at,
             last_run_success = run.success,
             last_run_error = left(run.error, 1024),
             last_run_error_kind = run.error_kind,
             run_count = j.run_count + 1,
             next_run_at = run.next_run_at
        FROM run
       WHERE j.id = run.cron_job_id
    )
    SELECT run.id FROM run;
  END
  $$;

-- Fails the named runs with a reason and its kind, and their jobs' last_run_* with them.
CREATE FUNCTION scheduler_fail(p_run_ids uuid[], p_error text, p_error_kind text)
  RETURNS TABLE (run_id uuid, cron_job_id uuid)
  LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    WITH failed AS (
      UPDATE cron_job_runs r
         SET status = 'failed',
             error = left(p_error, 1024),
             error_kind = p_error_kind,
             finished_at = now(),
             duration_ms = greatest(0, (extract(epoch FROM now() - r.started_at) * 1000))::integer
       WHERE r.id IN (SELECT unnest(p_run_ids)) AND r.status IN ('claimed', 'running')
      RETURNING r.id, r.cron_job_id, r.started_at
    ), latest AS (
      SELECT DISTINCT ON (f.cron_job_id) f.cron_job_id, f.started_at
        FROM failed f ORDER BY f.cron_job_id, f.started_at DESC
    ), jobs AS (
      UPDATE cron_jobs j
         SET last_run_at = l.started_at,
             last_run_success = false,
             last_run_error = left(p_error, 1024),
             last_run_error_kind = p_error_kind,
             run_count = j.run_count + 1
        FROM latest l
       WHERE j.id = l.cron_job_id
    )
    SELECT f.id, f.cron_job_id FROM failed f
  $$;

-- Runs in flight on any pod, with their state, for recovery.
CREATE FUNCTION scheduler_active_runs()
  RETURNS TABLE (run_id uuid, cron_job_id uuid, pod_id text, status text)
  LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    SELECT id, cron_job_id, pod_id, status FROM cron_job_runs
     WHERE status IN ('claimed', 'running')
  $$;

-- Takes over claimed runs from the pods named with them (gone, or this pod's own leftovers):
-- they are this pod's now, to run. A run another pod adopted first is not taken again. Returns
-- what running them needs, for the runs it took.
CREATE FUNCTION scheduler_adopt(p_run_ids uuid[], p_from_pods text[], p_pod_id text)
  RETURNS TABLE (run_id uuid, cron_job_id uuid, tenant_id uuid, scheduled_at timestamptz,
                 name text, prompt text)
  LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    WITH adopted AS (
      UPDATE cron_job_runs r SET pod_id = p_pod_id
        FROM unnest(p_run_ids, p_from_pods) AS i (run_id, from_pod)
       WHERE r.id = i.run_id AND r.pod_id = i.from_pod AND r.status = 'claimed'
      RETURNING r.id, r.cron_job_id, r.tenant_id, r.scheduled_at
    )
    SELECT a.id, a.cron_job_id, a.tenant_id, a.scheduled_at, j.name, j.prompt
      FROM adopted a JOIN cron_jobs j ON j.id = a.cron_job_id
  $$;

-- The guide's recovery step: runs still in flight after the lock TTL belong to a pod that died
-- or overran its lock, so they are failed. Returns how many.
CREATE OR REPLACE FUNCTION scheduler_cleanup_stale_runs(lock_ttl_seconds integer)
  RETURNS integer
  LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    SELECT count(*)::integer FROM scheduler_fail(
      ARRAY(SELECT id FROM cron_job_runs
             WHERE status IN ('claimed', 'running')
               AND started_at < now() - make_interval(secs => lock_ttl_seconds)),
      'pod crash or lock TTL exceeded', 'lock_lost')
  $$;

-- Previous version's claim: it must not start a job that has a claimed run either.
CREATE OR REPLACE FUNCTION scheduler_claim_runs(p_job_ids uuid[], p_scheduled_ats timestamptz[],
                                                p_pod_id text)
  RETURNS TABLE (cron_job_id uuid, scheduled_at timestamptz, run_id uuid, name text, prompt text)
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
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
                          WHERE x.cron_job_id = c.job_id AND x.status IN ('claimed', 'running'))
      ON CONFLICT ON CONSTRAINT cron_job_runs_cron_job_id_scheduled_at_key DO NOTHING
      RETURNING r.cron_job_id, r.scheduled_at, r.id
    )
    SELECT c.cron_job_id, c.scheduled_at, c.id, j.name, j.prompt
      FROM claimed c JOIN cron_jobs j ON j.id = c.cron_job_id;
  END
  $$;

REVOKE ALL ON FUNCTION
  scheduler_claim(uuid[], timestamptz[], text),
  scheduler_mark_sent(uuid[], text),
  scheduler_finish(uuid[], boolean[], text[], text[], text[], integer[], timestamptz[], text),
  scheduler_fail(uuid[], text, text),
  scheduler_active_runs(),
  scheduler_adopt(uuid[], text[], text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION
  scheduler_claim(uuid[], timestamptz[], text),
  scheduler_mark_sent(uuid[], text),
  scheduler_finish(uuid[], boolean[], text[], text[], text[], integer[], timestamptz[], text),
  scheduler_fail(uuid[], text, text),
  scheduler_active_runs(),
  scheduler_adopt(uuid[], text[], text) TO hermesx_app;
