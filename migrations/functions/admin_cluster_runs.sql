-- The operators' cluster page: run counts and fire lag per pod, across all tenants. The only
-- cross-tenant read the dashboard needs, so it returns aggregates (never a tenant's rows) and
-- only inside an admin transaction (withAdmin).
-- One row per pod seen in the window or with runs in flight, plus one total row (pod_id NULL).
-- In flight counts 'running' and, where the scheduler records it, 'claimed'. Fire lag is the
-- scheduler's: only first attempts of occurrences it fired on time or caught up (origin
-- scheduled or catch_up, attempt 1); a backfilled occurrence starts days after its nominal time
-- by design, and a retry after its backoff, so neither says anything about the scheduler.
CREATE FUNCTION admin_cluster_runs(p_since timestamptz)
  RETURNS TABLE (pod_id text, in_flight integer, runs integer, failures integer,
                 fire_lag_p99_ms double precision, last_started_at timestamptz)
  LANGUAGE plpgsql STABLE SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
BEGIN
  IF NOT app_is_admin() THEN
    RAISE EXCEPTION 'admin_cluster_runs needs an admin transaction' USING ERRCODE = '42501';
  END IF;
  RETURN QUERY
    WITH recent AS (
      SELECT r.pod_id, r.status, r.scheduled_at, r.started_at,
             r.origin IN ('scheduled', 'catch_up') AND r.attempt = 1 AS fired
        FROM cron_job_runs r WHERE r.created_at >= p_since
    ), flying AS (
      SELECT r.pod_id FROM cron_job_runs r WHERE r.status = 'running'
      UNION ALL
      SELECT r.pod_id FROM cron_job_runs r
       WHERE r.status = 'claimed' AND r.created_at >= p_since - interval '1 day'
    ), rows_of AS (
      SELECT x.pod_id, x.status, x.scheduled_at, x.started_at, x.fired, 0 AS live FROM recent x
      UNION ALL
      SELECT f.pod_id, NULL, NULL, NULL, false, 1 FROM flying f
    )
    SELECT CASE WHEN GROUPING(o.pod_id) = 1 THEN NULL ELSE o.pod_id END,
           sum(o.live)::integer,
           count(*) FILTER (WHERE o.live = 0 AND o.status <> 'claimed')::integer,
           count(*) FILTER (WHERE o.live = 0 AND o.status = 'failed')::integer,
           percentile_cont(0.99) WITHIN GROUP (
             ORDER BY extract(epoch FROM o.started_at - o.scheduled_at) * 1000)
             FILTER (WHERE o.live = 0 AND o.fired AND o.started_at IS NOT NULL),
           max(o.started_at)
      FROM rows_of o
     GROUP BY GROUPING SETS ((o.pod_id), ())
     ORDER BY 1 NULLS FIRST;
END
$$;

REVOKE ALL ON FUNCTION admin_cluster_runs(timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION admin_cluster_runs(timestamptz) TO hermesx_app;
