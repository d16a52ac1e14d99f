-- Authentication happens before any tenant is known, so the lookup by hash is the one narrow
-- cross-tenant read of api_keys. It answers only for live keys of live tenants, with the key's
-- name (the audit log's actor) and scopes (NULL: every scope, migration 375).
CREATE FUNCTION auth_find_api_key(p_key_hash text)
  RETURNS TABLE (key_id uuid, tenant_id uuid, name text, scopes text[])
  LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    SELECT k.id, k.tenant_id, k.name, k.scopes
    FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
    WHERE k.key_hash = p_key_hash
      AND k.revoked_at IS NULL
      AND (k.expires_at IS NULL OR k.expires_at > now())
      AND t.deleted_at IS NULL
  $$;

REVOKE ALL ON FUNCTION auth_find_api_key(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION auth_find_api_key(text) TO hermesx_app;
