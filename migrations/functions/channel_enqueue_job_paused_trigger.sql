-- Trigger function of cron_jobs_channels_on_pause (AFTER UPDATE ON cron_jobs, migration 355): a
-- job the system paused (pause_after_failures, max_runs, budget) queues one message per tenant
-- rule `system_paused`, in the transaction that pauses it. An invoker function: it only calls
-- the SECURITY DEFINER channel_enqueue_alert.
CREATE OR REPLACE FUNCTION channel_enqueue_job_paused_trigger() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  PERFORM channel_enqueue_alert(NEW.tenant_id, NEW.id, jsonb_build_object(
    'subject', 'job_paused',
    'job_id', NEW.id,
    'job_name', NEW.name,
    'status', 'paused',
    'paused_at', to_char(coalesce(NEW.paused_at, now()) AT TIME ZONE 'UTC',
                         'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'paused_reason', NEW.paused_reason,
    'stopped_by', NEW.stopped_by,
    'consecutive_failures', NEW.consecutive_failures));
  RETURN NULL;
END
$$;

REVOKE ALL ON FUNCTION channel_enqueue_job_paused_trigger() FROM PUBLIC;
