ALTER TABLE cron_jobs ENABLE ROW LEVEL SECURITY;
ALTER TABLE cron_jobs FORCE ROW LEVEL SECURITY;
GRANT SELECT, INSERT, UPDATE, DELETE ON cron_jobs TO hermesx_app;

CREATE POLICY cron_jobs_select ON cron_jobs FOR SELECT TO hermesx_app
  USING (tenant_id = app_current_tenant());
CREATE POLICY cron_jobs_insert ON cron_jobs FOR INSERT TO hermesx_app
  WITH CHECK (tenant_id = app_current_tenant());
CREATE POLICY cron_jobs_update ON cron_jobs FOR UPDATE TO hermesx_app
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
CREATE POLICY cron_jobs_delete ON cron_jobs FOR DELETE TO hermesx_app
  USING (tenant_id = app_current_tenant());

-- The schema owner (and so the SECURITY DEFINER functions it owns) sees every tenant.
DO $$
BEGIN
  EXECUTE format('CREATE POLICY cron_jobs_owner ON cron_jobs TO %I USING (true) WITH CHECK (true)', current_user);
END
$$;
