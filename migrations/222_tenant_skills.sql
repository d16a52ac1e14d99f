-- The index of a tenant's skills; each document itself is an object in the object store
-- (object_key, under the tenant's prefix). A new version is a new object, so a reader never sees
-- a row pointing at half-written or mismatched content.
CREATE TABLE tenant_skills (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (name ~ '^[a-z0-9][a-z0-9-]{0,63}$'),
  description text NOT NULL CHECK (length(description) BETWEEN 1 AND 1024),
  size_bytes integer NOT NULL CHECK (size_bytes > 0),
  object_key text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, name)
);

ALTER TABLE tenant_skills ENABLE ROW LEVEL SECURITY;
ALTER TABLE tenant_skills FORCE ROW LEVEL SECURITY;
GRANT SELECT, INSERT, UPDATE, DELETE ON tenant_skills TO hermesx_app;

CREATE POLICY tenant_skills_tenant ON tenant_skills TO hermesx_app
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());

DO $$
BEGIN
  EXECUTE format('CREATE POLICY tenant_skills_owner ON tenant_skills TO %I USING (true) WITH CHECK (true)', current_user);
END
$$;
