-- Records that a key authenticated (api_keys.last_used_at, migration 375). Called before any
-- tenant is known, like auth_find_api_key; writes at most once a minute per key whatever the
-- number of replicas (the WHERE), and the process calls it at most once a minute per key.
CREATE FUNCTION auth_touch_api_key(p_key_id uuid)
  RETURNS void
  LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    UPDATE api_keys SET last_used_at = now()
     WHERE id = p_key_id
       AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
  $$;

REVOKE ALL ON FUNCTION auth_touch_api_key(uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION auth_touch_api_key(uuid) TO hermesx_app;
