-- Stored result bytes and quotas of tenants (src/storage/result-quota.ts): asked before an
-- answer over 8 KiB goes to the object store, and by the admin's tenant views. used_bytes counts
-- only partitions of cron_job_runs that still exist, so the answers of a partition retention
-- dropped stop counting the moment it is gone; their leftover count rows are deleted on the way.
-- quota_bytes: the tenant's result_bytes_quota, else p_default_quota (TENANT_RESULT_BYTES_QUOTA);
-- 0 is unlimited. No row for an unknown tenant.
CREATE FUNCTION storage_result_usage(p_tenant_ids uuid[], p_default_quota bigint)
  RETURNS TABLE (tenant_id uuid, used_bytes bigint, quota_bytes bigint)
  LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    WITH gone AS (
      DELETE FROM tenant_result_bytes u
       WHERE u.tenant_id = ANY (p_tenant_ids)
         AND NOT EXISTS (SELECT 1 FROM pg_inherits i
                          WHERE i.inhrelid = u.runs_partition
                            AND i.inhparent = 'public.cron_job_runs'::regclass)
    )
    SELECT t.id,
           coalesce((SELECT sum(u.bytes) FROM tenant_result_bytes u
                      JOIN pg_inherits i ON i.inhrelid = u.runs_partition
                                        AND i.inhparent = 'public.cron_job_runs'::regclass
                     WHERE u.tenant_id = t.id), 0)::bigint,
           coalesce(t.result_bytes_quota, p_default_quota)
      FROM tenants t
     WHERE t.id = ANY (p_tenant_ids);
  $$;

REVOKE ALL ON FUNCTION storage_result_usage(uuid[], bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION storage_result_usage(uuid[], bigint) TO hermesx_app;
