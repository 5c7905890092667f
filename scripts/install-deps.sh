#!/usr/bin/env bash
# Installs the Debian packages imgwarm builds and tests against, only those that are missing.
# Idempotent: on a machine that has them all it changes nothing and needs no network.
set -euo pipefail

packages=(libcurl4-openssl-dev libidn2-dev libssl-dev zlib1g-dev libmagickwand-dev libsqlite3-dev libarchive-dev sqlite3 pkg-config openssl ca-certificates
  default-jdk-headless libokhttp-java busybox python3 nodejs curl slurm-wlm munge procps)
missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all of ${packages[*]} are installed"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
