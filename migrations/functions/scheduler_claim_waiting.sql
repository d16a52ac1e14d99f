-- Claims one occurrence of a 'buffer_one' or 'cancel_other' job while the job's previous run
-- still holds its lock: the run row is written now (status 'claimed', under this pod), so the
-- occurrence survives this pod dying while it waits (recovery adopts it), and it starts once the
-- lock is free. At most one occurrence waits per job: with two runs of the job already in flight
-- (one running, one waiting) it is refused 'overlap'. The tenant's max_concurrent_runs holds as
-- in scheduler_claim (refused 'capped'), under the same advisory lock; a per-job advisory lock
-- makes the count true when two pods claim occurrences of one job at once. An occurrence
-- already claimed returns no row. A claimed one moves next_run_at on as scheduler_claim does.
CREATE FUNCTION scheduler_claim_waiting(p_job_id uuid, p_scheduled_at timestamptz,
                                        p_next_run_at timestamptz, p_pod_id text)
  RETURNS TABLE (run_id uuid, name text, prompt text, refused text, timeout_ms integer,
                 model text)
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  -- cron_job_runs_in_flight by its indexes only, as in scheduler_claim (the table churns).
  SET enable_seqscan = off
  AS $$
  #variable_conflict use_column
  DECLARE
    v_job cron_jobs%ROWTYPE;
    v_cap integer;
    v_id uuid;
  BEGIN
    SELECT j.* INTO v_job FROM cron_jobs j JOIN tenants t ON t.id = j.tenant_id
     WHERE j.id = p_job_id AND j.enabled AND j.deleted_at IS NULL AND t.deleted_at IS NULL
       AND j.overlap IN ('buffer_one', 'cancel_other');
    IF NOT FOUND THEN
      RETURN;
    END IF;
    SELECT t.max_concurrent_runs INTO v_cap FROM tenants t WHERE t.id = v_job.tenant_id;
    IF coalesce(v_cap, 0) > 0 THEN
      PERFORM pg_advisory_xact_lock(hashtextextended('hermesx:tenant-cap:' || v_job.tenant_id::text, 0));
    END IF;
    PERFORM pg_advisory_xact_lock(hashtextextended('hermesx:overlap:' || p_job_id::text, 0));
    IF (SELECT count(*) FROM cron_job_runs_in_flight x
         WHERE x.cron_job_id = p_job_id AND x.scheduled_at <> p_scheduled_at) >= 2 THEN
      RETURN QUERY SELECT NULL::uuid, NULL::text, NULL::text, 'overlap'::text, NULL::integer,
                          NULL::text;
      RETURN;
    END IF;
    IF coalesce(v_cap, 0) > 0 AND (SELECT count(*) FROM cron_job_runs_in_flight a
                                    WHERE a.tenant_id = v_job.tenant_id) >= v_cap THEN
      RETURN QUERY SELECT NULL::uuid, NULL::text, NULL::text, 'capped'::text, NULL::integer,
                          NULL::text;
      RETURN;
    END IF;
    INSERT INTO cron_job_runs AS r (cron_job_id, tenant_id, scheduled_at, status, pod_id)
    VALUES (p_job_id, v_job.tenant_id, p_scheduled_at, 'claimed', p_pod_id)
    ON CONFLICT ON CONSTRAINT cron_job_runs_cron_job_id_scheduled_at_key DO NOTHING
    RETURNING r.id INTO v_id;
    IF v_id IS NULL THEN
      RETURN;
    END IF;
    IF p_next_run_at IS NOT NULL THEN
      UPDATE cron_jobs j SET next_run_at = p_next_run_at
       WHERE j.id = p_job_id AND j.next_run_at <= p_scheduled_at AND p_next_run_at > j.next_run_at;
    END IF;
    RETURN QUERY SELECT v_id, v_job.name, v_job.prompt, NULL::text, v_job.timeout_ms, v_job.model;
  END
  $$;

REVOKE ALL ON FUNCTION scheduler_claim_waiting(uuid, timestamptz, timestamptz, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_claim_waiting(uuid, timestamptz, timestamptz, text) TO hermesx_app;
