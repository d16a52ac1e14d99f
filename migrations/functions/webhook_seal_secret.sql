-- Replaces an endpoint's plain secrets by their sealed form, only if they are still the values
-- the caller read (a rotation in between wins; the next start seals what it wrote). A null
-- p_sealed / p_previous_sealed leaves that column as it is. True when the row was sealed.
CREATE FUNCTION webhook_seal_secret(p_id uuid, p_secret text, p_previous_secret text,
                                    p_sealed bytea, p_previous_sealed bytea)
  RETURNS boolean
  LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    WITH sealed AS (
      UPDATE webhook_endpoints e
         SET secret = CASE WHEN p_sealed IS NULL THEN e.secret END,
             secret_sealed = coalesce(p_sealed, e.secret_sealed),
             previous_secret = CASE WHEN p_previous_sealed IS NULL THEN e.previous_secret END,
             previous_secret_sealed = coalesce(p_previous_sealed, e.previous_secret_sealed)
       WHERE e.id = p_id
         AND e.secret IS NOT DISTINCT FROM p_secret
         AND e.previous_secret IS NOT DISTINCT FROM p_previous_secret
      RETURNING 1
    )
    SELECT count(*) > 0 FROM sealed;
  $$;

REVOKE ALL ON FUNCTION webhook_seal_secret(uuid, text, text, bytea, bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION webhook_seal_secret(uuid, text, text, bytea, bytea) TO hermesx_app;
