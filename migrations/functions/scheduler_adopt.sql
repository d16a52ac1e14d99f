-- Takes over claimed runs from the pods named with them (gone, or this pod's own leftovers):
-- they are this pod's now, to run. A run another pod adopted first is not taken again. Returns
-- what running them needs, for the runs it took.
CREATE FUNCTION scheduler_adopt(p_run_ids uuid[], p_from_pods text[], p_pod_id text)
  RETURNS TABLE (run_id uuid, cron_job_id uuid, tenant_id uuid, scheduled_at timestamptz,
                 name text, prompt text, timeout_ms integer, model text, attempt integer)
  LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    WITH adopted AS (
      UPDATE cron_job_runs r SET pod_id = p_pod_id
        FROM unnest(p_run_ids, p_from_pods) AS i (run_id, from_pod)
       WHERE r.id = i.run_id AND r.pod_id = i.from_pod AND r.status = 'claimed'
      RETURNING r.id, r.cron_job_id, r.tenant_id, r.scheduled_at, r.attempt
    )
    SELECT a.id, a.cron_job_id, a.tenant_id, a.scheduled_at, j.name, j.prompt, j.timeout_ms, j.model,
           a.attempt
      FROM adopted a JOIN cron_jobs j ON j.id = a.cron_job_id
  $$;

REVOKE ALL ON FUNCTION scheduler_adopt(uuid[], text[], text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_adopt(uuid[], text[], text) TO hermesx_app;
