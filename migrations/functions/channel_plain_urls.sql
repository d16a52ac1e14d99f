-- Slack, Discord and Teams channels whose webhook URL is still plain text (written before
-- sealing, or by a pod without HERMES_SECRETS_KEY), across tenants, in id order after p_after:
-- the pod that starts with a key seals them (src/channels/url-seal.ts).
CREATE FUNCTION channel_plain_urls(p_after uuid, p_limit integer)
  RETURNS TABLE (id uuid, tenant_id uuid, kind text, url text)
  LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    SELECT c.id, c.tenant_id, c.kind, c.config->>'url'
      FROM notify_channels c
     WHERE c.kind IN ('slack', 'discord', 'teams')
       AND jsonb_typeof(c.config->'url') = 'string'
       AND (p_after IS NULL OR c.id > p_after)
     ORDER BY c.id
     LIMIT p_limit;
  $$;

REVOKE ALL ON FUNCTION channel_plain_urls(uuid, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION channel_plain_urls(uuid, integer) TO hermesx_app;
