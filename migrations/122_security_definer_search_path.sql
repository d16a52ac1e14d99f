-- SECURITY DEFINER functions run as the schema owner. Their search_path named pg_catalog and
-- public but not pg_temp, and PostgreSQL then searches pg_temp first: a temporary view called
-- `installation`, made by the app role, would have been read by scheduler_installation_id() as
-- the owner. pg_temp goes last in every such function of the schema (those of earlier
-- migrations included, whoever wrote them); test/integration/db-roles.test.ts checks that no
-- later one forgets it.
DO $$
DECLARE
  fn regprocedure;
BEGIN
  FOR fn IN
    SELECT p.oid::regprocedure
      FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname = 'public' AND p.prosecdef
  LOOP
    EXECUTE format('ALTER FUNCTION %s SET search_path = pg_catalog, public, pg_temp', fn);
  END LOOP;
END
$$;

-- Nothing in the application needs temporary objects. Only the database owner (or a superuser)
-- may revoke this; on a managed database where the migrating user is neither, PostgreSQL warns
-- and changes nothing, and the search_path above is what protects the functions.
DO $$
BEGIN
  EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC', current_database());
EXCEPTION
  WHEN insufficient_privilege THEN
    RAISE NOTICE 'TEMPORARY on the database stays granted to PUBLIC: not the database owner';
END
$$;
