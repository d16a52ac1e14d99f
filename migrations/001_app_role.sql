-- The role every pooled connection switches to (SET ROLE), so row-level security applies to the
-- application even when DATABASE_URL names a superuser or the schema owner.
DO $$
BEGIN
  CREATE ROLE hermesx_app NOLOGIN;
EXCEPTION
  WHEN duplicate_object OR unique_violation THEN NULL;
END
$$;

DO $$
BEGIN
  IF NOT pg_has_role(current_user, 'hermesx_app', 'MEMBER') THEN
    EXECUTE format('GRANT hermesx_app TO %I', current_user);
  END IF;
END
$$;

GRANT USAGE ON SCHEMA public TO hermesx_app;

-- The tenant of the current transaction, set by withTenant() with set_config(..., true).
CREATE OR REPLACE FUNCTION app_current_tenant() RETURNS uuid
  LANGUAGE sql STABLE
  AS $$ SELECT NULLIF(current_setting('app.current_tenant', true), '')::uuid $$;

-- Admin routes (tenants, API keys) run with app.admin = 'on' set for their transaction only.
CREATE OR REPLACE FUNCTION app_is_admin() RETURNS boolean
  LANGUAGE sql STABLE
  AS $$ SELECT coalesce(current_setting('app.admin', true), '') = 'on' $$;

GRANT EXECUTE ON FUNCTION app_current_tenant(), app_is_admin() TO hermesx_app;
