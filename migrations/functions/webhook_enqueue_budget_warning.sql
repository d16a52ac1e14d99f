-- One budget.warning delivery per enabled endpoint of the tenant that wants it (all events, or
-- budget.warning; all jobs, or this job): a budget passed 80 % of its limit in its period
-- (src/usage/warnings.ts, once per budget and period, decided in Redis). p_cron_job_id is the
-- job whose model call crossed the threshold (a delivery names a job); p_payload is the event's
-- data. Returns how many deliveries it queued.
CREATE FUNCTION webhook_enqueue_budget_warning(p_tenant_id uuid, p_cron_job_id uuid,
                                               p_payload jsonb)
  RETURNS integer
  LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    WITH queued AS (
      INSERT INTO webhook_deliveries (tenant_id, endpoint_id, cron_job_id, run_id, event_type,
                                      payload)
      SELECT e.tenant_id, e.id, p_cron_job_id, NULL, 'budget.warning', p_payload
        FROM webhook_endpoints e
       WHERE e.tenant_id = p_tenant_id
         AND e.enabled
         AND (e.cron_job_id IS NULL OR e.cron_job_id = p_cron_job_id)
         AND (cardinality(e.events) = 0 OR 'budget.warning' = ANY (e.events))
      RETURNING 1
    )
    SELECT count(*)::integer FROM queued
  $$;

REVOKE ALL ON FUNCTION webhook_enqueue_budget_warning(uuid, uuid, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION webhook_enqueue_budget_warning(uuid, uuid, jsonb) TO hermesx_app;
