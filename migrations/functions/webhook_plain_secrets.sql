-- Endpoints whose signing secrets are still plain text (written before migration 300, or by a
-- pod without HERMES_SECRETS_KEY), across tenants, in id order after p_after: the pod that starts
-- with a key seals them (src/webhooks/secret-sealing.ts).
CREATE FUNCTION webhook_plain_secrets(p_after uuid, p_limit integer)
  RETURNS TABLE (id uuid, tenant_id uuid, secret text, secret_sealed bytea, previous_secret text)
  LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    SELECT e.id, e.tenant_id, e.secret, e.secret_sealed, e.previous_secret
      FROM webhook_endpoints e
     WHERE (e.secret IS NOT NULL OR e.previous_secret IS NOT NULL)
       AND (p_after IS NULL OR e.id > p_after)
     ORDER BY e.id
     LIMIT p_limit;
  $$;

REVOKE ALL ON FUNCTION webhook_plain_secrets(uuid, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION webhook_plain_secrets(uuid, integer) TO hermesx_app;
