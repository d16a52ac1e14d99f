-- Trigger function of the run outbox for recorded runs (cron_job_runs_webhooks_on_finish, AFTER
-- UPDATE ON cron_job_runs, each statement; migration 390): every run the statement moved to
-- success or failed queues its deliveries (webhook_enqueue_run) in the transaction that records
-- it, as the row trigger before it did. Once per statement: a batch of a tenant without an
-- enabled endpoint, most of them, costs one probe per row and no call, where a row trigger cost
-- two function calls per run (a third of scheduler_finish; bench/claim-plan.ts). An invoker
-- function, like webhook_enqueue_run_trigger. A queued run ended because its job was deleted
-- queues nothing (docs/webhooks.md). In nominal-time order, the order its runs happened.
CREATE OR REPLACE FUNCTION webhook_enqueue_finished_runs() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  DECLARE
    v_run record;
  BEGIN
    FOR v_run IN
      SELECT n.tenant_id, n.cron_job_id, n.id, n.status
        FROM new_runs n
        JOIN old_runs o ON o.id = n.id AND o.scheduled_at = n.scheduled_at
       WHERE n.status IN ('success', 'failed') AND o.status NOT IN ('success', 'failed')
         AND EXISTS (SELECT 1 FROM webhook_endpoints e
                      WHERE e.tenant_id = n.tenant_id AND e.enabled)
         AND NOT (o.status = 'queued'
                  AND EXISTS (SELECT 1 FROM cron_jobs j
                               WHERE j.id = n.cron_job_id AND j.deleted_at IS NOT NULL))
       ORDER BY n.scheduled_at, n.id
    LOOP
      PERFORM webhook_enqueue_run(v_run.tenant_id, v_run.cron_job_id, v_run.id, v_run.status);
    END LOOP;
    RETURN NULL;
  END
  $$;

REVOKE ALL ON FUNCTION webhook_enqueue_finished_runs() FROM PUBLIC;
