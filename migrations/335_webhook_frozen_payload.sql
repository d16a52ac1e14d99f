-- A run event's body is frozen when its delivery is queued (it was rendered from the run row at
-- each attempt, so one webhook-id could carry different bodies: a run retried by hand before its
-- run.failed went out was sent as run.failed with status success). The event's data goes in
-- webhook_deliveries.payload, the column job.paused already keeps its data in, written by
-- webhook_enqueue_run (migrations/functions/) in the transaction that records the run.

-- A run's data holds up to 4,096 characters of result and 1,024 of error, escaped.
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_payload_check;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_payload_check
  CHECK (octet_length(payload::text) <= 65536);

-- The deliveries still to be sent are frozen now, from their run as it is (the same data as
-- migrations/functions/webhook_run_event_data.sql, which is applied after this migration). A
-- delivery queued between this migration and that file is frozen at its first claim.
UPDATE webhook_deliveries d
   SET payload = jsonb_build_object(
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
 WHERE d.status = 'pending' AND d.payload IS NULL AND d.run_id IS NOT NULL
   AND r.id = d.run_id AND r.tenant_id = d.tenant_id;
