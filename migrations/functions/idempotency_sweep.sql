-- Forgets every tenant's Idempotency-Key answers older than the window, a batch at a time: the
-- API otherwise purges a tenant's old keys only when that tenant sends its next key, so a tenant
-- that stops sending them would keep its answers forever. Returns how many rows went.
CREATE FUNCTION idempotency_sweep(window_ms bigint, batch integer) RETURNS integer
  LANGUAGE sql VOLATILE SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    WITH gone AS (
      DELETE FROM idempotency_keys
       WHERE ctid = ANY (ARRAY(
         SELECT ctid FROM idempotency_keys
          WHERE created_at < now() - make_interval(secs => window_ms / 1000.0)
          LIMIT batch))
      RETURNING 1)
    SELECT count(*)::integer FROM gone
  $$;

REVOKE ALL ON FUNCTION idempotency_sweep(bigint, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION idempotency_sweep(bigint, integer) TO hermesx_app;
