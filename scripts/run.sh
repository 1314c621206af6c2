#!/usr/bin/env bash
# Sets everything up and starts agond on 127.0.0.1:7878 with an embedded
# SQLite database in ./var/ (no configuration needed). Extra arguments go to
# agond (agond --help lists them).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
[ -d build-release ] || meson setup build-release --buildtype=release >/dev/null
ninja -C build-release server/agond
exec build-release/server/agond "$@"
