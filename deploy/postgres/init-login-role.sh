#!/bin/sh
# Runs once, when the postgres container initialises an empty data directory
# (/docker-entrypoint-initdb.d). Creates the login role the API's pool uses (APP_DATABASE_URL):
# a member of hermesx_app with no privileges of its own (NOINHERIT), so a statement that leaves
# hermesx_app (RESET ROLE) is refused instead of bypassing row-level security. POSTGRES_USER, a
# superuser in this image, stays the schema owner that only migrates (DATABASE_URL).
# hermesx_app is created here as migration 001 would (it tolerates finding it).
set -eu
: "${HERMESX_LOGIN_USER:=hermesx_login}"
: "${HERMESX_LOGIN_PASSWORD:?set HERMESX_LOGIN_PASSWORD for the API login role}"
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
  -v login="$HERMESX_LOGIN_USER" -v password="$HERMESX_LOGIN_PASSWORD" <<'SQL'
DO $$
BEGIN
  CREATE ROLE hermesx_app NOLOGIN;
EXCEPTION
  WHEN duplicate_object OR unique_violation THEN NULL;
END
$$;
SELECT format('CREATE ROLE %I LOGIN NOINHERIT PASSWORD %L IN ROLE hermesx_app', :'login', :'password')
\gexec
SQL
