-- Keeps cron_job_runs bounded, called by the scheduler every hour (one pod at a time: the
-- others find the advisory lock taken and skip the round):
--   1. creates the daily partitions of today and the p_days_ahead days after (UTC), so a claim
--      always has its day's partition (the default partition is only a safety net);
--   2. drops whole partitions past the longest retention of any tenant
--      (tenants.run_retention_days, default 30): no row-by-row delete, no VACUUM;
--   3. deletes, at most p_delete_limit rows per call, the finished runs of tenants that keep
--      less than that longest retention;
--   4. deletes, at most p_delete_limit per call, the tool calls (cron_run_tool_calls) of runs
--      that are gone (a dropped partition, a deleted job); they have no foreign key to runs;
--   5. sets cron_job_runs_in_flight (migration 313) right: removes the rows of runs that are
--      gone (a dropped partition fires no trigger) or no longer in flight, adds any run in
--      flight it lacks (a write made with triggers disabled); triggers keep it true otherwise;
--   6. purges, at most p_delete_limit per call, the rows of jobs deleted over an hour ago
--      (cron_jobs.deleted_at) that have no run left, and returns their ids, so the caller
--      deletes their result objects. The hour keeps a claim that read the job just before its
--      delete from meeting a purged row.
-- p_now is for tests; the scheduler passes NULL (the database's clock), so a pod whose clock
-- runs ahead can never drop history early.
CREATE FUNCTION scheduler_runs_maintain(p_days_ahead integer, p_delete_limit integer,
                                        p_now timestamptz DEFAULT NULL)
  RETURNS TABLE (created integer, dropped integer, deleted integer, purged_tenant_ids uuid[],
                 purged_job_ids uuid[])
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
  DECLARE
    v_now timestamptz := coalesce(p_now, now());
    v_today date := (v_now AT TIME ZONE 'UTC')::date;
    v_longest integer;
    v_day date;
    v_name text;
    v_upper date;
    v_part record;
  BEGIN
    created := 0;
    dropped := 0;
    deleted := 0;
    purged_tenant_ids := '{}';
    purged_job_ids := '{}';
    IF NOT pg_try_advisory_xact_lock(hashtextextended('hermesx:runs-maintenance', 0)) THEN
      RETURN NEXT;
      RETURN;
    END IF;

    FOR v_day IN SELECT generate_series(v_today, v_today + p_days_ahead, interval '1 day')::date
    LOOP
      v_name := 'cron_job_runs_p' || to_char(v_day, 'YYYYMMDD');
      CONTINUE WHEN to_regclass('public.' || v_name) IS NOT NULL;
      BEGIN
        PERFORM cron_job_runs_add_partition(v_name,
          format('FOR VALUES FROM (%L) TO (%L)', v_day::timestamp AT TIME ZONE 'UTC',
                 (v_day + 1)::timestamp AT TIME ZONE 'UTC'));
        created := created + 1;
      EXCEPTION WHEN invalid_object_definition OR check_violation THEN
        -- The day is inside an older partition, or the default partition already holds rows
        -- of it: they stay where they are.
        RAISE WARNING 'cron_job_runs: no partition for %: %', v_day, SQLERRM;
      END;
    END LOOP;

    SELECT greatest(coalesce(max(t.run_retention_days), 30), 1) INTO v_longest FROM tenants t;
    FOR v_part IN
      SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = 'public.cron_job_runs'::regclass AND c.relkind = 'r'
    LOOP
      v_upper := CASE
        WHEN v_part.relname ~ '^cron_job_runs_p[0-9]{8}$'
          THEN to_date(right(v_part.relname, 8), 'YYYYMMDD') + 1
        WHEN v_part.relname ~ '^cron_job_runs_before_[0-9]{8}$'
          THEN to_date(right(v_part.relname, 8), 'YYYYMMDD')
      END;
      IF v_upper IS NOT NULL AND v_upper <= v_today - v_longest THEN
        EXECUTE format('DROP TABLE public.%I', v_part.relname);
        dropped := dropped + 1;
      END IF;
    END LOOP;

    WITH doomed AS (
      SELECT r.id, r.scheduled_at
        FROM tenants t
        CROSS JOIN LATERAL (
          SELECT x.id, x.scheduled_at FROM cron_job_runs x
           WHERE x.tenant_id = t.id
             AND x.scheduled_at < v_now - make_interval(days => t.run_retention_days)
             AND x.status IN ('success', 'failed')
           LIMIT p_delete_limit) r
       WHERE t.run_retention_days < v_longest
       LIMIT p_delete_limit
    ), gone AS (
      DELETE FROM cron_job_runs x USING doomed d
       WHERE x.id = d.id AND x.scheduled_at = d.scheduled_at
      RETURNING 1
    )
    SELECT count(*)::integer INTO deleted FROM gone;

    DELETE FROM cron_run_tool_calls c
     WHERE (c.run_id, c.seq) IN (
       SELECT o.run_id, o.seq FROM cron_run_tool_calls o
        WHERE o.created_at < v_now - interval '1 hour'
          AND NOT EXISTS (SELECT 1 FROM cron_job_runs r WHERE r.id = o.run_id)
        LIMIT p_delete_limit);

    DELETE FROM cron_job_runs_in_flight f
     WHERE NOT EXISTS (SELECT 1 FROM cron_job_runs r
                        WHERE r.id = f.run_id AND r.scheduled_at = f.scheduled_at
                          AND r.status IN ('claimed', 'running'));
    -- Locked, so a run settling meanwhile is either seen settled (and left out) or settles after
    -- this commits (and its trigger removes the row); one being written now is its writer's.
    WITH live AS (
      SELECT r.id, r.cron_job_id, r.tenant_id, r.scheduled_at FROM cron_job_runs r
       WHERE r.status IN ('claimed', 'running')
         AND NOT EXISTS (SELECT 1 FROM cron_job_runs_in_flight f WHERE f.run_id = r.id)
       FOR SHARE OF r SKIP LOCKED
    )
    INSERT INTO cron_job_runs_in_flight (run_id, cron_job_id, tenant_id, scheduled_at)
    SELECT l.id, l.cron_job_id, l.tenant_id, l.scheduled_at FROM live l
    ON CONFLICT (run_id) DO NOTHING;

    WITH purged AS (
      DELETE FROM cron_jobs j
       WHERE j.id IN (
         SELECT d.id FROM cron_jobs d
          WHERE d.deleted_at < v_now - interval '1 hour'
            AND NOT EXISTS (SELECT 1 FROM cron_job_runs r WHERE r.cron_job_id = d.id)
          ORDER BY d.deleted_at
          LIMIT p_delete_limit)
      RETURNING j.tenant_id, j.id
    )
    SELECT coalesce(array_agg(p.tenant_id), '{}'), coalesce(array_agg(p.id), '{}')
      INTO purged_tenant_ids, purged_job_ids FROM purged p;
    RETURN NEXT;
  END
  $$;

REVOKE ALL ON FUNCTION scheduler_runs_maintain(integer, integer, timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_runs_maintain(integer, integer, timestamptz) TO hermesx_app;
