-- Trigger function of tenant_result_bytes_truncate (AFTER TRUNCATE ON cron_job_runs; migration
-- 340): no run left, no stored answer counted. SECURITY DEFINER: no role but the owner writes
-- tenant_result_bytes.
CREATE OR REPLACE FUNCTION tenant_result_bytes_cleared() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
  BEGIN
    DELETE FROM tenant_result_bytes;
    RETURN NULL;
  END
  $$;

REVOKE ALL ON FUNCTION tenant_result_bytes_cleared() FROM PUBLIC;
