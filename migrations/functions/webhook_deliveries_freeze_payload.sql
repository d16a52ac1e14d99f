-- Trigger function of webhook_deliveries_freeze_payload (BEFORE INSERT OR UPDATE on
-- webhook_deliveries, when a run event has no payload yet; migration 335): a run event's data is
-- frozen when its delivery is queued, in the transaction that records the run, as the runs list
-- shows the run then (the result's short form, times in RFC 3339 with milliseconds, UTC) plus
-- job_id and job_name. Every attempt sends exactly these bytes, whatever happens to the run
-- afterwards (a retry by hand, a rename of the job). A run that is gone leaves it null (the
-- sender cancels such a delivery). An invoker function: it only reads, as the statement's role
-- (the SECURITY DEFINER enqueue, the migration, or a tenant's own statement under RLS).
CREATE OR REPLACE FUNCTION webhook_deliveries_freeze_payload() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  NEW.payload := (
    SELECT jsonb_build_object(
             'id', r.id,
             'cron_job_id', r.cron_job_id,
             'scheduled_at', to_char(r.scheduled_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'started_at', to_char(r.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'finished_at', to_char(r.finished_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'status', r.status,
             'result', left(r.result, 4096),
             'error', r.error,
             'error_kind', r.error_kind,
             'attempts', r.attempts,
             'attempt', r.attempt,
             'duration_ms', r.duration_ms,
             'pod_id', r.pod_id,
             'not_before', to_char(r.not_before AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'created_at', to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'origin', r.origin,
             'result_bytes', r.result_bytes,
             'result_complete', (r.result_object_key IS NULL AND NOT r.result_truncated
                                 AND coalesce(length(r.result), 0) <= 4096),
             'job_id', r.cron_job_id,
             'job_name', coalesce(j.name, ''))
      FROM cron_job_runs r
      LEFT JOIN cron_jobs j ON j.id = r.cron_job_id
     WHERE r.id = NEW.run_id AND r.tenant_id = NEW.tenant_id);
  RETURN NEW;
END
$$;

REVOKE ALL ON FUNCTION webhook_deliveries_freeze_payload() FROM PUBLIC;
