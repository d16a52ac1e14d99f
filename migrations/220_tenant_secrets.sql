-- Tenant secrets: write-only values sealed with AES-256-GCM by the application (the key,
-- HERMES_SECRETS_KEY, never reaches the database). sealed_value = version | IV | tag | ciphertext.
CREATE TABLE tenant_secrets (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (name ~ '^[A-Za-z_][A-Za-z0-9_]{0,63}$'),
  sealed_value bytea NOT NULL CHECK (length(sealed_value) BETWEEN 29 AND 8192),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, name)
);

ALTER TABLE tenant_secrets ENABLE ROW LEVEL SECURITY;
ALTER TABLE tenant_secrets FORCE ROW LEVEL SECURITY;
GRANT SELECT, INSERT, UPDATE, DELETE ON tenant_secrets TO hermesx_app;

CREATE POLICY tenant_secrets_tenant ON tenant_secrets TO hermesx_app
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());

DO $$
BEGIN
  EXECUTE format('CREATE POLICY tenant_secrets_owner ON tenant_secrets TO %I USING (true) WITH CHECK (true)', current_user);
END
$$;
