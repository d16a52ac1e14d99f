-- Only the SHA-256 of a key is stored; the raw key is shown once, when it is created.
CREATE TABLE api_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  key_hash text NOT NULL UNIQUE,
  key_prefix text NOT NULL,
  expires_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_keys_tenant_idx ON api_keys (tenant_id);

ALTER TABLE api_keys ENABLE ROW LEVEL SECURITY;
ALTER TABLE api_keys FORCE ROW LEVEL SECURITY;
GRANT SELECT, INSERT, UPDATE, DELETE ON api_keys TO hermesx_app;

CREATE POLICY api_keys_select ON api_keys FOR SELECT TO hermesx_app
  USING (app_is_admin() OR tenant_id = app_current_tenant());
CREATE POLICY api_keys_insert ON api_keys FOR INSERT TO hermesx_app
  WITH CHECK (app_is_admin());
CREATE POLICY api_keys_update ON api_keys FOR UPDATE TO hermesx_app
  USING (app_is_admin()) WITH CHECK (app_is_admin());
CREATE POLICY api_keys_delete ON api_keys FOR DELETE TO hermesx_app
  USING (app_is_admin());

DO $$
BEGIN
  EXECUTE format('CREATE POLICY api_keys_owner ON api_keys TO %I USING (true) WITH CHECK (true)', current_user);
END
$$;
