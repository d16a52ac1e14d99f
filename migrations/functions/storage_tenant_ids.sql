-- Every tenant id after p_after, in order, p_limit at a time (soft-deleted tenants too: their
-- objects are swept like any other), for the sweep of orphaned result objects
-- (src/storage/result-sweeper.ts), which lists the object store one tenant prefix at a time.
CREATE FUNCTION storage_tenant_ids(p_after uuid, p_limit integer)
  RETURNS SETOF uuid
  LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    SELECT t.id FROM tenants t
     WHERE p_after IS NULL OR t.id > p_after
     ORDER BY t.id
     LIMIT p_limit;
  $$;

REVOKE ALL ON FUNCTION storage_tenant_ids(uuid, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION storage_tenant_ids(uuid, integer) TO hermesx_app;
