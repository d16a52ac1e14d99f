-- The data of a run event as it goes on the wire, frozen into the delivery when it is queued
-- (webhook_enqueue_run; webhook_claim_deliveries for a delivery queued without it while a
-- version upgrade was applying its migrations): the run as the runs list shows it (the result's
-- short form, times in RFC 3339 with milliseconds, UTC; `output`, the parsed answer of a job
-- with an output schema, else null; its tokens and cost in micro-dollars, migration 360), plus
-- job_id and job_name. Null when
-- the run is gone. Inside a tenant's transaction it answers for that tenant's runs only.
CREATE FUNCTION webhook_run_event_data(p_run_id uuid, p_tenant_id uuid)
  RETURNS jsonb
  LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
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
             'output', r.output,
             'prompt_tokens', r.prompt_tokens,
             'cached_tokens', r.cached_tokens,
             'completion_tokens', r.completion_tokens,
             'cost_micros', r.cost_micros,
             'job_id', r.cron_job_id,
             'job_name', coalesce(j.name, ''))
      FROM cron_job_runs r
      LEFT JOIN cron_jobs j ON j.id = r.cron_job_id
     WHERE r.id = p_run_id AND r.tenant_id = p_tenant_id
       AND (app_current_tenant() IS NULL OR app_current_tenant() = p_tenant_id)
  $$;

REVOKE ALL ON FUNCTION webhook_run_event_data(uuid, uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION webhook_run_event_data(uuid, uuid) TO hermesx_app;
