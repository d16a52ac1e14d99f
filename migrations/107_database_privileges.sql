-- Nothing in the application needs temporary objects (a temporary view named like a table would
-- otherwise be found first by a careless search_path). Only the database owner (or a superuser)
-- may revoke this; on a managed database where the migrating user is neither, PostgreSQL warns
-- and changes nothing, and every SECURITY DEFINER function's search_path (pg_temp last) is what
-- protects the functions.
DO $$
BEGIN
  EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC', current_database());
EXCEPTION
  WHEN insufficient_privilege THEN
    RAISE NOTICE 'TEMPORARY on the database stays granted to PUBLIC: not the database owner';
END
$$;
