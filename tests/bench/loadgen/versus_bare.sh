#!/usr/bin/env bash
# agond against the bare reference transport (tests/bench/bare), alternately,
# under the same load generator: on a shared VM whose speed swings by a third
# within minutes, a figure means something next to the transport's of the
# same minute. Loopback only, bounded (PAIRS x 2 runs of SECS seconds).
#   tests/bench/loadgen/versus_bare.sh BUILD_DIR [GAMES] [SECS] [PAIRS]
# e.g. tests/bench/loadgen/versus_bare.sh build-release 1000 15 3
# Prints one line per run and, per pair, agond's moves/s as a share of the
# transport's and both ack p99s.
set -euo pipefail
b=$1 games=${2:-1000} secs=${3:-15} pairs=${4:-3}
lg=$b/tests/bench/loadgen/loadgen
run() {  # prints: moves/s p50 p99 p999 server-us loadgen-us
  "$lg" "$@" --games "$games" --secs "$secs" | awk '
    /^moves:/ { for (i = 1; i <= NF; i++) if ($i == "moves/s") mps = $(i - 1) }
    /^cpu:/ { gsub(/[()]/, ""); s = $5; l = $12 }
    /^ack latency:/ { gsub(/,/, ""); p50 = $4; p99 = $7; p999 = $10 }
    END { printf "%s %s %s %s %s %s\n", mps, p50, p99, p999, s, l }'
}
printf '%-6s %8s %8s %8s %8s %12s %12s\n' server moves/s p50_ms p99_ms p999_ms server_us/mv loadgen_us/mv
sum=0
for ((i = 1; i <= pairs; i++)); do
  read -r bm b50 b99 b999 bs bl < <(run "$b/tests/bench/bare/bare_relay" --bare)
  printf '%-6s %8s %8s %8s %8s %12s %12s\n' bare "$bm" "$b50" "$b99" "$b999" "$bs" "$bl"
  read -r am a50 a99 a999 as al < <(run "$b/server/agond")
  printf '%-6s %8s %8s %8s %8s %12s %12s\n' agond "$am" "$a50" "$a99" "$a999" "$as" "$al"
  share=$(awk -v a="$am" -v t="$bm" 'BEGIN { printf "%.2f", a / t }')
  sum=$(awk -v s="$sum" -v x="$share" 'BEGIN { print s + x }')
  echo "pair $i: agond $share x the transport's moves/s; ack p99 $a99 ms (transport $b99 ms)"
done
awk -v s="$sum" -v n="$pairs" -v g="$games" \
  'BEGIN { printf "G=%d: agond at %.2f x the bare transport (mean of %d pairs)\n", g, s / n, n }'
