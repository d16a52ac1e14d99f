-- A run's answer as the `changed` rule compares it: runs of white space made one space, trimmed.
-- (A structured answer is its JSON text, compared the same way; an answer kept in the object
-- store is compared by its first 8 KiB, the part the run row holds.) A definer like every function
-- the application may call (migrations/functions/README.md), though it reads no table.
CREATE FUNCTION channel_normalized_answer(p_text text)
  RETURNS text
  LANGUAGE sql IMMUTABLE SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    SELECT btrim(regexp_replace(coalesce(p_text, ''), '\s+', ' ', 'g'))
  $$;

REVOKE ALL ON FUNCTION channel_normalized_answer(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION channel_normalized_answer(text) TO hermesx_app;
