-- Trigger function of the run outbox for recorded runs (cron_job_runs_outbox_on_finish, AFTER
-- UPDATE ON cron_job_runs, each statement; migration 390): every run the statement moved to
-- success or failed queues its webhook deliveries (webhook_enqueue_run) and its channel messages
-- (channel_enqueue_run) in the transaction that records it. Once per statement: a batch of
-- tenants with neither an enabled endpoint nor an enabled channel, most of them, costs one probe
-- per row and no call, where the two row triggers before it cost four function calls per run
-- (a third of scheduler_finish; bench/claim-plan.ts). An invoker function: the two it calls are
-- SECURITY DEFINER. A queued run ended because its job was deleted queues nothing (deleting a
-- job with 950 queued runs must not send 950 run.failed; docs/webhooks.md). In nominal-time
-- order, the order its runs happened.
CREATE OR REPLACE FUNCTION outbox_enqueue_finished_runs() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  DECLARE
    v_run record;
  BEGIN
    FOR v_run IN
      SELECT n.tenant_id, n.cron_job_id, n.id, n.status, n.scheduled_at
        FROM new_runs n
        JOIN old_runs o ON o.id = n.id AND o.scheduled_at = n.scheduled_at
       WHERE n.status IN ('success', 'failed') AND o.status NOT IN ('success', 'failed')
         AND (EXISTS (SELECT 1 FROM webhook_endpoints e
                       WHERE e.tenant_id = n.tenant_id AND e.enabled)
              OR EXISTS (SELECT 1 FROM notify_channels c
                          WHERE c.tenant_id = n.tenant_id AND c.enabled))
         AND NOT (o.status = 'queued'
                  AND EXISTS (SELECT 1 FROM cron_jobs j
                               WHERE j.id = n.cron_job_id AND j.deleted_at IS NOT NULL))
       ORDER BY n.scheduled_at, n.id
    LOOP
      PERFORM webhook_enqueue_run(v_run.tenant_id, v_run.cron_job_id, v_run.id, v_run.status);
      PERFORM channel_enqueue_run(v_run.tenant_id, v_run.cron_job_id, v_run.id,
                                  v_run.scheduled_at);
    END LOOP;
    RETURN NULL;
  END
  $$;

REVOKE ALL ON FUNCTION outbox_enqueue_finished_runs() FROM PUBLIC;
