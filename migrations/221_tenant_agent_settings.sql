-- What a tenant's agent may reach: the hosts of the http_request tool (exact names or
-- "*.example.com"; empty: the tool is not offered). The admin sets it, the tenant reads it.
CREATE TABLE tenant_agent_settings (
  tenant_id uuid PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
  http_allowed_hosts text[] NOT NULL DEFAULT '{}' CHECK (cardinality(http_allowed_hosts) <= 100),
  updated_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE tenant_agent_settings ENABLE ROW LEVEL SECURITY;
ALTER TABLE tenant_agent_settings FORCE ROW LEVEL SECURITY;
GRANT SELECT, INSERT, UPDATE, DELETE ON tenant_agent_settings TO hermesx_app;

CREATE POLICY tenant_agent_settings_select ON tenant_agent_settings FOR SELECT TO hermesx_app
  USING (app_is_admin() OR tenant_id = app_current_tenant());
CREATE POLICY tenant_agent_settings_insert ON tenant_agent_settings FOR INSERT TO hermesx_app
  WITH CHECK (app_is_admin());
CREATE POLICY tenant_agent_settings_update ON tenant_agent_settings FOR UPDATE TO hermesx_app
  USING (app_is_admin()) WITH CHECK (app_is_admin());
CREATE POLICY tenant_agent_settings_delete ON tenant_agent_settings FOR DELETE TO hermesx_app
  USING (app_is_admin());

DO $$
BEGIN
  EXECUTE format('CREATE POLICY tenant_agent_settings_owner ON tenant_agent_settings TO %I USING (true) WITH CHECK (true)', current_user);
END
$$;
