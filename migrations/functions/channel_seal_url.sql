-- Replaces a channel's plain webhook URL by its sealed form (base64) and the masked start the
-- API shows, only if the URL is still the one the caller read (a change in between wins; it was
-- written sealed, or the next start seals it). True when the row was sealed.
CREATE FUNCTION channel_seal_url(p_id uuid, p_url text, p_sealed text, p_shown text)
  RETURNS boolean
  LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    WITH sealed AS (
      UPDATE notify_channels c
         SET config = (c.config - 'url')
                      || jsonb_build_object('url_sealed', p_sealed, 'url_shown', p_shown)
       WHERE c.id = p_id
         AND c.config->>'url' = p_url
      RETURNING 1
    )
    SELECT count(*) > 0 FROM sealed;
  $$;

REVOKE ALL ON FUNCTION channel_seal_url(uuid, text, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION channel_seal_url(uuid, text, text, text) TO hermesx_app;
