-- Trigger function of the run outbox (cron_job_runs_webhooks_on_finish, AFTER UPDATE OF status,
-- and cron_job_runs_webhooks_on_insert, AFTER INSERT, on cron_job_runs; migration 210): a run
-- that becomes success or failed queues its deliveries in the transaction that records it. An
-- invoker function: it only reads the run's job and calls the SECURITY DEFINER
-- webhook_enqueue_run, so it works whoever records the run. Row triggers, which PostgreSQL 16
-- also clones onto every partition. A queued run (a retry waiting, a backfilled occurrence)
-- that ends because its job was deleted queues nothing: deleting a job with 950 queued runs
-- must not send 950 run.failed (and sends no summary either; docs/webhooks.md).
CREATE OR REPLACE FUNCTION webhook_enqueue_run_trigger() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.status = 'queued' AND EXISTS (
       SELECT 1 FROM cron_jobs j WHERE j.id = NEW.cron_job_id AND j.deleted_at IS NOT NULL) THEN
    RETURN NULL;
  END IF;
  PERFORM webhook_enqueue_run(NEW.tenant_id, NEW.cron_job_id, NEW.id, NEW.status);
  RETURN NULL;
END
$$;

REVOKE ALL ON FUNCTION webhook_enqueue_run_trigger() FROM PUBLIC;
