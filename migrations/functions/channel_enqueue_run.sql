-- The channel messages of a recorded run, decided here, in the transaction that records it (the
-- outbox): the job's own rules (cron_jobs.notify_rules), or the tenant's defaults when the job has
-- none (null), plus the tenant's `failures` alerts. Per rule:
--   always    every run;          failed: a failed run;
--   recovered a success whose previous finished run (by nominal time) failed;
--   changed   a success whose normalised answer differs from the previous success's (none
--             before: nothing changed);
--   agent     a success, unless the answer starts with [SILENT]; a `notify` tool call of the run
--             gives the message (and severity) sent instead of the answer;
--   failures  (tenant alert) the job's failed runs in a row reach exactly N.
-- The run's previous runs are read only for a rule that needs them (one index probe each). One
-- message per channel and run outcome (the first rule that matches). Called by
-- channel_enqueue_run_trigger; plpgsql, so its statements are planned once per connection.
CREATE FUNCTION channel_enqueue_run(p_tenant_id uuid, p_cron_job_id uuid, p_run_id uuid,
                                    p_scheduled_at timestamptz)
  RETURNS void
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
  DECLARE
    v_job record;
    v_run record;
    v_rule record;
    v_send boolean;
    v_previous text;
    v_previous_answer text;
    v_notify jsonb;
    v_payload jsonb;
  BEGIN
    -- Most tenants have no channel: they read nothing more.
    IF NOT EXISTS (SELECT 1 FROM notify_channels c
                    WHERE c.tenant_id = p_tenant_id AND c.enabled) THEN
      RETURN;
    END IF;
    SELECT j.name, j.notify_rules, j.consecutive_failures INTO v_job
      FROM cron_jobs j WHERE j.id = p_cron_job_id;
    SELECT r.id, r.status, r.result, r.error, r.error_kind, r.scheduled_at, r.finished_at,
           r.started_at, r.duration_ms, r.origin
      INTO v_run
      FROM cron_job_runs r
     WHERE r.id = p_run_id AND r.scheduled_at = p_scheduled_at AND r.tenant_id = p_tenant_id;
    IF NOT FOUND OR v_run.status NOT IN ('success', 'failed') THEN
      RETURN;
    END IF;
    FOR v_rule IN
      SELECT (x.rule->>'channel')::uuid AS channel_id, x.rule->>'when' AS notify_when,
             x.rule->>'template' AS template, x.n AS position
        FROM jsonb_array_elements(coalesce(v_job.notify_rules, '[]'::jsonb))
             WITH ORDINALITY AS x (rule, n)
      UNION ALL
      SELECT t.channel_id, t.notify_when, t.template, 1000 + t.position
        FROM notify_tenant_rules t
       WHERE t.tenant_id = p_tenant_id AND v_job.notify_rules IS NULL
         AND t.notify_when IN ('always', 'failed', 'recovered', 'changed', 'agent')
      UNION ALL
      SELECT t.channel_id, t.notify_when, t.template, 2000 + t.position
        FROM notify_tenant_rules t
       WHERE t.tenant_id = p_tenant_id AND t.notify_when = 'failures'
         AND v_run.status = 'failed' AND t.failures = v_job.consecutive_failures
      ORDER BY 4
    LOOP
      v_send := false;
      v_notify := NULL;
      CASE v_rule.notify_when
        WHEN 'always', 'failures' THEN
          v_send := true;
        WHEN 'failed' THEN
          v_send := v_run.status = 'failed';
        WHEN 'recovered' THEN
          IF v_run.status = 'success' THEN
            SELECT r.status INTO v_previous FROM cron_job_runs r
             WHERE r.cron_job_id = p_cron_job_id AND r.scheduled_at < v_run.scheduled_at
               AND r.status IN ('success', 'failed')
             ORDER BY r.scheduled_at DESC LIMIT 1;
            v_send := v_previous = 'failed';
          END IF;
        WHEN 'changed' THEN
          IF v_run.status = 'success' THEN
            SELECT r.result INTO v_previous_answer FROM cron_job_runs r
             WHERE r.cron_job_id = p_cron_job_id AND r.scheduled_at < v_run.scheduled_at
               AND r.status = 'success'
             ORDER BY r.scheduled_at DESC LIMIT 1;
            v_send := FOUND AND channel_normalized_answer(v_previous_answer)
                                <> channel_normalized_answer(v_run.result);
          END IF;
        WHEN 'agent' THEN
          IF v_run.status = 'success' THEN
            SELECT c.arguments INTO v_notify FROM cron_run_tool_calls c
             WHERE c.run_id = p_run_id AND c.tool = 'notify' AND c.status = 'ok'
             ORDER BY c.seq DESC LIMIT 1;
            v_send := v_notify IS NOT NULL
                      OR left(btrim(coalesce(v_run.result, ''), E' \t\r\n'), 8) <> '[SILENT]';
          END IF;
        ELSE
          v_send := false;
      END CASE;
      CONTINUE WHEN NOT v_send;
      v_payload := jsonb_build_object(
        'subject', 'run',
        'reason', v_rule.notify_when,
        'template', v_rule.template,
        'job_id', p_cron_job_id,
        'job_name', coalesce(v_job.name, ''),
        'run_id', p_run_id,
        'status', v_run.status,
        'answer', left(v_run.result, 16384),
        'error', v_run.error,
        'error_kind', v_run.error_kind,
        'origin', v_run.origin,
        'duration_ms', v_run.duration_ms,
        'consecutive_failures', v_job.consecutive_failures,
        'scheduled_at', to_char(v_run.scheduled_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'finished_at', to_char(coalesce(v_run.finished_at, now()) AT TIME ZONE 'UTC',
                               'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'message', left(v_notify->>'message', 4000),
        'severity', v_notify->>'severity');
      INSERT INTO channel_deliveries (tenant_id, channel_id, cron_job_id, run_id, run_status,
                                      reason, payload)
      SELECT c.tenant_id, c.id, p_cron_job_id, p_run_id, v_run.status, v_rule.notify_when,
             v_payload
        FROM notify_channels c
       WHERE c.id = v_rule.channel_id AND c.tenant_id = p_tenant_id AND c.enabled
      ON CONFLICT (channel_id, run_id, run_status) DO NOTHING;
    END LOOP;
  END
  $$;

REVOKE ALL ON FUNCTION channel_enqueue_run(uuid, uuid, uuid, timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION channel_enqueue_run(uuid, uuid, uuid, timestamptz) TO hermesx_app;
