#!/usr/bin/env bash
# Installs the Debian packages agon needs to build, run and test, if any is
# missing. Safe to run repeatedly; uses sudo when not root.
set -euo pipefail
pkgs=(gcc pkg-config meson ninja-build python3 sqlite3 tmux
      haproxy openssl systemd prometheus valgrind
      libuv1-dev libjansson-dev libsodium-dev libsqlite3-dev libssl-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
