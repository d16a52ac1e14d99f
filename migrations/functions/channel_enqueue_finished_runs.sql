-- Trigger function of the channel outbox for recorded runs (cron_job_runs_channels_on_finish,
-- AFTER UPDATE ON cron_job_runs, each statement; migration 390): every run the statement moved to
-- success or failed queues its channel messages (channel_enqueue_run) in the transaction that
-- records it, once per statement, as webhook_enqueue_finished_runs does for deliveries (a tenant
-- without an enabled channel costs one probe per row and no call). An invoker function. A queued
-- run ended because its job was deleted queues nothing. In nominal-time order.
CREATE OR REPLACE FUNCTION channel_enqueue_finished_runs() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  DECLARE
    v_run record;
  BEGIN
    FOR v_run IN
      SELECT n.tenant_id, n.cron_job_id, n.id, n.scheduled_at
        FROM new_runs n
        JOIN old_runs o ON o.id = n.id AND o.scheduled_at = n.scheduled_at
       WHERE n.status IN ('success', 'failed') AND o.status NOT IN ('success', 'failed')
         AND EXISTS (SELECT 1 FROM notify_channels c
                      WHERE c.tenant_id = n.tenant_id AND c.enabled)
         AND NOT (o.status = 'queued'
                  AND EXISTS (SELECT 1 FROM cron_jobs j
                               WHERE j.id = n.cron_job_id AND j.deleted_at IS NOT NULL))
       ORDER BY n.scheduled_at, n.id
    LOOP
      PERFORM channel_enqueue_run(v_run.tenant_id, v_run.cron_job_id, v_run.id,
                                  v_run.scheduled_at);
    END LOOP;
    RETURN NULL;
  END
  $$;

REVOKE ALL ON FUNCTION channel_enqueue_finished_runs() FROM PUBLIC;
