-- The live session with this hash (not revoked, within its idle and absolute expiry), its user,
-- its chosen tenant and the user's CURRENT role there (NULL once removed, so a removal or a role
-- change applies at the next request). Each use moves the idle expiry on, written at most once a
-- minute so a busy dashboard does not write a row per request; the absolute expiry never moves.
CREATE FUNCTION auth_session_find(p_session_hash text, p_idle interval)
  RETURNS TABLE (user_id uuid, email text, name text, platform_role text, tenant_id uuid,
                 role text, csrf_hash text)
  LANGUAGE plpgsql VOLATILE SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
BEGIN
  UPDATE user_sessions s
     SET last_seen_at = now(), idle_expires_at = least(now() + p_idle, s.absolute_expires_at)
   WHERE s.id_hash = p_session_hash AND s.revoked_at IS NULL
     AND s.idle_expires_at > now() AND s.absolute_expires_at > now()
     AND s.last_seen_at < now() - interval '1 minute';
  RETURN QUERY
    SELECT u.id, u.email, u.name, u.platform_role, s.tenant_id, m.role, s.csrf_hash
      FROM user_sessions s
      JOIN users u ON u.id = s.user_id
      LEFT JOIN tenant_members m ON m.tenant_id = s.tenant_id AND m.user_id = s.user_id
     WHERE s.id_hash = p_session_hash AND s.revoked_at IS NULL
       AND s.idle_expires_at > now() AND s.absolute_expires_at > now();
END
$$;

REVOKE ALL ON FUNCTION auth_session_find(text, interval) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION auth_session_find(text, interval) TO hermesx_app;
