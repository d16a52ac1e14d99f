-- Trigger function of cron_jobs_webhooks_on_pause (AFTER UPDATE ON cron_jobs, when a job pauses;
-- migration 251): queues the job.paused deliveries in the transaction that pauses the job. An
-- invoker function: it only calls the SECURITY DEFINER webhook_enqueue_job_paused. paused_by is
-- set by every pause (the job rules for a user, cron_jobs_apply_run_limits for the system).
CREATE OR REPLACE FUNCTION webhook_enqueue_job_paused_trigger() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  PERFORM webhook_enqueue_job_paused(NEW.tenant_id, NEW.id, jsonb_build_object(
    'job_id', NEW.id,
    'job_name', NEW.name,
    'paused_at', NEW.paused_at,
    'paused_by', NEW.paused_by,
    'paused_reason', NEW.paused_reason,
    'stopped_by', NEW.stopped_by,
    'consecutive_failures', NEW.consecutive_failures,
    'run_count', NEW.run_count,
    'labels', NEW.labels));
  RETURN NULL;
END
$$;

REVOKE ALL ON FUNCTION webhook_enqueue_job_paused_trigger() FROM PUBLIC;
