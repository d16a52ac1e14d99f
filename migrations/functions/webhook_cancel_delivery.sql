-- A leased delivery that cannot be sent (its run or job was deleted): cancelled, no attempt.
CREATE FUNCTION webhook_cancel_delivery(p_delivery_id uuid, p_pod_id text, p_reason text)
  RETURNS void
  LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    UPDATE webhook_deliveries
       SET status = 'cancelled', leased_by = NULL, last_error = left(p_reason, 1024),
           updated_at = now()
     WHERE id = p_delivery_id AND status = 'pending' AND leased_by = p_pod_id
  $$;

REVOKE ALL ON FUNCTION webhook_cancel_delivery(uuid, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION webhook_cancel_delivery(uuid, text, text) TO hermesx_app;
