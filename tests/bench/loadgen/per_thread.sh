#!/usr/bin/env bash
# CPU per move of each agond thread under the load generator (loopback,
# bounded): runs loadgen for SECS seconds and, from second 3 to 9, counts
# each agond thread's CPU with perf stat; prints one line.
#   tests/bench/loadgen/per_thread.sh LOADGEN AGOND [GAMES] [SECS]
# e.g. tests/bench/loadgen/per_thread.sh build-release/tests/bench/loadgen/loadgen \
#        build-release/server/agond 1000 12
set -euo pipefail
lg=$1 agond=$2 games=${3:-1000} secs=${4:-12}
command -v perf >/dev/null || { echo "per_thread.sh: needs perf" >&2; exit 1; }
out=$(mktemp) stat=$(mktemp)
trap 'rm -f "$out" "$stat"' EXIT
"$lg" "$agond" --games "$games" --secs "$secs" >"$out" 2>&1 &
lgpid=$!
sleep 3
pid=$(pgrep -n -f "^$agond ")
perf stat --per-thread -e task-clock -p "$pid" -x, -o "$stat" sleep 6 2>/dev/null
wait $lgpid
mps=$(sed -nE 's/.*= ([0-9]+) moves\/s.*/\1/p' "$out")
lat=$(sed -nE 's/^ack latency: (.*), max.*/\1/p' "$out")
cpu=$(sed -nE 's/^cpu: server .*\(([0-9.]+) us per move\), loadgen .*\(([0-9.]+) us per move\)/server \1 us, loadgen \2 us/p' "$out")
# task-clock is in ms; threads that hardly ran in the window are left out.
# Names: agond (the loop), agond-writer, agond-ckpt, agond-reader (db.c).
threads=$(awk -F, -v m="$mps" '{v = $2 * 1000 / (m * 6); if (v >= 0.05) printf "%s %.1f us  ", $1, v}' "$stat")
echo "G=$games: $mps moves/s | $lat | $cpu | per thread: $threads"
