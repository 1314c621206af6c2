#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for a bounded time
# (default 10 s) from its stored corpus. New crashers land in
# tests/fuzz/crash-* and fail the run.
#   scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
scripts/deps.sh
need=()
command -v clang >/dev/null || need+=(clang)
dpkg-query -W -f='${Status}' libclang-rt-14-dev 2>/dev/null | grep -q "ok installed" || need+=(libclang-rt-14-dev)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
dir=build-fuzz
[ -d $dir ] || CC=clang meson setup $dir -Dfuzz=true -Db_sanitize=address,undefined \
    -Db_lundef=false -Dc_args=-fno-sanitize-recover=all >/dev/null
ninja -C $dir
status=0
for exe in $dir/tests/fuzz/games/fuzz-* $dir/tests/fuzz/proto/fuzz-*; do
  [ -f "$exe" ] && [ -x "$exe" ] || continue
  name=$(basename "$exe"); name=${name#fuzz-}
  # corpus dir: game targets use <game_file_name>-<kind>, proto targets theirs
  game=${name%-*}; kind=${name##*-}
  corpus=tests/fuzz/corpus/${game//-/_}-$kind
  [ -d "$corpus" ] || corpus=$(dirname "$exe" | sed "s|^$dir/||")/corpus/$kind
  [ -d "$corpus" ] || corpus=""
  work=$(mktemp -d)
  echo "== $name ($secs s)"
  if ! "$exe" -max_total_time="$secs" -max_len=512 -timeout=10 \
       -artifact_prefix=tests/fuzz/ "$work" $corpus >"$work.log" 2>&1; then
    tail -30 "$work.log"; status=1
  else
    grep -E "^Done|stat::number_of_executed_units" "$work.log" | tail -1 || true
  fi
  rm -rf "$work" "$work.log"
done
exit $status
