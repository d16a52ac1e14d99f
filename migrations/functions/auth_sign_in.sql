-- A completed OpenID Connect sign-in, as one statement: the user is created or refreshed (by
-- issuer and subject, never by email), every open, unexpired invitation to its VERIFIED email
-- makes it a member (an unverified address joins nothing), and a new session is opened (a new id
-- at every sign-in: no fixation), on the tenant it belongs to first, oldest membership first. A
-- user keeps at most p_max_sessions live sessions: the oldest beyond are revoked, and its ended
-- sessions are deleted, so its rows stay within twice the bound.
CREATE FUNCTION auth_sign_in(
  p_issuer text, p_subject text, p_email text, p_email_verified boolean, p_name text,
  p_session_hash text, p_csrf_hash text, p_idle interval, p_absolute interval,
  p_max_sessions integer)
  RETURNS TABLE (user_id uuid, tenant_id uuid, joined integer)
  LANGUAGE plpgsql VOLATILE SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
DECLARE
  v_user uuid;
  v_tenant uuid;
  v_joined integer := 0;
BEGIN
  INSERT INTO users AS u (issuer, subject, email, email_verified, name, last_sign_in_at)
  VALUES (p_issuer, p_subject, lower(p_email), p_email_verified, p_name, now())
  ON CONFLICT (issuer, subject) DO UPDATE
    SET email = EXCLUDED.email, email_verified = EXCLUDED.email_verified,
        name = EXCLUDED.name, last_sign_in_at = now()
  RETURNING u.id INTO v_user;

  IF p_email_verified AND p_email IS NOT NULL THEN
    WITH accepted AS (
      UPDATE tenant_invitations i
         SET accepted_at = now(), accepted_by = v_user
       WHERE i.email = lower(p_email) AND i.accepted_at IS NULL AND i.expires_at > now()
         AND EXISTS (SELECT 1 FROM tenants t WHERE t.id = i.tenant_id AND t.deleted_at IS NULL)
      RETURNING i.tenant_id, i.role, i.invited_by
    ), added AS (
      INSERT INTO tenant_members (tenant_id, user_id, role, invited_by)
      SELECT a.tenant_id, v_user, a.role, a.invited_by FROM accepted a
      ON CONFLICT ON CONSTRAINT tenant_members_pkey DO NOTHING
      RETURNING 1
    )
    SELECT count(*) INTO v_joined FROM added;
  END IF;

  SELECT m.tenant_id INTO v_tenant
    FROM tenant_members m JOIN tenants t ON t.id = m.tenant_id
   WHERE m.user_id = v_user AND t.deleted_at IS NULL
   ORDER BY m.created_at, m.tenant_id
   LIMIT 1;

  DELETE FROM user_sessions s
   WHERE s.user_id = v_user
     AND (s.revoked_at IS NOT NULL OR s.idle_expires_at <= now() OR s.absolute_expires_at <= now());

  INSERT INTO user_sessions (id_hash, user_id, tenant_id, csrf_hash, idle_expires_at,
                             absolute_expires_at)
  VALUES (p_session_hash, v_user, v_tenant, p_csrf_hash,
          now() + least(p_idle, p_absolute), now() + p_absolute);

  UPDATE user_sessions s SET revoked_at = now()
   WHERE s.user_id = v_user AND s.revoked_at IS NULL
     AND s.id_hash IN (
       SELECT o.id_hash FROM user_sessions o
        WHERE o.user_id = v_user AND o.revoked_at IS NULL
        ORDER BY o.created_at DESC, o.id_hash
        OFFSET p_max_sessions);

  RETURN QUERY SELECT v_user, v_tenant, v_joined;
END
$$;

REVOKE ALL ON FUNCTION auth_sign_in(text, text, text, boolean, text, text, text, interval, interval, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION auth_sign_in(text, text, text, boolean, text, text, text, interval, interval, integer) TO hermesx_app;
