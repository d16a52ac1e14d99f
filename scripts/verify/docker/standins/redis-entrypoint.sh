#!/bin/sh
# Stand-in for the official redis image's entrypoint (test infrastructure): `redis-server …`
# runs as the redis user in /data, reachable from other containers (protected mode off, as the
# official image builds it).
set -eu

if [ "${1#-}" != "$1" ] || [ "${1%.conf}" != "$1" ]; then set -- redis-server "$@"; fi

if [ "$1" = redis-server ] && [ "$(id -u)" = 0 ]; then
  find . \! -user redis -exec chown redis:redis '{}' + 2>/dev/null || true
  exec setpriv --reuid=redis --regid=redis --init-groups "$0" "$@"
fi

if [ "$1" = redis-server ]; then
  case " $* " in
    *" --protected-mode "*) ;;
    *) set -- "$@" --protected-mode no ;;
  esac
fi

exec "$@"
