-- For the metrics: deliveries waiting to be sent (due or scheduled for a retry) and the age of
-- the oldest one, across tenants.
CREATE FUNCTION webhook_queue_stats()
  RETURNS TABLE (pending bigint, oldest_pending_seconds double precision)
  LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    SELECT count(*), coalesce(extract(epoch FROM now() - min(created_at)), 0)::double precision
      FROM webhook_deliveries WHERE status = 'pending'
  $$;

REVOKE ALL ON FUNCTION webhook_queue_stats() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION webhook_queue_stats() TO hermesx_app;
