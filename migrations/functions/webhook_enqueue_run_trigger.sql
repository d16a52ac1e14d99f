-- Trigger function of the run outbox for runs inserted already recorded
-- (cron_job_runs_webhooks_on_insert, AFTER INSERT ON cron_job_runs, each row; migration 210): a
-- run written as success or failed queues its deliveries in the transaction that writes it. A
-- run recorded by an update goes through outbox_enqueue_finished_runs (migration 390). An
-- invoker function: it only calls the SECURITY DEFINER webhook_enqueue_run, so it works whoever
-- writes the run. A row trigger, which PostgreSQL 16 also clones onto every partition.
CREATE OR REPLACE FUNCTION webhook_enqueue_run_trigger() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  PERFORM webhook_enqueue_run(NEW.tenant_id, NEW.cron_job_id, NEW.id, NEW.status);
  RETURN NULL;
END
$$;

REVOKE ALL ON FUNCTION webhook_enqueue_run_trigger() FROM PUBLIC;
