-- Removes up to p_limit finished channel deliveries (and their attempts) older than
-- p_older_than_seconds, of every tenant; returns how many went. Pending ones are never removed.
CREATE FUNCTION channel_prune_deliveries(p_older_than_seconds integer, p_limit integer)
  RETURNS integer
  LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    WITH gone AS (
      DELETE FROM channel_deliveries d
       WHERE d.id IN (SELECT o.id FROM channel_deliveries o
                       WHERE o.status <> 'pending'
                         AND o.created_at < now() - make_interval(secs => p_older_than_seconds)
                       ORDER BY o.created_at LIMIT p_limit)
      RETURNING 1)
    SELECT count(*)::integer FROM gone
  $$;

REVOKE ALL ON FUNCTION channel_prune_deliveries(integer, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION channel_prune_deliveries(integer, integer) TO hermesx_app;
