-- Records one attempt of a delivery the pod leased, and its consequence:
--   delivered: done; the endpoint is no longer failing.
--   retry:     due again at p_next_attempt_at.
--   failed / refused: no further attempt (non-retryable answer, schedule exhausted, or an
--              address the guard refuses).
--   gone:      the receiver answered 410: the endpoint is disabled at once.
-- A failure marks the endpoint failing since its first failure; one failing for longer than
-- p_disable_after is disabled ('failing'). Disabling cancels the endpoint's pending deliveries.
-- An attempt whose lease was lost (another pod holds the row now) is kept in the history but
-- changes nothing else. Returns the delivery's status and the endpoint's disabled_reason.
CREATE FUNCTION webhook_finish_delivery(p_delivery_id uuid, p_pod_id text, p_outcome text,
                                        p_status_code integer, p_error text,
                                        p_duration_ms integer, p_next_attempt_at timestamptz,
                                        p_disable_after_seconds integer)
  RETURNS TABLE (status text, disabled_reason text)
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
  #variable_conflict use_column
  DECLARE
    v_delivery webhook_deliveries%ROWTYPE;
    v_failing_since timestamptz;
    v_reason text;
    v_status text;
  BEGIN
    SELECT * INTO v_delivery FROM webhook_deliveries d WHERE d.id = p_delivery_id FOR UPDATE;
    IF NOT FOUND THEN
      RETURN;
    END IF;
    INSERT INTO webhook_delivery_attempts (delivery_id, tenant_id, attempt, duration_ms,
                                           status_code, error, outcome, next_attempt_at, pod_id)
    VALUES (p_delivery_id, v_delivery.tenant_id, v_delivery.attempts + 1, p_duration_ms,
            p_status_code, left(p_error, 1024), p_outcome,
            CASE WHEN p_outcome = 'retry' THEN p_next_attempt_at END, p_pod_id);
    IF v_delivery.status <> 'pending' OR v_delivery.leased_by IS DISTINCT FROM p_pod_id THEN
      RETURN QUERY SELECT v_delivery.status, NULL::text;
      RETURN;
    END IF;
    v_status := CASE p_outcome WHEN 'delivered' THEN 'delivered' WHEN 'retry' THEN 'pending'
                ELSE 'failed' END;
    UPDATE webhook_deliveries d
       SET status = v_status,
           attempts = d.attempts + 1,
           leased_by = NULL,
           next_attempt_at = CASE WHEN p_outcome = 'retry' THEN p_next_attempt_at
                                  ELSE d.next_attempt_at END,
           last_status_code = p_status_code,
           last_error = left(p_error, 1024),
           delivered_at = CASE WHEN p_outcome = 'delivered' THEN now() END,
           updated_at = now()
     WHERE d.id = p_delivery_id;
    IF p_outcome = 'delivered' THEN
      UPDATE webhook_endpoints e SET failing_since = NULL
       WHERE e.id = v_delivery.endpoint_id AND e.failing_since IS NOT NULL;
      RETURN QUERY SELECT v_status, NULL::text;
      RETURN;
    END IF;
    UPDATE webhook_endpoints e SET failing_since = coalesce(e.failing_since, now())
     WHERE e.id = v_delivery.endpoint_id
    RETURNING e.failing_since INTO v_failing_since;
    IF p_outcome = 'gone' THEN
      v_reason := 'gone';
    ELSIF v_failing_since < now() - make_interval(secs => p_disable_after_seconds) THEN
      v_reason := 'failing';
    END IF;
    IF v_reason IS NOT NULL THEN
      UPDATE webhook_endpoints e
         SET enabled = false, disabled_reason = v_reason, updated_at = now()
       WHERE e.id = v_delivery.endpoint_id AND e.enabled;
      UPDATE webhook_deliveries d
         SET status = 'cancelled', leased_by = NULL, updated_at = now(),
             last_error = 'endpoint disabled (' || v_reason || ')'
       WHERE d.endpoint_id = v_delivery.endpoint_id AND d.status = 'pending';
    END IF;
    RETURN QUERY SELECT (SELECT d.status FROM webhook_deliveries d WHERE d.id = p_delivery_id),
                        v_reason;
  END
  $$;

REVOKE ALL ON FUNCTION webhook_finish_delivery(uuid, text, text, integer, text, integer,
                                               timestamptz, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION webhook_finish_delivery(uuid, text, text, integer, text, integer,
                                                  timestamptz, integer) TO hermesx_app;
