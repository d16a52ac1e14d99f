-- Trigger function of the run outbox (cron_job_runs_webhooks_on_finish, AFTER UPDATE OF status,
-- and cron_job_runs_webhooks_on_insert, AFTER INSERT, on cron_job_runs; migration 210): a run
-- that becomes success or failed queues its deliveries in the transaction that records it. An
-- invoker function: it only calls the SECURITY DEFINER webhook_enqueue_run, so it works whoever
-- records the run. Row triggers, which PostgreSQL 16 also clones onto every partition.
CREATE OR REPLACE FUNCTION webhook_enqueue_run_trigger() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  PERFORM webhook_enqueue_run(NEW.tenant_id, NEW.cron_job_id, NEW.id, NEW.status,
                              CASE WHEN TG_OP = 'UPDATE' THEN OLD.status END);
  RETURN NULL;
END
$$;

REVOKE ALL ON FUNCTION webhook_enqueue_run_trigger() FROM PUBLIC;
