-- One delivery per enabled endpoint of the run's tenant that wants the run's event (all events,
-- or this one; all jobs, or this job). Called by the trigger on cron_job_runs inside the
-- transaction that records the run (the outbox), whoever records it, once per recorded run:
-- plpgsql, so its INSERT is planned once per connection (a LANGUAGE sql body is planned on every
-- call, and this one runs for every run). The event's data is frozen as the row goes in
-- (webhook_deliveries_freeze_payload). p_from_status is the status the run left (NULL for an
-- inserted run): a queued run that ends because its job was deleted (a waiting retry, a
-- backfilled occurrence) queues nothing, so deleting a job with many queued runs sends no
-- run.failed for each; the delete's own answer is the news.
CREATE FUNCTION webhook_enqueue_run(p_tenant_id uuid, p_cron_job_id uuid, p_run_id uuid,
                                    p_status text, p_from_status text)
  RETURNS void
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
  BEGIN
    IF p_from_status = 'queued' AND EXISTS (
         SELECT 1 FROM cron_jobs j WHERE j.id = p_cron_job_id AND j.deleted_at IS NOT NULL) THEN
      RETURN;
    END IF;
    INSERT INTO webhook_deliveries (tenant_id, endpoint_id, cron_job_id, run_id, event_type)
    SELECT e.tenant_id, e.id, p_cron_job_id, p_run_id, t.event_type
      FROM webhook_endpoints e,
           (SELECT CASE p_status WHEN 'success' THEN 'run.succeeded' ELSE 'run.failed' END
                   AS event_type) t
     WHERE e.tenant_id = p_tenant_id
       AND e.enabled
       AND (e.cron_job_id IS NULL OR e.cron_job_id = p_cron_job_id)
       AND (cardinality(e.events) = 0 OR t.event_type = ANY (e.events))
    ON CONFLICT (endpoint_id, run_id, event_type) DO NOTHING;
  END
  $$;

REVOKE ALL ON FUNCTION webhook_enqueue_run(uuid, uuid, uuid, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION webhook_enqueue_run(uuid, uuid, uuid, text, text) TO hermesx_app;
