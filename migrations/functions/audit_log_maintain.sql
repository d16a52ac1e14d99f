-- Keeps audit_log bounded, called by the audit upkeep service every hour (one pod at a time: the
-- others find the advisory lock taken and skip the round):
--   1. creates the monthly partitions of this month and the p_months_ahead months after (UTC),
--      so an entry always has its month's partition; entries the default partition (the safety
--      net) holds for a month being created move into it;
--   2. drops whole months past the longest audit retention of any tenant
--      (tenants.audit_retention_days, default 365; never less than 365 for the entries of no
--      tenant, which follow that default);
--   3. deletes, at most p_delete_limit rows per call, the entries of tenants that keep less than
--      that longest retention.
-- The application's role can neither update nor delete an entry: this owner's function is the
-- only way one goes. p_now is for tests; the service passes NULL (the database's clock).
CREATE FUNCTION audit_log_maintain(p_months_ahead integer, p_delete_limit integer,
                                   p_now timestamptz DEFAULT NULL)
  RETURNS TABLE (created integer, dropped integer, deleted integer)
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
  DECLARE
    v_now timestamptz := coalesce(p_now, now());
    v_month date := date_trunc('month', v_now AT TIME ZONE 'UTC')::date;
    v_day date;
    v_name text;
    v_longest integer;
    v_part record;
    v_from timestamptz;
    v_to timestamptz;
  BEGIN
    created := 0;
    dropped := 0;
    deleted := 0;
    IF NOT pg_try_advisory_xact_lock(hashtextextended('hermesx:audit-maintenance', 0)) THEN
      RETURN NEXT;
      RETURN;
    END IF;

    FOR i IN 0 .. greatest(p_months_ahead, 0) LOOP
      v_day := (v_month + make_interval(months => i))::date;
      v_name := 'audit_log_p' || to_char(v_day, 'YYYYMM');
      CONTINUE WHEN to_regclass('public.' || v_name) IS NOT NULL;
      v_from := v_day::timestamp AT TIME ZONE 'UTC';
      v_to := (v_day + interval '1 month')::timestamp AT TIME ZONE 'UTC';
      -- Entries already in the default partition for that month (written before this round made
      -- the month) move into it: the new table is filled, they leave the default, then it is
      -- attached, all in this transaction.
      EXECUTE format('CREATE TABLE public.%I (LIKE public.audit_log INCLUDING DEFAULTS '
                     'INCLUDING CONSTRAINTS)', v_name);
      EXECUTE format('WITH moved AS (DELETE FROM public.audit_log_default '
                     'WHERE at >= %L AND at < %L RETURNING *) '
                     'INSERT INTO public.%I SELECT * FROM moved', v_from, v_to, v_name);
      EXECUTE format('ALTER TABLE public.audit_log ATTACH PARTITION public.%I '
                     'FOR VALUES FROM (%L) TO (%L)', v_name, v_from, v_to);
      created := created + 1;
    END LOOP;

    SELECT greatest(coalesce(max(t.audit_retention_days), 365), 365) INTO v_longest
      FROM tenants t;
    FOR v_part IN
      SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = 'public.audit_log'::regclass AND c.relname ~ '^audit_log_p[0-9]{6}$'
    LOOP
      -- The month's end is past the longest retention: every entry in it is.
      IF ((to_date(right(v_part.relname, 6), 'YYYYMM') + interval '1 month')::timestamp
            AT TIME ZONE 'UTC') <= v_now - make_interval(days => v_longest) THEN
        EXECUTE format('DROP TABLE public.%I', v_part.relname);
        dropped := dropped + 1;
      END IF;
    END LOOP;

    WITH doomed AS (
      SELECT a.id, a.at
        FROM tenants t
        CROSS JOIN LATERAL (
          SELECT x.id, x.at FROM audit_log x
           WHERE x.tenant_id = t.id
             AND x.at < v_now - make_interval(days => t.audit_retention_days)
           LIMIT p_delete_limit) a
       WHERE t.audit_retention_days < v_longest
       LIMIT p_delete_limit
    ), gone AS (
      DELETE FROM audit_log x USING doomed d
       WHERE x.id = d.id AND x.at = d.at
      RETURNING 1
    )
    SELECT count(*)::integer INTO deleted FROM gone;
    RETURN NEXT;
  END
  $$;

REVOKE ALL ON FUNCTION audit_log_maintain(integer, integer, timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION audit_log_maintain(integer, integer, timestamptz) TO hermesx_app;
