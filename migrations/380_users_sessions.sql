-- People who sign in through the OpenID Connect provider (docs/security.md, "Users, roles and
-- sign-in"), the tenants they belong to with a role, the invitations by email that make them
-- members, and their sessions. A user is global (one person, several tenants); a membership, an
-- invitation and a session's chosen tenant are a tenant's, under its RLS policy. Sign-in and the
-- session lookup happen before any tenant is known: they go through the narrow SECURITY DEFINER
-- functions auth_sign_in, auth_session_find, auth_session_choose_tenant, auth_session_revoke and
-- auth_user_tenants.
CREATE TABLE users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  issuer text NOT NULL CHECK (length(issuer) BETWEEN 1 AND 2048),
  subject text NOT NULL CHECK (length(subject) BETWEEN 1 AND 255),
  email text CHECK (length(email) <= 320),
  email_verified boolean NOT NULL DEFAULT false,
  name text CHECK (length(name) <= 200),
  -- 'operator': acts as the admin token does (every tenant, the admin routes). Set by the schema
  -- owner (docs/security.md), never by a sign-in.
  platform_role text CHECK (platform_role IN ('operator')),
  created_at timestamptz NOT NULL DEFAULT now(),
  last_sign_in_at timestamptz,
  UNIQUE (issuer, subject)
);

CREATE TABLE tenant_members (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('viewer', 'member', 'admin', 'owner')),
  -- The user who invited (NULL: a key, the admin token, or that user is gone).
  invited_by uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, user_id)
);
CREATE INDEX tenant_members_user_idx ON tenant_members (user_id);

CREATE TABLE tenant_invitations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  email text NOT NULL CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 320),
  role text NOT NULL CHECK (role IN ('viewer', 'member', 'admin', 'owner')),
  invited_by uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  accepted_by uuid REFERENCES users (id) ON DELETE SET NULL
);
-- One open invitation per address and tenant; sign-in finds the open ones by address.
CREATE UNIQUE INDEX tenant_invitations_open_idx ON tenant_invitations (tenant_id, email)
  WHERE accepted_at IS NULL;
CREATE INDEX tenant_invitations_email_idx ON tenant_invitations (email) WHERE accepted_at IS NULL;

-- A session is known by the SHA-256 of its cookie's value, its CSRF token likewise; the raw
-- values exist only in the browser.
CREATE TABLE user_sessions (
  id_hash text PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  tenant_id uuid REFERENCES tenants (id) ON DELETE CASCADE,
  csrf_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  idle_expires_at timestamptz NOT NULL,
  absolute_expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  CHECK (idle_expires_at <= absolute_expires_at)
);
CREATE INDEX user_sessions_user_idx ON user_sessions (user_id, created_at);
CREATE INDEX user_sessions_tenant_idx ON user_sessions (tenant_id, user_id);

ALTER TABLE users ENABLE ROW LEVEL SECURITY;
ALTER TABLE users FORCE ROW LEVEL SECURITY;
ALTER TABLE tenant_members ENABLE ROW LEVEL SECURITY;
ALTER TABLE tenant_members FORCE ROW LEVEL SECURITY;
ALTER TABLE tenant_invitations ENABLE ROW LEVEL SECURITY;
ALTER TABLE tenant_invitations FORCE ROW LEVEL SECURITY;
ALTER TABLE user_sessions ENABLE ROW LEVEL SECURITY;
ALTER TABLE user_sessions FORCE ROW LEVEL SECURITY;

-- The app reads the users who are members of its tenant; it writes users only through
-- auth_sign_in.
GRANT SELECT ON users TO hermesx_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON tenant_members TO hermesx_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON tenant_invitations TO hermesx_app;
-- A tenant lists and revokes the sessions chosen on it (a removed member's); sessions are
-- created and found only through the functions.
GRANT SELECT, UPDATE ON user_sessions TO hermesx_app;

CREATE POLICY users_tenant ON users FOR SELECT TO hermesx_app
  USING (app_is_admin() OR EXISTS (
    SELECT 1 FROM tenant_members m
     WHERE m.user_id = users.id AND m.tenant_id = app_current_tenant()));
CREATE POLICY tenant_members_tenant ON tenant_members TO hermesx_app
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
CREATE POLICY tenant_invitations_tenant ON tenant_invitations TO hermesx_app
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
CREATE POLICY user_sessions_tenant ON user_sessions TO hermesx_app
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());

DO $$
BEGIN
  EXECUTE format('CREATE POLICY users_owner ON users TO %I USING (true) WITH CHECK (true)', current_user);
  EXECUTE format('CREATE POLICY tenant_members_owner ON tenant_members TO %I USING (true) WITH CHECK (true)', current_user);
  EXECUTE format('CREATE POLICY tenant_invitations_owner ON tenant_invitations TO %I USING (true) WITH CHECK (true)', current_user);
  EXECUTE format('CREATE POLICY user_sessions_owner ON user_sessions TO %I USING (true) WITH CHECK (true)', current_user);
END
$$;
