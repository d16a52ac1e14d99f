-- The installation's id (migrations/104_installation.sql): Redis keys that group pods carry it.
CREATE FUNCTION scheduler_installation_id() RETURNS uuid
  LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$ SELECT id FROM installation $$;

REVOKE ALL ON FUNCTION scheduler_installation_id() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_installation_id() TO hermesx_app;
