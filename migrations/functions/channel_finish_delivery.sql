-- Records one attempt of a channel delivery the pod leased, and its consequence:
--   delivered: done; the channel is no longer failing.
--   retry:     due again at p_next_attempt_at.
--   failed / refused: no further attempt (a permanent answer, the schedule used up, or an
--              address the guard refuses).
-- A failure marks the channel failing since its first failure; one failing for longer than
-- p_disable_after_seconds is disabled ('failing'): its pending deliveries are cancelled and a
-- `channel.disabled` webhook event is queued (tenant-wide endpoints that want it), in this
-- transaction. An attempt whose lease was lost is kept in the history but changes nothing else.
-- Returns the delivery's status and whether this attempt disabled the channel.
CREATE FUNCTION channel_finish_delivery(p_delivery_id uuid, p_pod_id text, p_outcome text,
                                        p_status_code integer, p_error text, p_response text,
                                        p_duration_ms integer, p_next_attempt_at timestamptz,
                                        p_disable_after_seconds integer)
  RETURNS TABLE (status text, disabled boolean)
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
  #variable_conflict use_column
  DECLARE
    v_delivery channel_deliveries%ROWTYPE;
    v_channel notify_channels%ROWTYPE;
    v_status text;
  BEGIN
    SELECT * INTO v_delivery FROM channel_deliveries d WHERE d.id = p_delivery_id FOR UPDATE;
    IF NOT FOUND THEN
      RETURN;
    END IF;
    INSERT INTO channel_delivery_attempts (delivery_id, tenant_id, attempt, duration_ms,
                                           status_code, error, outcome, next_attempt_at, pod_id)
    VALUES (p_delivery_id, v_delivery.tenant_id, v_delivery.attempts + 1, p_duration_ms,
            p_status_code, left(p_error, 1024), p_outcome,
            CASE WHEN p_outcome = 'retry' THEN p_next_attempt_at END, p_pod_id);
    IF v_delivery.status <> 'pending' OR v_delivery.leased_by IS DISTINCT FROM p_pod_id THEN
      RETURN QUERY SELECT v_delivery.status, false;
      RETURN;
    END IF;
    v_status := CASE p_outcome WHEN 'delivered' THEN 'delivered' WHEN 'retry' THEN 'pending'
                ELSE 'failed' END;
    UPDATE channel_deliveries d
       SET status = v_status,
           attempts = d.attempts + 1,
           leased_by = NULL,
           next_attempt_at = CASE WHEN p_outcome = 'retry' THEN p_next_attempt_at
                                  ELSE d.next_attempt_at END,
           last_status_code = p_status_code,
           last_error = left(p_error, 1024),
           last_response = left(p_response, 1024),
           delivered_at = CASE WHEN p_outcome = 'delivered' THEN now() END,
           updated_at = now()
     WHERE d.id = p_delivery_id;
    IF p_outcome = 'delivered' THEN
      UPDATE notify_channels c SET failing_since = NULL
       WHERE c.id = v_delivery.channel_id AND c.failing_since IS NOT NULL;
      RETURN QUERY SELECT v_status, false;
      RETURN;
    END IF;
    UPDATE notify_channels c SET failing_since = coalesce(c.failing_since, now())
     WHERE c.id = v_delivery.channel_id
    RETURNING * INTO v_channel;
    IF v_channel.enabled
       AND v_channel.failing_since < now() - make_interval(secs => p_disable_after_seconds) THEN
      UPDATE notify_channels c
         SET enabled = false, disabled_reason = 'failing', updated_at = now()
       WHERE c.id = v_channel.id;
      UPDATE channel_deliveries d
         SET status = 'cancelled', leased_by = NULL, updated_at = now(),
             last_error = 'channel disabled (failing)'
       WHERE d.channel_id = v_channel.id AND d.status = 'pending';
      INSERT INTO webhook_deliveries (tenant_id, endpoint_id, cron_job_id, run_id, event_type,
                                      payload)
      SELECT e.tenant_id, e.id, NULL, NULL, 'channel.disabled', jsonb_build_object(
               'channel_id', v_channel.id,
               'channel_name', v_channel.name,
               'kind', v_channel.kind,
               'disabled_reason', 'failing',
               'failing_since', to_char(v_channel.failing_since AT TIME ZONE 'UTC',
                                        'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
               'disabled_at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
               'last_error', left(p_error, 1024))
        FROM webhook_endpoints e
       WHERE e.tenant_id = v_channel.tenant_id AND e.enabled AND e.cron_job_id IS NULL
         AND (cardinality(e.events) = 0 OR 'channel.disabled' = ANY (e.events));
      RETURN QUERY SELECT (SELECT d.status FROM channel_deliveries d WHERE d.id = p_delivery_id),
                          true;
      RETURN;
    END IF;
    RETURN QUERY SELECT v_status, false;
  END
  $$;

REVOKE ALL ON FUNCTION channel_finish_delivery(uuid, text, text, integer, text, text, integer,
                                               timestamptz, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION channel_finish_delivery(uuid, text, text, integer, text, text, integer,
                                                  timestamptz, integer) TO hermesx_app;
