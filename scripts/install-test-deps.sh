#!/usr/bin/env bash
# Installs what Sluice's tests need that Maven cannot bring, and builds the container images of the test
# suite. Idempotent: each step does nothing when its result is already there.
#   1. packages: MariaDB (the JDBC sink tests start their own mariadbd), pgbench + psql (integration
#      workloads), docker.io (the container tier), debootstrap (its base image) and Node.js with npm (the
#      Node.js example, whose packages `npm ci` installs into examples/node/node_modules);
#   2. a Docker engine: when `docker info` gets no answer, starts dockerd in the background (log below);
#   3. the base image sluice-test/debian:bookworm, once: debootstrap from the machine's own Debian mirror
#      (read from its apt sources), imported with `docker import` (no image registry is needed);
#   4. the test images, one per directory under it/docker/, tagged by a hash of the directory's content
#      (sluice-test/<dir>:<hash>) and built only when no image has that tag yet.
# As root it installs and starts what is missing; otherwise it prints the exact commands and fails.
# Environment: MVN (the Maven command of `make`, for the Kafka image's jars), SLUICE_DEBIAN_MIRROR
# (overrides the mirror read from the apt sources), SLUICE_DOCKERD_LOG (dockerd's log file).
set -euo pipefail

cd "$(dirname "$0")/.."
MVN=${MVN:-mvn -B -ntp}
SUITE=bookworm
BASE_IMAGE=sluice-test/debian:$SUITE
DOCKERD_LOG=${SLUICE_DOCKERD_LOG:-/var/log/sluice-dockerd.log}
DOCKERD_WAIT_SECONDS=60
NO_REGISTRY=http://127.0.0.1:9

have() { command -v "$1" >/dev/null 2>&1; }
is_root() { [ "$(id -u)" -eq 0 ]; }
say() { echo "install-test-deps: $*"; }
fail() { echo "install-test-deps: $*" >&2; exit 1; }

# ---- 1. packages ---------------------------------------------------------------------------------------
missing_pkgs=()
have mariadbd && have mariadb-install-db || missing_pkgs+=(mariadb-server mariadb-client)
have pgbench || missing_pkgs+=(postgresql-contrib postgresql-client)
have psql || missing_pkgs+=(postgresql-client)
have dockerd || missing_pkgs+=(docker.io)
have debootstrap || missing_pkgs+=(debootstrap)
have node && have npm || missing_pkgs+=(nodejs npm)

