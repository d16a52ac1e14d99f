CREATE TABLE tenants (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  max_cron_jobs integer NOT NULL DEFAULT 50 CHECK (max_cron_jobs >= 0),
  min_schedule_interval_seconds integer NOT NULL DEFAULT 60 CHECK (min_schedule_interval_seconds >= 0),
  rate_limit_rpm integer NOT NULL DEFAULT 600 CHECK (rate_limit_rpm > 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  -- Runs in flight across all pods, per tenant; NULL or 0 means unlimited.
  max_concurrent_runs integer CHECK (max_concurrent_runs >= 0)
);

INSERT INTO tenants (id, name) VALUES ('00000000-0000-0000-0000-000000000001', 'default');

ALTER TABLE tenants ENABLE ROW LEVEL SECURITY;
ALTER TABLE tenants FORCE ROW LEVEL SECURITY;
GRANT SELECT, INSERT, UPDATE, DELETE ON tenants TO hermesx_app;

CREATE POLICY tenants_select ON tenants FOR SELECT TO hermesx_app
  USING (app_is_admin() OR id = app_current_tenant());
CREATE POLICY tenants_insert ON tenants FOR INSERT TO hermesx_app
  WITH CHECK (app_is_admin());
CREATE POLICY tenants_update ON tenants FOR UPDATE TO hermesx_app
  USING (app_is_admin()) WITH CHECK (app_is_admin());
CREATE POLICY tenants_delete ON tenants FOR DELETE TO hermesx_app
  USING (app_is_admin());

DO $$
BEGIN
  EXECUTE format('CREATE POLICY tenants_owner ON tenants TO %I USING (true) WITH CHECK (true)', current_user);
END
$$;
