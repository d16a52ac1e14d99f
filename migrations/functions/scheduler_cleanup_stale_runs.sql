-- The guide's recovery step: runs still in flight after the lock TTL belong to a pod that died
-- or overran its lock, so they are failed. Returns how many.
CREATE FUNCTION scheduler_cleanup_stale_runs(lock_ttl_seconds integer)
  RETURNS integer
  LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    SELECT count(*)::integer FROM scheduler_fail(
      ARRAY(SELECT id FROM cron_job_runs
             WHERE status IN ('claimed', 'running')
               AND started_at < now() - make_interval(secs => lock_ttl_seconds)),
      'pod crash or lock TTL exceeded', 'lock_lost')
  $$;

REVOKE ALL ON FUNCTION scheduler_cleanup_stale_runs(integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_cleanup_stale_runs(integer) TO hermesx_app;
