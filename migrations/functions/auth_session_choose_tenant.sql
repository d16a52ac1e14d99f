-- A user in several tenants picks the one its session acts for: only a live tenant it is a
-- member of (an operator picks any live tenant). False otherwise, and the session is unchanged.
CREATE FUNCTION auth_session_choose_tenant(p_session_hash text, p_tenant_id uuid)
  RETURNS boolean
  LANGUAGE sql VOLATILE SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    WITH chosen AS (
      UPDATE user_sessions s SET tenant_id = p_tenant_id
        FROM users u, tenants t
       WHERE s.id_hash = p_session_hash AND s.revoked_at IS NULL
         AND s.idle_expires_at > now() AND s.absolute_expires_at > now()
         AND u.id = s.user_id AND t.id = p_tenant_id AND t.deleted_at IS NULL
         AND (u.platform_role = 'operator' OR EXISTS (
               SELECT 1 FROM tenant_members m
                WHERE m.tenant_id = p_tenant_id AND m.user_id = s.user_id))
      RETURNING 1
    )
    SELECT EXISTS (SELECT 1 FROM chosen);
  $$;

REVOKE ALL ON FUNCTION auth_session_choose_tenant(text, uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION auth_session_choose_tenant(text, uuid) TO hermesx_app;
