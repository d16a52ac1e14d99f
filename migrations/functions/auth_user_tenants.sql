-- The live tenants a user belongs to and its role in each, for GET /auth/me (the dashboard's
-- tenant picker). Called only with the user id of a session just found.
CREATE FUNCTION auth_user_tenants(p_user_id uuid)
  RETURNS TABLE (tenant_id uuid, name text, role text)
  LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    SELECT t.id, t.name, m.role
      FROM tenant_members m JOIN tenants t ON t.id = m.tenant_id
     WHERE m.user_id = p_user_id AND t.deleted_at IS NULL
     ORDER BY m.created_at, t.id;
  $$;

REVOKE ALL ON FUNCTION auth_user_tenants(uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION auth_user_tenants(uuid) TO hermesx_app;
