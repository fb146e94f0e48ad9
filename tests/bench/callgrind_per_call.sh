#!/usr/bin/env bash
# The daemon's instructions per call at 32 calls in flight, counted by
# callgrind (repeatable whatever else the machine does): one bench_upstream,
# a one-server mcp.json, mcpgwd under callgrind, and load_client's pollable
# interface with 10 handles keeping 32 calls outstanding. Two runs, with 1,000
# and 6,000 calls after the same warm-up; the difference over 5,000 calls
# leaves start-up, listing and shutdown out.
# Usage: tests/bench/callgrind_per_call.sh BUILD_DIR [BUILD_DIR...]
#   prints one line per build: its directory and instructions per call.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR [BUILD_DIR...]" >&2; exit 2; }
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
    --ns f0 --conns 10 --inflight 32 --calls "$calls" --warmup 500 >/dev/null
  kill -TERM "$pid"
  wait "$pid" 2>/dev/null || true
  awk '/^summary:/ {print $2}' "$out"
}

for build in "$@"; do
  "$build/tests/bench/bench_upstream" --tools 5 >"$TMP/port" 2>/dev/null &
  PIDS+=($!)
  for _ in $(seq 50); do [ -s "$TMP/port" ] && break; sleep 0.1; done
  port=$(head -n1 "$TMP/port")
  printf '{"mcpServers": {"f0": {"url": "http://127.0.0.1:%s/s/0/mcp"}}}\n' "$port" \
    >"$TMP/one.json"
  small=$(Count "$build" 1000)
  large=$(Count "$build" 6000)
  echo "$build $(((large - small) / 5000)) instructions per call"
  kill "${PIDS[-1]}" 2>/dev/null || true
done
