-- The job.paused webhook event: a job that pauses (pause_after_failures or max_runs, paused_by
-- system; or a user's enabled: false) queues one delivery per endpoint that wants it, in the
-- transaction that pauses it (the outbox, as for runs). The event has no run: its body is the
-- job's pause as it was then, kept with the delivery (payload).
ALTER TABLE webhook_endpoints DROP CONSTRAINT webhook_endpoints_events_check;
ALTER TABLE webhook_endpoints ADD CONSTRAINT webhook_endpoints_events_check
  CHECK (events <@ ARRAY['run.succeeded', 'run.failed', 'job.paused']::text[]);
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_event_type_check;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_event_type_check
  CHECK (event_type IN ('run.succeeded', 'run.failed', 'job.paused'));
ALTER TABLE webhook_deliveries ALTER COLUMN run_id DROP NOT NULL;
ALTER TABLE webhook_deliveries
  ADD COLUMN payload jsonb CHECK (octet_length(payload::text) <= 8192),
  ADD CONSTRAINT webhook_deliveries_subject
    CHECK ((event_type = 'job.paused') = (run_id IS NULL AND payload IS NOT NULL));

-- An invoker trigger function (it only calls the SECURITY DEFINER enqueue). paused_by is set by
-- every pause (the job rules for a user, cron_jobs_apply_run_limits for the system).
CREATE FUNCTION webhook_enqueue_job_paused_trigger() RETURNS trigger
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

-- Not "UPDATE OF enabled": a system pause sets enabled in a BEFORE trigger of an update of
-- run_count, and column triggers only see the statement's SET list.
CREATE TRIGGER cron_jobs_webhooks_on_pause
  AFTER UPDATE ON cron_jobs
  FOR EACH ROW
  WHEN (OLD.enabled AND NOT NEW.enabled AND NEW.paused_by IS NOT NULL)
  EXECUTE FUNCTION webhook_enqueue_job_paused_trigger();
