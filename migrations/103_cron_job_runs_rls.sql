ALTER TABLE cron_job_runs ENABLE ROW LEVEL SECURITY;
ALTER TABLE cron_job_runs FORCE ROW LEVEL SECURITY;
GRANT SELECT, INSERT, UPDATE, DELETE ON cron_job_runs TO hermesx_app;

CREATE POLICY cron_job_runs_select ON cron_job_runs FOR SELECT TO hermesx_app
  USING (tenant_id = app_current_tenant());
CREATE POLICY cron_job_runs_insert ON cron_job_runs FOR INSERT TO hermesx_app
  WITH CHECK (tenant_id = app_current_tenant());
CREATE POLICY cron_job_runs_update ON cron_job_runs FOR UPDATE TO hermesx_app
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
CREATE POLICY cron_job_runs_delete ON cron_job_runs FOR DELETE TO hermesx_app
  USING (tenant_id = app_current_tenant());

DO $$
BEGIN
  EXECUTE format('CREATE POLICY cron_job_runs_owner ON cron_job_runs TO %I USING (true) WITH CHECK (true)', current_user);
END
$$;
