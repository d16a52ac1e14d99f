-- One job.paused delivery per enabled endpoint of the job's tenant that wants it (all events, or
-- job.paused; all jobs, or this job). Called by the trigger on cron_jobs inside the transaction
-- that pauses the job (the outbox), whoever pauses it; p_payload is the event's data.
CREATE FUNCTION webhook_enqueue_job_paused(p_tenant_id uuid, p_cron_job_id uuid, p_payload jsonb)
  RETURNS void
  LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    INSERT INTO webhook_deliveries (tenant_id, endpoint_id, cron_job_id, run_id, event_type,
                                    payload)
    SELECT e.tenant_id, e.id, p_cron_job_id, NULL, 'job.paused', p_payload
      FROM webhook_endpoints e
     WHERE e.tenant_id = p_tenant_id
       AND e.enabled
       AND (e.cron_job_id IS NULL OR e.cron_job_id = p_cron_job_id)
       AND (cardinality(e.events) = 0 OR 'job.paused' = ANY (e.events))
  $$;

REVOKE ALL ON FUNCTION webhook_enqueue_job_paused(uuid, uuid, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION webhook_enqueue_job_paused(uuid, uuid, jsonb) TO hermesx_app;
