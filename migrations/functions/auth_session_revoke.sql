-- Sign-out: ends the session with this hash on the server, whatever its cookie does afterwards.
-- False when it was unknown or already ended.
CREATE FUNCTION auth_session_revoke(p_session_hash text)
  RETURNS boolean
  LANGUAGE sql VOLATILE SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    WITH revoked AS (
      UPDATE user_sessions SET revoked_at = now()
       WHERE id_hash = p_session_hash AND revoked_at IS NULL
      RETURNING 1
    )
    SELECT EXISTS (SELECT 1 FROM revoked);
  $$;

REVOKE ALL ON FUNCTION auth_session_revoke(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION auth_session_revoke(text) TO hermesx_app;