if [ ${#missing_pkgs[@]} -gt 0 ]; then
  # de-duplicate, keep order
  read -r -a pkgs <<<"$(printf '%s\n' "${missing_pkgs[@]}" | awk '!seen[$0]++' | tr '\n' ' ')"
  if ! is_root || ! have apt-get; then
    {
      echo "Sluice's tests need: ${pkgs[*]}"
      echo "Install them with:  sudo apt-get update && sudo apt-get install -y ${pkgs[*]}"
      echo "(or the equivalent packages of your system: a MariaDB 10.6+ server with mariadb-install-db, pgbench"
      echo " and psql, a Docker engine with its client, and debootstrap), then run this script once as root"
      echo " (sudo $0): it starts dockerd when none answers and builds the test images."
    } >&2
    exit 1
  fi
  say "installing with apt: ${pkgs[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # policy-rc.d keeps the packages from starting system services: tests start their own servers, and
  # this script starts dockerd itself (below) on machines without an init system.
  made_policy=
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
    chmod +x /usr/sbin/policy-rc.d
    made_policy=1
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
  if [ -n "$made_policy" ]; then
    rm -f /usr/sbin/policy-rc.d
    trap - EXIT
  fi
  for tool in mariadbd pgbench psql dockerd debootstrap node npm; do
    have "$tool" || fail "$tool still missing after apt-get install"
  done
fi
say "packages present: $(mariadbd --version 2>/dev/null | head -1); $(pgbench --version 2>/dev/null); $(dockerd --version 2>/dev/null)"

# ---- 1b. the Node.js example's packages (examples/node, run by it/ ExamplesIT) ----------------------------------
# npm ci installs exactly what package-lock.json records, into examples/node/node_modules (no global install);
# again only when the lockfile changed since.
if [ ! -f examples/node/node_modules/.package-lock.json ] \
    || [ examples/node/package-lock.json -nt examples/node/node_modules/.package-lock.json ]; then
  say "installing examples/node's packages (npm ci)"
  npm ci --prefix examples/node --no-audit --no-fund --loglevel=error >/dev/null
fi
say "examples/node packages present (node $(node --version))"

# ---- 2. a Docker engine --------------------------------------------------------------------------------
engine_answers() { docker info >/dev/null 2>&1; }

if ! engine_answers; then
  if ! is_root; then
    user=$(id -un)
    {
      if [ -z "${DOCKER_HOST:-}" ] && [ -S /var/run/docker.sock ] && [ ! -w /var/run/docker.sock ]; then
        echo "Sluice's container tests need a Docker engine: one runs here (/var/run/docker.sock), but $user may not use it."
        echo "Let $user reach it:  sudo usermod -aG docker $user   (then log in again), or run make test as root."
      else
        echo "Sluice's container tests need a Docker engine, and none answers \`docker info\` for $user${DOCKER_HOST:+ at DOCKER_HOST=$DOCKER_HOST}."
        echo "Start one:  sudo $0"
        echo "  (as root it installs docker.io, starts dockerd with its log in $DOCKERD_LOG, and builds the test images)"
        echo "then let $user reach it:  sudo usermod -aG docker $user   (and log in again)."
      fi
    } >&2
    exit 1
  fi
  if [ -d /run/systemd/system ] && have systemctl; then
    say "no Docker engine answers: systemctl start docker (its log: journalctl -u docker)"
    systemctl start docker
    DOCKERD_LOG="journalctl -u docker"
  else
    say "no Docker engine answers: starting dockerd in the background, log: $DOCKERD_LOG"
    mkdir -p "$(dirname "$DOCKERD_LOG")"
    # setsid: dockerd outlives this script and the make that ran it (later builds reuse it). The proxy is a
    # closed port on 127.0.0.1: this engine never pulls (the tests use local images only), so an image
    # asked for by mistake fails at once instead of reaching out to a registry. Builds are not affected:
    # their RUN steps reach the Debian mirror as the machine does.
    HTTP_PROXY=$NO_REGISTRY HTTPS_PROXY=$NO_REGISTRY http_proxy=$NO_REGISTRY https_proxy=$NO_REGISTRY NO_PROXY= no_proxy= \
      setsid dockerd >>"$DOCKERD_LOG" 2>&1 < /dev/null &
  fi
  for _ in $(seq "$DOCKERD_WAIT_SECONDS"); do
    engine_answers && break
    sleep 1
  done
  if ! engine_answers; then
    echo "dockerd did not answer within ${DOCKERD_WAIT_SECONDS}s; the end of its log ($DOCKERD_LOG):" >&2
    if [ -f "$DOCKERD_LOG" ]; then tail -n 30 "$DOCKERD_LOG" >&2; else journalctl -u docker -n 30 >&2 || true; fi
    exit 1
  fi
fi
say "Docker engine $(docker version --format '{{.Server.Version}} (API {{.Server.APIVersion}})' 2>/dev/null)"

# What test JVMs that were killed (no Ryuk: nothing else removes them) left over an hour ago: their
# stopped containers and unused networks, by Testcontainers' label (a running test's are younger or in use).
# Networks left behind would use up the engine's address pools.
docker container prune --force --filter label=org.testcontainers=true --filter until=1h >/dev/null || true
docker network prune --force --filter label=org.testcontainers=true --filter until=1h >/dev/null || true

image_exists() { docker image inspect "$1" >/dev/null 2>&1; }

# ---- 3. the base image ---------------------------------------------------------------------------------
# The first Debian mirror of the machine's apt sources that serves $SUITE: deb822 files (URIs:/Suites:)
# and one-line "deb" entries, one a line, the first is taken. Prints nothing when there is none.
debian_mirror() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk -v suite="$SUITE" '
      function flush() { if (!found && deb && enabled && uris != "" && (" " suites " ") ~ (" " suite " ")) { split(uris, u, " "); print u[1]; found = 1 } }
      /^[ \t]*$/ { flush(); deb = 0; enabled = 1; uris = ""; suites = ""; next }
      BEGIN { enabled = 1 }
      tolower($1) == "types:" { deb = ($0 ~ /[ \t]deb([ \t]|$)/) }
      tolower($1) == "enabled:" { enabled = (tolower($2) != "no") }
      tolower($1) == "uris:" { $1 = ""; uris = $0 }
      tolower($1) == "suites:" { $1 = ""; suites = $0 }
      END { flush() }' "$f"
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    sed -E 's/#.*//; s/\[[^]]*\]//' "$f" | awk -v suite="$SUITE" '$1 == "deb" && $3 == suite { print $2 }'
  done
}

if ! image_exists "$BASE_IMAGE"; then
  is_root || fail "the base image $BASE_IMAGE is missing and debootstrap needs root: run sudo $0"
  mirror=${SLUICE_DEBIAN_MIRROR:-$(debian_mirror | sed -n 1p)}
  [ -n "$mirror" ] || fail "no apt source of this machine serves Debian $SUITE (looked in /etc/apt/sources.list"\
" and /etc/apt/sources.list.d/); set SLUICE_DEBIAN_MIRROR=<a Debian mirror URL> and run again"
  rootfs=$(mktemp -d /tmp/sluice-rootfs-XXXXXX)
  trap 'rm -rf "$rootfs"' EXIT
  say "building $BASE_IMAGE: debootstrap --variant=minbase $SUITE from $mirror (1 to 3 minutes, once)"
  started=$SECONDS
  if ! debootstrap --variant=minbase "$SUITE" "$rootfs" "$mirror" > "$rootfs.log" 2>&1; then
    echo "debootstrap failed; the end of its log ($rootfs.log):" >&2
    tail -n 30 "$rootfs.log" >&2
    exit 1
  fi
  # a smaller image: the package lists and caches are fetched again by any Dockerfile's apt-get update
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" -c . | docker import --change 'CMD ["/bin/bash"]' - "$BASE_IMAGE" >/dev/null
  rm -rf "$rootfs" "$rootfs.log"
  trap - EXIT
  say "built $BASE_IMAGE in $((SECONDS - started))s"
fi

# ---- 4. the test images --------------------------------------------------------------------------------
# The content hash of an image directory: sha256 over "<sha256 of file>  ./<relative path>" lines, one per
# file, sorted by path (byte order), build outputs (target/) left out. dev.sluice.testing.containers.TestImage
# computes the same hash to find the image of the checkout's Dockerfile.
content_hash() {
  (cd "$1" && find . -path ./target -prune -o -type f -print | LC_ALL=C sort | while IFS= read -r f; do
     printf '%s  %s\n' "$(sha256sum < "$f" | cut -c1-64)" "$f"
   done) | sha256sum | cut -c1-12
}

# Files a build context needs that Maven brings: a pom.xml beside the Dockerfile copies its dependencies
# into target/ (the Kafka image's jars).
prepare_context() {
  local dir=$1
  [ -f "$dir/pom.xml" ] || return 0
  say "fetching $(basename "$dir")'s jars with Maven ($dir/pom.xml)"
  $MVN -q -f "$dir/pom.xml" package
}

shopt -s nullglob
for dir in it/docker/*/; do
  dir=${dir%/}
  name=$(basename "$dir")
  tag="sluice-test/$name:$(content_hash "$dir")"
  if image_exists "$tag"; then
    say "image $tag is up to date"
    continue
  fi
  prepare_context "$dir"
  say "building $tag from $dir"
  started=$SECONDS
  if ! DOCKER_BUILDKIT=0 docker build --pull=false -q -t "$tag" "$dir" > "/tmp/sluice-build-$name.log" 2>&1; then
    echo "docker build of $tag failed; the end of /tmp/sluice-build-$name.log:" >&2
    tail -n 30 "/tmp/sluice-build-$name.log" >&2
    exit 1
  fi
  rm -f "/tmp/sluice-build-$name.log"
  say "built $tag in $((SECONDS - started))s"
done
