-- One delivery per enabled endpoint of the run's tenant that wants the run's event (all events,
-- or this one; all jobs, or this job). Called by the trigger on cron_job_runs inside the
-- transaction that records the run (the outbox), whoever records it, once per recorded run:
-- plpgsql, so its statements are planned once per connection (a LANGUAGE sql body is planned on
-- every call, and this one runs for every run). The event's data is frozen into the delivery
-- here (webhook_run_event_data): every attempt sends it, whatever happens to the run afterwards.
CREATE FUNCTION webhook_enqueue_run(p_tenant_id uuid, p_cron_job_id uuid, p_run_id uuid,
                                    p_status text)
  RETURNS void
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
  DECLARE
    v_event text := CASE p_status WHEN 'success' THEN 'run.succeeded' ELSE 'run.failed' END;
  BEGIN
    -- Most runs have no endpoint: they read nothing more.
    IF NOT EXISTS (
         SELECT 1 FROM webhook_endpoints e
          WHERE e.tenant_id = p_tenant_id
            AND e.enabled
            AND (e.cron_job_id IS NULL OR e.cron_job_id = p_cron_job_id)
            AND (cardinality(e.events) = 0 OR v_event = ANY (e.events))) THEN
      RETURN;
    END IF;
    INSERT INTO webhook_deliveries (tenant_id, endpoint_id, cron_job_id, run_id, event_type,
                                    payload)
    SELECT e.tenant_id, e.id, p_cron_job_id, p_run_id, v_event, d.data
      FROM webhook_endpoints e,
           (SELECT webhook_run_event_data(p_run_id, p_tenant_id) AS data) d
     WHERE e.tenant_id = p_tenant_id
       AND e.enabled
       AND (e.cron_job_id IS NULL OR e.cron_job_id = p_cron_job_id)
       AND (cardinality(e.events) = 0 OR v_event = ANY (e.events))
    ON CONFLICT (endpoint_id, run_id, event_type) DO NOTHING;
  END
  $$;

REVOKE ALL ON FUNCTION webhook_enqueue_run(uuid, uuid, uuid, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION webhook_enqueue_run(uuid, uuid, uuid, text) TO hermesx_app;
