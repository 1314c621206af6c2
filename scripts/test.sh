#!/usr/bin/env bash
# Sets everything up and runs the whole test suite.
#   scripts/test.sh             optimized build (build/)
#   scripts/test.sh --sanitize  ASan+UBSan build (build-asan/), fewer random
#                               games and cheaper perft lines, same tests
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
if [ "${1:-}" = "--sanitize" ]; then
  dir=build-asan
  [ -d $dir ] || meson setup $dir -Db_sanitize=address,undefined \
      -Dc_args=-fno-sanitize-recover=all -Dproperty_games=1000 >/dev/null
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  export AGON_PERFT_MAX_NODES=3000000
else
  dir=build
  [ -d $dir ] || meson setup $dir >/dev/null
fi
ninja -C $dir
meson test -C $dir --print-errorlogs --num-processes "$(nproc)"
