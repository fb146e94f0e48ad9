#!/usr/bin/env bash
# The daemon's instructions per call at 32 calls in flight, counted by
# callgrind (repeatable whatever else the machine does): one bench_upstream,
# a one-server mcp.json, mcpgwd under callgrind, and load_client's pollable
# interface with 10 handles keeping 32 calls outstanding. Two runs, with 1,000
# and 6,000 calls after the same warm-up; the difference over 5,000 calls
# leaves start-up, listing and shutdown out.
# The count moves by a few percent from run to run (how many calls one turn
# of the daemon's loop handles depends on timing), so builds are measured by
# turns, ROUNDS times, and the median is what to compare.
# Usage: tests/bench/callgrind_per_call.sh [--rounds N] BUILD_DIR [BUILD_DIR...]
#   prints a line per build and round, then each build's median.
set -euo pipefail
rounds=1
if [ "${1:-}" = "--rounds" ]; then rounds=$2; shift 2; fi
[ $# -ge 1 ] || { echo "usage: $0 [--rounds N] BUILD_DIR [BUILD_DIR...]" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "$0: valgrind is not installed" >&2; exit 1; }
TMP=$(mktemp -d)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$TMP"
}
trap cleanup EXIT
export XDG_CONFIG_HOME="$TMP/config" XDG_RUNTIME_DIR="$TMP/run" XDG_STATE_HOME="$TMP/state"
mkdir -p "$XDG_CONFIG_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"

# Total instructions of one mcpgwd run serving CALLS calls.
Count() {  # BUILD CALLS
  local build=$1 calls=$2 out="$TMP/cg.$RANDOM" sock="$TMP/run/cg.sock"
  valgrind --tool=callgrind --callgrind-out-file="$out" \
    "$build/daemon/mcpgwd" --config "$TMP/one.json" --socket "$sock" 2>"$TMP/mcpgwd.log" &
  local pid=$!
  LD_LIBRARY_PATH="$build/client" "$build/client/mcpgw" --socket "$sock" wait --timeout 120 \
    >/dev/null
  LD_LIBRARY_PATH="$build/client" "$build/tests/bench/load_client" poll --socket "$sock" \
    --ns f0 --conns 10 --inflight 32 --calls "$calls" --warmup 500 >"$TMP/load.$calls.json"
  grep -q "\"errors\":0" "$TMP/load.$calls.json" || { echo "$0: calls failed: $(cat "$TMP/load.$calls.json")" >&2; exit 1; }
  kill -TERM "$pid"
  wait "$pid" 2>/dev/null || true
  awk '/^summary:/ {print $2}' "$out"
}

declare -A counts
for ((round = 1; round <= rounds; round++)); do
  for build in "$@"; do
    "$build/tests/bench/bench_upstream" --tools 5 >"$TMP/port" 2>/dev/null &
    PIDS+=($!)
    for _ in $(seq 50); do [ -s "$TMP/port" ] && break; sleep 0.1; done
    port=$(head -n1 "$TMP/port")
    printf '{"mcpServers": {"f0": {"url": "http://127.0.0.1:%s/s/0/mcp"}}}\n' "$port" \
      >"$TMP/one.json"
    small=$(Count "$build" 1000)
    large=$(Count "$build" 6000)
    per_call=$(((large - small) / 5000))
    echo "round $round: $build $per_call instructions per call"
    counts[$build]+="$per_call "
    kill "${PIDS[-1]}" 2>/dev/null || true
  done
done
for build in "$@"; do
  median=$(tr ' ' '\n' <<<"${counts[$build]}" | sed '/^$/d' | sort -n |
    awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2)}')
  echo "median of $rounds: $build $median instructions per call"
done
