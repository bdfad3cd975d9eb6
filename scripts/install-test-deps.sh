#!/usr/bin/env bash
# Installs what Sluice's tests need that Maven cannot bring: MariaDB (JDBC sink tests start their own
# mariadbd), and pgbench + psql (integration workloads). Idempotent: does nothing when all are present.
# As root it installs through apt; otherwise it prints the exact command and fails.
set -euo pipefail

missing_pkgs=()
have() { command -v "$1" >/dev/null 2>&1; }

have mariadbd && have mariadb-install-db || missing_pkgs+=(mariadb-server mariadb-client)
have pgbench || missing_pkgs+=(postgresql-contrib postgresql-client)
have psql || missing_pkgs+=(postgresql-client)

if [ ${#missing_pkgs[@]} -eq 0 ]; then
  echo "test dependencies present: $(mariadbd --version 2>/dev/null | head -1); $(pgbench --version 2>/dev/null)"
  exit 0
fi

# de-duplicate, keep order
read -r -a pkgs <<<"$(printf '%s\n' "${missing_pkgs[@]}" | awk '!seen[$0]++' | tr '\n' ' ')"

if [ "$(id -u)" -ne 0 ] || ! have apt-get; then
  echo "Sluice's tests need: ${pkgs[*]}" >&2
  echo "Install them with:  sudo apt-get update && sudo apt-get install -y ${pkgs[*]}" >&2
  echo "(or the equivalent packages of your system: a MariaDB 10.6+ server with mariadb-install-db, pgbench and psql)" >&2
  exit 1
fi

echo "installing test dependencies with apt: ${pkgs[*]}"
export DEBIAN_FRONTEND=noninteractive
# policy-rc.d keeps the packages from starting system services: tests start their own servers.
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
  chmod +x /usr/sbin/policy-rc.d
  trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
have mariadbd || { echo "mariadbd still missing after apt-get install" >&2; exit 1; }
have pgbench || { echo "pgbench still missing after apt-get install" >&2; exit 1; }
echo "installed: $(mariadbd --version | head -1); $(pgbench --version)"
