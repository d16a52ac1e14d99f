-- Trigger function of tenants_notify_jobs (AFTER UPDATE ON tenants, when deleted_at changes;
-- migration 105): a tenant deleted or restored changes which jobs may fire, so the pods hear of
-- each of its jobs. SECURITY DEFINER: the admin's statement names no tenant, and the tenant's
-- jobs are behind row-level security.
CREATE OR REPLACE FUNCTION tenants_notify_jobs() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
  BEGIN
    PERFORM pg_notify('hermesx_cron_jobs', j.id::text) FROM cron_jobs j WHERE j.tenant_id = NEW.id;
    RETURN NULL;
  END
  $$;

REVOKE ALL ON FUNCTION tenants_notify_jobs() FROM PUBLIC;
