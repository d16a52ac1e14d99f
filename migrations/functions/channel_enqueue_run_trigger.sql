-- Trigger function of the channel outbox (cron_job_runs_channels_on_finish, AFTER UPDATE OF
-- status, and cron_job_runs_channels_on_insert, AFTER INSERT, on cron_job_runs; migration 355):
-- a run that becomes success or failed queues its channel messages in the transaction that
-- records it. An invoker function: it only calls the SECURITY DEFINER channel_enqueue_run. Like
-- the webhook outbox, a queued run ended by its job's deletion queues nothing.
CREATE OR REPLACE FUNCTION channel_enqueue_run_trigger() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.status = 'queued' AND EXISTS (
       SELECT 1 FROM cron_jobs j WHERE j.id = NEW.cron_job_id AND j.deleted_at IS NOT NULL) THEN
    RETURN NULL;
  END IF;
  PERFORM channel_enqueue_run(NEW.tenant_id, NEW.cron_job_id, NEW.id, NEW.scheduled_at);
  RETURN NULL;
END
$$;

REVOKE ALL ON FUNCTION channel_enqueue_run_trigger() FROM PUBLIC;
