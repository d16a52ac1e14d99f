#!/bin/bash
# Stand-in for the official postgres image's entrypoint (test infrastructure), honouring the
# parts of its contract our compose files use: POSTGRES_USER / POSTGRES_PASSWORD / POSTGRES_DB /
# PGDATA and /docker-entrypoint-initdb.d on first start, listening on all interfaces, password (scram-sha-256) auth over TCP,
# trust on the local socket (so `docker exec <c> psql -U <user>` works), `postgres -c …` args.
set -euo pipefail

if [ "${1:0:1}" = '-' ]; then set -- postgres "$@"; fi

if [ "$1" = postgres ] && [ "$(id -u)" = 0 ]; then
  # Volumes and tmpfs mounts arrive owned by root: hand them to postgres, then drop root.
  mkdir -p "$PGDATA" /var/run/postgresql
  chown postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  chmod 3777 /var/run/postgresql
  exec setpriv --reuid=postgres --regid=postgres --init-groups "${BASH_SOURCE[0]}" "$@"
fi

if [ "$1" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -z "${POSTGRES_PASSWORD:-}" ]; then
    echo 'error: POSTGRES_PASSWORD is not set (the database would have no password)' >&2
    exit 1
  fi
  user="${POSTGRES_USER:-postgres}"
  db="${POSTGRES_DB:-$user}"
  pwfile="$(mktemp)"
  printf '%s' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb --username="$user" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 \
    --encoding=UTF8 --locale=C.UTF-8 -D "$PGDATA" >/dev/null
  rm -f "$pwfile"
  echo 'host all all all scram-sha-256' >>"$PGDATA/pg_hba.conf"
  {
    echo "listen_addresses = '*'"
    echo "unix_socket_directories = '/var/run/postgresql'"
  } >>"$PGDATA/postgresql.conf"
  # A socket-only server for the set-up, as the official image does: the database, then the
  # scripts of /docker-entrypoint-initdb.d in name order (*.sh run, *.sql fed to psql).
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  if [ "$db" != postgres ]; then
    psql -v ON_ERROR_STOP=1 -q --username "$user" --dbname postgres \
      -c "CREATE DATABASE \"$db\"" >/dev/null
  fi
  export POSTGRES_USER="$user" POSTGRES_DB="$db"
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sh) echo "running $f"; bash "$f" ;;
      *.sql) echo "running $f"; psql -v ON_ERROR_STOP=1 -q --username "$user" --dbname "$db" -f "$f" ;;
    esac
  done
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  echo 'PostgreSQL init process complete; ready for start up.'
fi

exec "$@"
