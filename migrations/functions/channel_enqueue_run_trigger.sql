-- Trigger function of the channel outbox for runs inserted already recorded
-- (cron_job_runs_channels_on_insert, AFTER INSERT ON cron_job_runs, each row; migration 355): a
-- run written as success or failed queues its channel messages in the transaction that writes
-- it. A run recorded by an update goes through outbox_enqueue_finished_runs (migration 390). An
-- invoker function: it only calls the SECURITY DEFINER channel_enqueue_run.
CREATE OR REPLACE FUNCTION channel_enqueue_run_trigger() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  PERFORM channel_enqueue_run(NEW.tenant_id, NEW.cron_job_id, NEW.id, NEW.scheduled_at);
  RETURN NULL;
END
$$;

REVOKE ALL ON FUNCTION channel_enqueue_run_trigger() FROM PUBLIC;
