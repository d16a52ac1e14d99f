-- Retention: removes up to p_limit finished deliveries (delivered, failed, cancelled) older than
-- p_older_than_seconds, with their attempts, across tenants. The sender calls it now and then,
-- so the outbox stays bounded however long an installation runs (run rows may be dropped by
-- their own retention; the deliveries of those runs go too). Returns how many were removed.
CREATE FUNCTION webhook_prune_deliveries(p_older_than_seconds integer, p_limit integer)
  RETURNS integer
  LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    WITH old AS (
      SELECT id FROM webhook_deliveries
       WHERE status <> 'pending'
         AND created_at < now() - make_interval(secs => p_older_than_seconds)
       ORDER BY created_at
       LIMIT p_limit
    ), gone AS (
      DELETE FROM webhook_deliveries d USING old WHERE d.id = old.id RETURNING 1
    )
    SELECT count(*)::integer FROM gone
  $$;

REVOKE ALL ON FUNCTION webhook_prune_deliveries(integer, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION webhook_prune_deliveries(integer, integer) TO hermesx_app;
